//! Keys pressed in the real window: X key events sent by `xdotool` to the `powder` binary on a
//! private Xvfb server, as a user's keyboard sends them (through winit and egui to the app's
//! events). F12 saves the 3D view into `screenshots/` of the working directory, each press a new
//! numbered file; F9 starts and stops recording a numbered PNG sequence into a folder of its own
//! under `recordings/`; both hold what is on screen (here the grid view over the 3D view); Escape quits with a success status.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::xvfb::{Xvfb, finish, read_png};

/// How long a key's effect may take to show on lavapipe (the first frames compile pipelines).
const WAIT: Duration = Duration::from_secs(120);

/// Waits until `ready` holds, failing the test with `what` after [`WAIT`].
fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < WAIT, "{what} did not happen within {WAIT:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The numbered frames in `folder`, sorted.
fn frames(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// Pixels of exactly the grid view's empty-node colour (24, 24, 28) in the top right quarter of
/// a `w`-pixel-wide image, where the grid view's plane is drawn over the 3D view. The plane's image
/// is sampled nearest, so its empty nodes keep that colour exactly; the scene renderer's sky and
/// ground are far brighter.
fn grid_view_pixels(pixels: &[u8], w: u32) -> usize {
    let h = pixels.len() as u32 / 4 / w;
    let at = |x: u32, y: u32| &pixels[4 * (y * w + x) as usize..][..3];
    (0..h / 2).flat_map(|y| (w / 2..w).map(move |x| (x, y))).filter(|&(x, y)| at(x, y) == [24, 24, 28]).count()
}

/// Whether a PNG has both bright and dark pixels (a drawn view, not a cleared target).
fn has_contrast(pixels: &[u8]) -> bool {
    let luma = |p: &[u8]| p[0] as u32 + p[1] as u32 + p[2] as u32;
    let (lo, hi) = pixels.chunks_exact(4).fold((u32::MAX, 0), |(lo, hi), p| (lo.min(luma(p)), hi.max(luma(p))));
    hi > lo + 150
}

#[test]
fn f12_saves_numbered_screenshots_and_f9_records_a_sequence_in_the_working_directory() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("working directory");
    let log = dir.path().join("stderr");
    // The panel hidden, so the 3D view (and every saved image) is the whole 640 × 480 window; the
    // grid view on, so that recorded frames show what is drawn over the view. The plane is read
    // back only between the simulation's batches: a pause of two seconds lets the first read in.
    let script = "0:grid-view; 0.1:pause; 2:pause";
    let child = x.spawn_in(&["--size", "640x480", "--hide-ui", "--script", script], &log, dir.path());
    let window = x.xdotool(&["search", "--sync", "--name", "^powder"]);
    let window = window.lines().next().expect("the window's id").trim().to_string();
    x.xdotool(&["windowfocus", "--sync", &window]);

    let shots = dir.path().join("screenshots");
    x.xdotool(&["key", "F12"]);
    wait_for("the first screenshot", || shots.join("powder_screenshot_001.png").exists());
    x.xdotool(&["key", "F12"]);
    wait_for("the second screenshot", || shots.join("powder_screenshot_002.png").exists());
    // A file appears before it is fully written: read them once the app has moved on.
    std::thread::sleep(Duration::from_secs(1));
    for name in ["powder_screenshot_001.png", "powder_screenshot_002.png"] {
        let (pixels, w, h) = read_png(&shots.join(name));
        assert_eq!((w, h), (640, 480), "{name}: the view's size");
        assert!(has_contrast(&pixels), "{name}: a drawn view");
    }

    let recording = dir.path().join("recordings").join("powder_recording_001");
    std::thread::sleep(Duration::from_secs(3));
    x.xdotool(&["key", "F9"]);
    wait_for("three recorded frames", || frames(&recording).len() >= 3);
    x.xdotool(&["key", "F9"]);
    // Stopped: the count settles (a frame being written when the key arrived may still land).
    std::thread::sleep(Duration::from_secs(2));
    let stopped = frames(&recording);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(frames(&recording), stopped, "frames kept coming after the second F9");
    let pngs: Vec<_> = stopped.iter().filter(|n| n.ends_with(".png")).collect();
    let expected: Vec<String> = (0..pngs.len()).map(|i| format!("frame_{i:05}.png")).collect();
    assert_eq!(pngs, expected.iter().collect::<Vec<_>>(), "frames numbered from 0 without gaps");
    for name in [&expected[0], &expected[expected.len() - 1]] {
        let (pixels, w, h) = read_png(&recording.join(name));
        assert_eq!((w, h), (640, 480), "{name}: the view's size");
        assert!(has_contrast(&pixels), "{name}: a drawn view");
        // The plane is a few dozen nodes a side scaled to 260 points: thousands of pixels.
        assert!(grid_view_pixels(&pixels, w) > 1000, "{name}: the grid view as on screen");
    }

    x.xdotool(&["key", "Escape"]);
    let run = finish(child, &log, &["(keys)"]);
    assert!(run.status.success(), "Escape should quit cleanly: {:?}\n{}", run.status, run.stderr);
    println!("{} frames recorded; run took {:.1} s", pngs.len(), run.seconds);
}
