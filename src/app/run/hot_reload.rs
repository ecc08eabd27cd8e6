//! Files watched for changes, polled by modification time. Shader hot reload in debug builds: the
//! loop asks [`ShaderWatcher::changed`] every frame, and a change under `shaders/mpm/` or
//! `shaders/render/` becomes an `AppEvent::ReloadShaders`. Release builds embed the shaders and
//! watch nothing; F5 still reloads from the checkout's `shaders/` in any build. Scene
//! reload in every build: [`FileWatcher`] watches the open scene file and the glTF files it refers
//! to, and a change becomes an `AppEvent::ReloadScene`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How often the files' modification times are read.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// Watches the modification times of the MPM and render shader files.
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

/// What identifies a version of a file: its modification time and length (the length catches a
/// rewrite within the file system's timestamp resolution that changes the size).
type Stamp = (SystemTime, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Watches a scene file and the glTF files it refers to: [`FileWatcher::changed`] says when one
/// of them was rewritten, and the loop then reloads the scene (`AppEvent::ReloadScene`).
pub struct FileWatcher {
    files: Vec<(PathBuf, Option<Stamp>)>,
    interval: Duration,
    last_poll: Instant,
}

impl FileWatcher {
    /// Watches `files` (duplicates dropped) from their state now, polled at most every half second.
    pub fn new(files: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut unique: Vec<PathBuf> = Vec::new();
        for f in files {
            if !unique.contains(&f) {
                unique.push(f);
            }
        }
        let files = unique.into_iter().map(|f| (f.clone(), stamp(&f))).collect();
        Self { files, interval: POLL_INTERVAL, last_poll: Instant::now() }
    }

    /// The same watcher polling at most every `interval` (tests use zero).
    #[cfg(test)]
    pub fn with_interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// The watched files.
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(|(f, _)| f.as_path())
    }

    /// Whether a file changed since the watcher was made or last said so. While a file is missing
    /// nothing is reported: editors that save by deleting and renaming leave a moment with no
    /// file, and reloading then would only say it cannot be read. The change shows once it is back.
    pub fn changed(&mut self) -> bool {
        if self.files.is_empty() || self.last_poll.elapsed() < self.interval {
            return false;
        }
        self.last_poll = Instant::now();
        let now: Vec<Option<Stamp>> = self.files.iter().map(|(f, _)| stamp(f)).collect();
        if now.iter().any(Option::is_none) {
            return false;
        }
        let changed = self.files.iter().zip(&now).any(|((_, old), new)| old != new);
        for ((_, old), new) in self.files.iter_mut().zip(now) {
            *old = new;
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewritten_or_replaced_file_is_reported_once_and_a_missing_one_waits() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (scene, model) = (dir.path().join("scene.json"), dir.path().join("model.glb"));
        std::fs::write(&scene, "{}").expect("write");
        std::fs::write(&model, "glb").expect("write");
        let mut watcher = FileWatcher::new([scene.clone(), model.clone(), scene.clone()]).with_interval(Duration::ZERO);
        assert_eq!(watcher.files().count(), 2);
        assert!(!watcher.changed(), "nothing changed yet");
        std::fs::write(&scene, "{ \"version\": 2 }").expect("rewrite");
        assert!(watcher.changed(), "the scene file was rewritten");
        assert!(!watcher.changed(), "a change is reported once");
        // Saved the way editors do: a new file renamed over the old one.
        let fresh = dir.path().join("model.tmp");
        std::fs::write(&fresh, "a new model").expect("write");
        std::fs::rename(&fresh, &model).expect("rename");
        assert!(watcher.changed(), "the glTF file was replaced");
        std::fs::remove_file(&model).expect("delete");
        assert!(!watcher.changed(), "a missing file is not a change yet");
        std::fs::write(&model, "back again").expect("write");
        assert!(watcher.changed(), "the file is back, changed");
        assert!(!FileWatcher::new(Vec::new()).with_interval(Duration::ZERO).changed());
    }
}
