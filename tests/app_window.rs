//! The desktop app end to end: the real `powder` binary opens a real window on a private Xvfb
//! server and draws with lavapipe (or whatever Vulkan driver is present). Each test starts its
//! own X server on a free display and stops it when done, also when the test fails
//! (`tests/common/xvfb.rs`).

mod common;

use std::path::{Path, PathBuf};

use common::xvfb::{Xvfb, number, read_png, report};

/// A 0.2 × 0.2 × 0.15 m block of snow (1,690 particles) dropped at 1 m/s onto the floor of a
/// 0.5 m box at resolution 16: small enough for a software rasteriser and solver.
const BLOCK_SCENE: &str = r#"{
  "version": 1,
  "name": "small block drop",
  "domain": { "size": [0.5, 0.5, 0.5] },
  "grid": { "resolution": 16 },
  "time": { "fps": 30 },
  "emitters": [ { "shape": "box", "min": [0.15, 0.15, 0.2], "max": [0.35, 0.35, 0.35], "velocity": [0, 0, -1] } ]
}"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("file written");
    path
}

/// Snow as the renderer draws it: bright (every channel ≥ 225 of 255) and nearly grey (channels
/// within 20 of each other). The backgrounds the renderer has drawn so far (a sky gradient peaking
/// at about (213, 220, 228) over a grey checkered ground; a flat (185, 185, 185)) stay below that.
fn is_snow(p: &[u8]) -> bool {
    let (lo, hi) = (p[..3].iter().min().copied().unwrap_or(0), p[..3].iter().max().copied().unwrap_or(0));
    lo >= 225 && hi - lo <= 20
}

#[test]
fn the_screenshot_shows_snow_where_the_snow_is_and_sky_elsewhere() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(dir.path(), "block.json", BLOCK_SCENE);
    let (shot, json) = (dir.path().join("shot.png"), dir.path().join("report.json"));
    let run = x.powder(&[
        scene.to_str().expect("utf-8"),
        "--frames",
        "6",
        "--size",
        "640x480",
        "--screenshot",
        shot.to_str().expect("utf-8"),
        "--report",
        json.to_str().expect("utf-8"),
    ]);
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    let (pixels, w, h) = read_png(&shot);
    assert_eq!(
        [w as u64, h as u64],
        [r["view_size"][0].as_u64().unwrap_or(0), r["view_size"][1].as_u64().unwrap_or(0)]
    );
    let rect: Vec<f64> =
        r["snow_rect_px"].as_array().expect("snow on screen").iter().filter_map(|v| v.as_f64()).collect();
    let inside = |x: u32, y: u32| {
        (rect[0]..rect[2]).contains(&(x as f64 + 0.5)) && (rect[1]..rect[3]).contains(&(y as f64 + 0.5))
    };
    let (mut snow_in, mut n_in, mut snow_out, mut n_out) = (0u64, 0u64, 0u64, 0u64);
    for y in 0..h {
        for x in 0..w {
            let i = 4 * (y * w + x) as usize;
            let snow = is_snow(&pixels[i..i + 4]) as u64;
            if inside(x, y) {
                (snow_in, n_in) = (snow_in + snow, n_in + 1);
            } else {
                (snow_out, n_out) = (snow_out + snow, n_out + 1);
            }
        }
    }
    let (f_in, f_out) = (snow_in as f64 / n_in.max(1) as f64, snow_out as f64 / n_out.max(1) as f64);
    eprintln!("snow-like pixels: {:.1}% of the snow's box ({n_in} px), {:.2}% elsewhere", 100.0 * f_in, 100.0 * f_out);
    // The box of a resting block seen from above at an angle: its projected corners enclose the
    // block's silhouette plus ground around it; snow filled 36% of it with shaded impostors and 84%
    // with flat splats when measured (and under 0.2% of the rest of the image), so 20% leaves room
    // for shading changes without losing the point.
    assert!(n_in > 500, "the snow covers only {n_in} pixels: {rect:?}");
    assert!(f_in > 0.2, "only {:.1}% of the snow's box looks like snow", 100.0 * f_in);
    assert!(f_out < 0.01, "{:.2}% of the pixels outside the snow look like snow", 100.0 * f_out);
    // The top rows are sky: bright but not white, and not empty.
    let top: Vec<&[u8]> = pixels[..(4 * w * (h / 10)) as usize].chunks(4).collect();
    let mean = top.iter().map(|p| (p[0] as f64 + p[1] as f64 + p[2] as f64) / 3.0).sum::<f64>() / top.len() as f64;
    assert!((120.0..225.0).contains(&mean), "the sky's mean brightness is {mean:.0}");
}

#[test]
fn a_stiffer_material_keeps_more_of_its_height() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(dir.path(), "block.json", BLOCK_SCENE);
    let run = |modulus: &str| {
        let json = dir.path().join(format!("report_{modulus}.json"));
        let set = format!("material.youngs_modulus={modulus}");
        let args = [scene.to_str().expect("utf-8"), "--frames", "12", "--size", "480x360", "--hide-ui", "--set", &set];
        let run = x.powder(&[&args[..], &["--report", json.to_str().expect("utf-8")]].concat());
        assert!(run.status.success(), "E = {modulus}: powder failed ({:?}): {}", run.status, run.stderr);
        eprintln!("E = {modulus}: {:.1} s", run.seconds);
        report(&json)
    };
    let (soft, stiff) = (run("2e4"), run("5e5"));
    for r in [&soft, &stiff] {
        // 12 frames of the scene's 1/30 s: the same simulated time, whatever dt each needed.
        assert!((number(r, "simulated_time") - 0.4).abs() < 1e-9, "{r}");
    }
    assert_eq!(soft["particle_count"], stiff["particle_count"]);
    let (z_soft, z_stiff) = (number(&soft, "mean_z"), number(&stiff, "mean_z"));
    eprintln!("mean z: soft {z_soft:.4} m, stiff {z_stiff:.4} m");
    // The block lands after ~0.13 s and then squashes. Measured: soft ≈ 0.084 m, stiff ≈ 0.11 m
    // (an undeformed block resting on the floor). A third of a cell (h = 0.031 m) is well clear
    // of run-to-run noise (none: the runs are deterministic) and well below the effect.
    assert!(z_stiff - z_soft > 0.01, "the stiffer block is not higher: soft {z_soft}, stiff {z_stiff}");
    assert!(number(&stiff, "max_z") > number(&soft, "max_z"));
}

#[test]
fn resizing_to_tiny_and_zero_size_and_back_keeps_running_and_exits_cleanly() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(dir.path(), "block.json", BLOCK_SCENE);
    let json = dir.path().join("report.json");
    // Real resizes through the X server (120×90, then 1×1), then the 0×0 resize a minimised window
    // gets on Windows (X11 has no 0×0 windows, so it is delivered in-app), a second back at 0×0
    // while "minimised", then a real resize back and a minimise/restore request.
    let script = "0.2:size=120x90; 0.8:size=1x1; 1.4:resize-event=0x0; 2.4:size=640x480; 3:minimize; 3.4:restore";
    let run = x.powder(&[
        scene.to_str().expect("utf-8"),
        "--frames",
        "8",
        "--size",
        "480x360",
        "--stepping",
        "real-time",
        "--script",
        script,
        "--report",
        json.to_str().expect("utf-8"),
    ]);
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let r = report(&json);
    assert_eq!(r["window_size"], serde_json::json!([640, 480]), "{r}");
    assert!(number(&r, "frames") >= 8.0 && number(&r, "simulated_time") > 0.0, "{r}");
    assert!(number(&r, "mean_z").is_finite());
}

/// A scene frame of the block takes many substeps; the window keeps drawing while they run. On a
/// software adapter the simulation has a device of its own and a scene frame spans many UI frames
/// (`frames` counts them all, `settled_frames` those that showed a finished scene frame, which
/// `--frames` counts). A grid change sent while a batch of substeps is on the GPU waits for it
/// and is then applied.
#[test]
fn the_window_keeps_drawing_while_a_scene_frame_is_simulated() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(dir.path(), "block.json", BLOCK_SCENE);
    let json = dir.path().join("report.json");
    let args = [scene.to_str().expect("utf-8"), "--frames", "3", "--size", "320x240", "--script", "0.2:grid=12"];
    let run = x.powder(&[&args[..], &["--report", json.to_str().expect("utf-8")]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    eprintln!(
        "{} frames drawn, {} settled, {} scene frames, UI frame times {}, simulation on {}",
        r["frames"], r["settled_frames"], r["sim_frames"], r["ui_frame_ms"], r["simulation_device"]
    );
    assert_eq!(r["errors"], serde_json::json!([]), "{r}");
    assert_eq!(r["grid_resolution"], 12, "{r}");
    assert_eq!(r["settled_frames"], 3, "{r}");
    // Three scene frames of 1/30 s, and the part of one that ran before the grid changed (the
    // frame in progress then ends where it was; the particles and the time are kept).
    let t = number(&r, "simulated_time");
    assert!((0.1 - 1e-9..0.1 + 1.0 / 30.0).contains(&t), "{r}");
    assert!(r["ui_frame_ms"]["frames"].as_u64().is_some_and(|n| n > 0), "{r}");
    if r["simulation_device"] == "own" {
        assert!(number(&r, "frames") > number(&r, "settled_frames"), "no frame drawn during a scene frame: {r}");
    }
}

#[test]
fn a_broken_scene_file_exits_nonzero_with_the_reason() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let syntax = write(dir.path(), "syntax.json", "{ \"version\": 1, \"domain\": { \"size\": [1, 1 1] } }");
    let run = x.powder(&[syntax.to_str().expect("utf-8"), "--frames", "2"]);
    assert!(!run.status.success(), "a broken scene was accepted");
    assert!(run.stderr.contains("syntax.json:1:") && run.stderr.contains("expected"), "{}", run.stderr);
    let range = write(
        dir.path(),
        "nu.json",
        &BLOCK_SCENE.replace("\"time\"", "\"material\": { \"poisson_ratio\": 0.7 }, \"time\""),
    );
    let run = x.powder(&[range.to_str().expect("utf-8"), "--frames", "2"]);
    assert!(!run.status.success(), "an out-of-range scene was accepted");
    assert!(run.stderr.contains("material.poisson_ratio") && run.stderr.contains("[0, 0.5)"), "{}", run.stderr);
    let missing = x.powder(&["/no/such/scene.json", "--frames", "2"]);
    assert!(!missing.status.success() && missing.stderr.contains("/no/such/scene.json"), "{}", missing.stderr);
    for run in [&run, &missing] {
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

#[test]
fn refused_requests_inside_the_app_leave_the_running_simulation_alone() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    // A small emitter in a 0.5 m box, so that a very fine grid is refused for its buffer size (the
    // emitter's particle count at that resolution stays within the scene limit).
    let small = BLOCK_SCENE
        .replace("[0.15, 0.15, 0.2], \"max\": [0.35, 0.35, 0.35]", "[0.2, 0.2, 0.2], \"max\": [0.3, 0.3, 0.25]");
    let scene = write(dir.path(), "small.json", &small);
    let broken = write(dir.path(), "broken.json", "{ \"version\": 1, ");
    let json = dir.path().join("report.json");
    // 1024 cells, the scene format's limit: 1029³ nodes of 32 bytes = 34.9 GB, more than any GPU
    // binds as one storage buffer, so the grid would be sparse; its block bins, 16 bytes for each
    // of 258³ = 17,173,512 blocks of the domain (275 MB), are still past lavapipe's 128 MiB
    // binding. Then a scene file that does not parse, then a grid change that fits.
    let script = format!("0.2:grid=1024; 0.5:load={}; 0.8:grid=20", broken.display());
    let args = [scene.to_str().expect("utf-8"), "--frames", "6", "--size", "480x360", "--script", &script];
    let run = x.powder(&[&args[..], &["--report", json.to_str().expect("utf-8")]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    let errors: Vec<&str> = r["errors"].as_array().expect("errors").iter().filter_map(|e| e.as_str()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("grid resolution 1024 refused") && errors[0].contains("at most"), "{}", errors[0]);
    assert!(errors[0].contains("the 16-cell grid keeps running"), "{}", errors[0]);
    assert!(errors[1].contains("broken.json") && errors[1].contains("keeps running"), "{}", errors[1]);
    assert_eq!(r["scene"].as_str(), scene.to_str(), "the old scene must still run");
    assert_eq!(r["grid_resolution"], 20, "{r}");
    assert!(number(&r, "particle_count") > 100.0 && number(&r, "simulated_time") > 0.0, "{r}");
}

#[test]
fn losing_the_gpu_device_ends_the_app_with_a_message_instead_of_a_hang() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(dir.path(), "block.json", BLOCK_SCENE);
    // The script destroys the device half a second in, as a driver reset would lose it.
    let run = x.powder(&[
        scene.to_str().expect("utf-8"),
        "--frames",
        "1000",
        "--size",
        "320x240",
        "--script",
        "0.5:lose-device",
    ]);
    assert!(!run.status.success(), "the app carried on without a device");
    assert!(run.stderr.contains("error: the GPU device was lost"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    // A hang instead of an exit fails through the harness's RUN_TIMEOUT, and running on to the
    // 1000th frame fails the exit-status check above. The error names the frame of the loss.
    let frame: Option<u32> = run.stderr.split(", frame ").nth(1).and_then(|rest| rest.split(')').next()?.parse().ok());
    assert!(frame.is_some(), "no frame number in: {}", run.stderr);
}

/// The app's memory stays flat while it draws. Mesa 22.3's lavapipe kept about 0.44 MB of driver
/// memory per frame, never freed, while the particle shading pass read the view-projection matrix
/// at constant offsets (docs/app.md, "Memory"). Between the 100th and 400th frame of a paused block
/// that was 130 MB; the bound of 24 MB (80 kB a frame) leaves room for the allocator's and the
/// driver's caches settling, and is a fifth of the leak.
#[test]
fn memory_stays_flat_over_hundreds_of_drawn_frames() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write(dir.path(), "block.json", BLOCK_SCENE);
    let json = dir.path().join("report.json");
    let run = x.powder(&[
        scene.to_str().expect("utf-8"),
        "--frames",
        "400",
        "--size",
        "320x240",
        "--script",
        "0.1:pause",
        "--report",
        json.to_str().expect("utf-8"),
    ]);
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    let samples: Vec<(u64, u64)> = r["resident_bytes"]
        .as_array()
        .expect("resident_bytes is a list")
        .iter()
        .map(|s| (s[0].as_u64().expect("frame"), s[1].as_u64().expect("bytes")))
        .collect();
    let at = |frame: u64| samples.iter().find(|s| s.0 == frame).map(|s| s.1).expect("a sample at that frame");
    let (warm, end) = (at(100), at(400));
    let growth = end.saturating_sub(warm) as f64 / 1e6;
    assert!(growth < 24.0, "resident memory grew {growth:.1} MB from frame 100 to 400: {samples:?}");
}
