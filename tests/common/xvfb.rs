//! The window tests' harness: a private Xvfb server and the real `powder` binary run on it, with
//! a timeout so a hang fails the test instead of stalling CI, and readers of what a run leaves
//! (the `--report` JSON, `--screenshot` PNGs).
//!
//! These tests need Xvfb: `scripts/setup.sh` installs it. Without it they fail (not skip), so a
//! machine that cannot run them is noticed.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A scripted run of a small scene on lavapipe takes 10–40 s; a hang is caught well after that.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// A private X server, killed (by its PID) when dropped.
pub struct Xvfb {
    child: Child,
    display: String,
    runtime_dir: tempfile::TempDir,
}

/// How a powder run ended.
pub struct Run {
    /// Exit status.
    pub status: ExitStatus,
    /// Everything it wrote to stderr.
    pub stderr: String,
    /// Wall-clock seconds from start to exit.
    pub seconds: f64,
}

impl Xvfb {
    /// Starts a server on a free display.
    pub fn start() -> Self {
        // -displayfd makes Xvfb pick a free display number itself and print it once it is ready.
        let spawned = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                panic!("Xvfb is not installed, so the window tests cannot run: run scripts/setup.sh first")
            }
            Err(e) => panic!("cannot start Xvfb: {e}"),
        };
        let mut line = String::new();
        let read = BufReader::new(child.stdout.take().expect("Xvfb stdout")).read_line(&mut line);
        let number = line.trim().to_string();
        let runtime_dir = tempfile::tempdir().expect("temp XDG_RUNTIME_DIR");
        let server = Self { child, display: format!(":{number}"), runtime_dir };
        assert!(
            read.is_ok() && !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()),
            "Xvfb did not report a display number (got {line:?})"
        );
        server
    }

    /// Starts powder with `args` on this display, in the repository, logging stderr to `log`.
    pub fn spawn(&self, args: &[&str], log: &Path) -> Child {
        self.spawn_in(args, log, Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// Starts powder with `args` on this display in the working directory `dir`, logging stderr
    /// to `log`.
    pub fn spawn_in(&self, args: &[&str], log: &Path, dir: &Path) -> Child {
        Command::new(env!("CARGO_BIN_EXE_powder"))
            .args(args)
            .current_dir(dir)
            .env("DISPLAY", &self.display)
            .env("XDG_RUNTIME_DIR", self.runtime_dir.path())
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).expect("log file"))
            .spawn()
            .expect("the powder binary starts")
    }

    /// Runs `xdotool` (X input as a user's: key presses, window search) on this display and
    /// returns its standard output; fails the test if it fails or is not installed.
    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = match Command::new("xdotool").args(args).env("DISPLAY", &self.display).output() {
            Ok(out) => out,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                panic!("xdotool is not installed, so the key tests cannot run: run scripts/setup.sh first")
            }
            Err(e) => panic!("cannot run xdotool: {e}"),
        };
        assert!(out.status.success(), "xdotool {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs powder with `args` to the end; fails the test if it runs past [`RUN_TIMEOUT`].
    pub fn powder(&self, args: &[&str]) -> Run {
        let logs = tempfile::tempdir().expect("log dir");
        let log = logs.path().join("stderr");
        finish(self.spawn(args, &log), &log, args)
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits for a powder process started by [`Xvfb::spawn`], killing it after [`RUN_TIMEOUT`].
pub fn finish(mut child: Child, log: &Path, args: &[&str]) -> Run {
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for powder") {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(log).unwrap_or_default();
            panic!("powder {args:?} did not exit within {RUN_TIMEOUT:?} (a hang); stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::fs::read_to_string(log).unwrap_or_default();
    Run { status, stderr, seconds: start.elapsed().as_secs_f64() }
}

/// The `--report` JSON at `path`.
pub fn report(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("no report at {}: {e}", path.display()));
    serde_json::from_str(&text).expect("the report is JSON")
}

/// A number field of a report.
pub fn number(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("report field {key} missing: {v}"))
}

/// RGBA8 pixels of a PNG, with its width and height.
pub fn read_png(path: &Path) -> (Vec<u8>, u32, u32) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("no screenshot at {}: {e}", path.display()));
    let mut reader = png::Decoder::new(BufReader::new(file)).read_info().expect("PNG header");
    let mut pixels = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut pixels).expect("PNG data");
    assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgba, png::BitDepth::Eight));
    pixels.truncate(info.buffer_size());
    (pixels, info.width, info.height)
}
