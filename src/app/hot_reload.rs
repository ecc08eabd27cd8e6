//! Shader hot reload in debug builds: the loop asks [`ShaderWatcher::changed`] every frame, and a
//! change under `shaders/mpm/` becomes an `AppEvent::ReloadShaders`. Release builds embed the
//! shaders and never look at the disk.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// How often the files' modification times are read.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Watches the modification times of the MPM shader files.
pub struct ShaderWatcher {
    dir: PathBuf,
    newest: Option<SystemTime>,
    last_poll: Instant,
}

impl ShaderWatcher {
    /// A watcher of this checkout's `shaders/`, or `None` in release builds.
    pub fn for_debug_builds() -> Option<Self> {
        if !cfg!(debug_assertions) {
            return None;
        }
        let dir = powder::sim::shaders::source_dir();
        let newest = powder::sim::shaders::newest_modification(&dir);
        Some(Self { dir, newest, last_poll: Instant::now() })
    }

    /// Whether a shader file changed since the last call that said so.
    pub fn changed(&mut self) -> bool {
        if self.last_poll.elapsed() < POLL_INTERVAL {
            return false;
        }
        self.last_poll = Instant::now();
        let newest = powder::sim::shaders::newest_modification(&self.dir);
        if newest > self.newest {
            self.newest = newest;
            return true;
        }
        false
    }
}
