//! The desktop app with colliders, end to end: the real `powder` binary on a private Xvfb server
//! (as in `tests/app_window.rs`), on the shipped collider scenes, bare glTF models, broken files,
//! files rewritten while the app runs, and the animation controls driven by the test script.
//!
//! These tests need Xvfb: `scripts/setup.sh` installs it. Without it they fail (not skip).

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::xvfb::{RUN_TIMEOUT, Xvfb, finish, number, read_png, report};

/// The repository (the binary's scenes and assets).
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn errors(r: &serde_json::Value) -> Vec<String> {
    r["errors"].as_array().expect("errors").iter().filter_map(|e| e.as_str().map(str::to_string)).collect()
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A collider's grey-blue (shaders/render/mesh.wgsl): blue at least 46 levels above red. Measured
/// on ramp_wall's screenshots: lit and shaded mesh faces 48–72 levels, the sky and the ground at
/// most 36, snow near 0, and next to nothing between 40 and 47 (edge pixels).
fn is_mesh(p: &[u8]) -> bool {
    p[2] as i32 - p[0] as i32 >= 46 && p[..3].iter().all(|&c| c < 210)
}

/// A small scene file of the app tests' size: a block of snow dropped in a 0.5 m box at
/// resolution 16, with `colliders` (a JSON array) added.
fn block_scene(colliders: &str) -> String {
    format!(
        r#"{{ "version": 2, "name": "small block drop", "domain": {{ "size": [0.5, 0.5, 0.5] }},
  "grid": {{ "resolution": 16 }}, "time": {{ "fps": 30 }},
  "emitters": [ {{ "shape": "box", "min": [0.15, 0.15, 0.2], "max": [0.35, 0.35, 0.35] }} ],
  "colliders": {colliders} }}"#
    )
}

#[test]
fn ramp_wall_snow_slides_down_the_drawn_ramp() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let (shot, json) = (dir.path().join("ramp.png"), dir.path().join("ramp.json"));
    let args = ["scenes/ramp_wall.json", "--frames", "10", "--size", "480x360", "--hide-ui"];
    let run = x.powder(&[&args[..], &["--screenshot", path_str(&shot), "--report", path_str(&json)]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    assert_eq!((r["collider_count"].as_u64(), r["colliders_in_solver"].as_u64()), (Some(2), Some(2)), "{r}");
    // assets/README.md: the ramp is 8 triangles, the wall 12.
    assert_eq!(r["collider_triangles"], 20, "{r}");
    // The snow starts as the box x 0.05 … 0.55, z 1.2 … 1.45 (mean x 0.30, mean z 1.325) above
    // the ramp, whose slope falls at 30° toward +x: z = (2/√3)(1 − x/2). Measured after 10 frames
    // (1/3 s): mean x 0.445, mean z 1.055. Falling straight, the snow would keep x = 0.30 and
    // pass through the slope (free fall reaches z ≈ 0.78 where the slope is at 0.98).
    let (mean_x, mean_z) = (number(&r, "mean_x"), number(&r, "mean_z"));
    eprintln!("ramp_wall after 10 frames: mean x {mean_x:.3} m, mean z {mean_z:.3} m");
    assert!((number(&r, "simulated_time") - 10.0 / 30.0).abs() < 1e-9, "{r}");
    assert!(mean_x > 0.38, "the snow did not slide down the ramp (+x): mean x {mean_x}");
    assert!(mean_z < 1.2, "the snow did not come down: mean z {mean_z}");
    let slope_z = 2.0 / 3f64.sqrt() * (1.0 - mean_x / 2.0);
    assert!(mean_z > slope_z, "the snow is below the ramp's surface ({slope_z:.3} m at x = {mean_x:.3})");
    // The screenshot: the ramp's projected box is largely mesh-coloured (56% measured; the snow
    // and the sky and ground beside the wedge make the rest), and no pixel outside the colliders'
    // boxes is (0 measured).
    let rects: Vec<[f64; 4]> = r["collider_rects_px"]
        .as_array()
        .expect("collider rects")
        .iter()
        .map(|v| {
            let c: Vec<f64> = v.as_array().expect("on screen").iter().filter_map(|n| n.as_f64()).collect();
            [c[0], c[1], c[2], c[3]]
        })
        .collect();
    let (pixels, w, h) = read_png(&shot);
    let inside = |rect: &[f64; 4], x: u32, y: u32| {
        (rect[0]..rect[2]).contains(&(x as f64 + 0.5)) && (rect[1]..rect[3]).contains(&(y as f64 + 0.5))
    };
    let (mut ramp, mut ramp_n, mut elsewhere, mut elsewhere_n) = (0u64, 0u64, 0u64, 0u64);
    for y in 0..h {
        for x in 0..w {
            let i = 4 * (y * w + x) as usize;
            let mesh = is_mesh(&pixels[i..i + 4]) as u64;
            if inside(&rects[0], x, y) {
                (ramp, ramp_n) = (ramp + mesh, ramp_n + 1);
            } else if !rects.iter().any(|r| inside(r, x, y)) {
                (elsewhere, elsewhere_n) = (elsewhere + mesh, elsewhere_n + 1);
            }
        }
    }
    let (f_ramp, f_else) = (ramp as f64 / ramp_n.max(1) as f64, elsewhere as f64 / elsewhere_n.max(1) as f64);
    eprintln!("mesh-coloured: {:.1}% of the ramp's box, {:.2}% outside the colliders", 100.0 * f_ramp, 100.0 * f_else);
    assert!(ramp_n > 2000 && f_ramp > 0.3, "the ramp does not show: {ramp} of {ramp_n} pixels, {rects:?}");
    assert!(f_else < 0.002, "{:.2}% of the pixels outside the colliders look like one", 100.0 * f_else);
}

#[test]
fn broken_collider_files_are_refused_with_the_file_and_field() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = r#"[ { "shape": { "type": "gltf", "path": "no_such_model.glb" } } ]"#;
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, block_scene(missing)).expect("write");
    // On the command line: no window, exit status 1, the file, the field and the model named.
    let run = x.powder(&[path_str(&broken), "--frames", "2"]);
    assert!(!run.status.success(), "a scene with a missing model was accepted");
    for needle in ["broken.json", "colliders[0].shape.path", "no_such_model.glb"] {
        assert!(run.stderr.contains(needle), "{needle} is not named: {}", run.stderr);
    }
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    // Inside the app: that scene, then a model file that is not glTF, opened while a good scene
    // runs; both refused, the good scene keeps running.
    let good = dir.path().join("good.json");
    std::fs::write(&good, block_scene("[]")).expect("write");
    let garbage = dir.path().join("garbage.glb");
    std::fs::write(&garbage, "not a model").expect("write");
    let json = dir.path().join("report.json");
    let script = format!("0.2:load={}; 0.4:drop={}", broken.display(), garbage.display());
    let args = [path_str(&good), "--frames", "6", "--size", "320x240", "--script", &script];
    let run = x.powder(&[&args[..], &["--report", path_str(&json)]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    let errors = errors(&r);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("broken.json") && errors[0].contains("colliders[0].shape.path"), "{}", errors[0]);
    assert!(errors[0].contains("no_such_model.glb") && errors[0].contains("keeps running"), "{}", errors[0]);
    assert!(errors[1].contains("garbage.glb") && errors[1].contains("keeps running"), "{}", errors[1]);
    assert_eq!(r["scene"].as_str(), Some(path_str(&good)), "the old scene must still run");
    assert!(number(&r, "particle_count") > 1000.0 && number(&r, "simulated_time") > 0.0, "{r}");
}

#[test]
fn a_bare_gltf_model_opens_in_a_default_scene_with_snow_above_it() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let (good, json) = (dir.path().join("good.json"), dir.path().join("report.json"));
    std::fs::write(&good, block_scene("[]")).expect("write");
    // Dropped on the window (the script sends what a drop sends) while another scene runs.
    let args = [path_str(&good), "--frames", "8", "--size", "320x240", "--script", "0.2:drop=assets/ramp.glb"];
    let run = x.powder(&[&args[..], &["--report", path_str(&json)]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    assert!(errors(&r).is_empty(), "{r}");
    assert_eq!(r["scene"].as_str(), Some("assets/ramp.glb"), "{r}");
    assert_eq!((r["collider_count"].as_u64(), r["collider_triangles"].as_u64()), (Some(1), Some(8)), "{r}");
    // src/scene/model.rs: snow from 0.1 L to 0.25 L above the ramp's top (L = 2 m, top
    // 2/√3 m), centred on it: x 0.6 … 1.4 at resolution 48; the ramp rests on the floor, z = 0.
    let bounds = &r["collider_bounds"][0];
    assert!(bounds[0][2].as_f64().is_some_and(|z| z.abs() < 1e-6), "{bounds}");
    assert!(number(&r, "particle_count") > 1000.0, "{r}");
    assert!((number(&r, "mean_x") - 1.0).abs() < 0.1, "{r}");
    let top = 2.0 / 3f64.sqrt();
    assert!(number(&r, "max_z") <= top + 0.5 + 0.05 && number(&r, "mean_z") > top - 0.1, "{r}");
}

#[test]
fn held_and_scrubbed_animation_keeps_its_pose_while_the_snow_simulates() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("report.json");
    // The blade's clip `plow` moves it along +x at 0.5 m/s (assets/README.md). After the first
    // frame: a new grid and a reset (both drop the solver's colliders, which must come back),
    // then the animation held and scrubbed to 0.7 s: the blade stands at x = 0.35 m however long
    // the snow runs.
    let args = ["scenes/blade_plow.json", "--set", "grid.resolution=24", "--frames", "5", "--size", "320x240"];
    let actions = "0:grid=20; 0:reset; 0:anim-hold; 0:anim-time=0.7";
    let script = ["--script", actions, "--report", path_str(&json)];
    let run = x.powder(&[&args[..], &script].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    assert!(errors(&r).is_empty(), "{r}");
    assert_eq!((r["animation_playing"].as_bool(), r["animation_time"].as_f64()), (Some(false), Some(0.7)), "{r}");
    // The script's actions come at the second drawn frame: the first scene frame had finished by
    // then (4 ran after the reset) or was still running and was dropped (5 ran after it, all
    // counted); either way whole scene frames of 1/30 s.
    let after_reset = number(&r, "simulated_time") * 30.0;
    assert!((after_reset - after_reset.round()).abs() < 1e-6, "{r}");
    assert!((4.0..=5.0).contains(&after_reset.round()), "{r}");
    assert_eq!((r["grid_resolution"].as_u64(), r["colliders_in_solver"].as_u64()), (Some(20), Some(1)), "{r}");
    let b = &r["collider_bounds"][0];
    let centre_x = 0.5 * (b[0][0].as_f64().unwrap_or(f64::NAN) + b[1][0].as_f64().unwrap_or(f64::NAN));
    // The blade is 0.05 m thick and tilted by at most 10° at its 0.4 m height: its box's centre is
    // within 0.04 m of the clip's translation.
    assert!((centre_x - 0.35).abs() < 0.04, "the blade is at x = {centre_x}, not 0.35: {b}");
}

#[test]
fn rewriting_the_scene_or_its_model_reloads_it_and_a_broken_rewrite_keeps_it() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let (scene, model) = (dir.path().join("scene.json"), dir.path().join("model.glb"));
    std::fs::copy(repo("assets/box.glb"), &model).expect("copy the box");
    let collider = r#"[ { "shape": { "type": "gltf", "path": "model.glb" },
        "transform": { "translation": [0.42, 0.42, 0.05], "scale": [0.1, 0.1, 0.1] } } ]"#;
    std::fs::write(&scene, block_scene(collider)).expect("write");
    // Written whole and renamed over the old one, as editors save, so the app never reads half a file.
    let replace = |path: &Path, bytes: &[u8]| {
        let tmp = dir.path().join("incoming.tmp");
        std::fs::write(&tmp, bytes).expect("write");
        std::fs::rename(&tmp, path).expect("rename");
    };
    let (marks, json, log) = (dir.path().join("mark"), dir.path().join("report.json"), dir.path().join("stderr"));
    let mark = |n: u32| marks.with_extension(format!("{n}.png"));
    // Screenshots mark the script's clock: the test changes a file after each, and the app has
    // 3.5 s (seven polls) to see it before the next; the run ends at 11 s.
    let script = format!(
        "0:screenshot={}; 3.5:screenshot={}; 7:screenshot={}; 11:pause",
        mark(1).display(),
        mark(2).display(),
        mark(3).display()
    );
    let args = [path_str(&scene), "--frames", "3", "--size", "320x240", "--stepping", "real-time", "--script", &script];
    let child = x.spawn(&[&args[..], &["--report", path_str(&json)]].concat(), &log);
    let wait_for = |path: &Path| {
        let start = Instant::now();
        while !path.exists() {
            assert!(
                start.elapsed() < RUN_TIMEOUT,
                "no {} (stderr: {})",
                path.display(),
                std::fs::read_to_string(&log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // 1: a taller block of snow (more particles); 2: the box model replaced by the sphere
    // (12 → 1280 triangles); 3: a scene that does not parse.
    wait_for(&mark(1));
    let taller = block_scene(collider).replace("[0.35, 0.35, 0.35]", "[0.35, 0.35, 0.45]");
    replace(&scene, taller.as_bytes());
    wait_for(&mark(2));
    replace(&model, &std::fs::read(repo("assets/sphere.glb")).expect("the sphere"));
    wait_for(&mark(3));
    replace(&scene, b"{ \"version\": 2, ");
    let run = finish(child, &log, &args);
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    assert_eq!(r["scene_reloads"], 2, "{r}");
    // The block 0.2 × 0.2 × 0.15 m made 1,690 particles at this spacing; 0.25 m tall makes more.
    assert!(number(&r, "particle_count") > 2500.0, "{r}");
    assert_eq!(r["collider_triangles"], 1280, "the sphere model is drawn: {r}");
    let errors = errors(&r);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("scene.json") && errors[0].contains("keeps running"), "{}", errors[0]);
    assert!(number(&r, "simulated_time") > 0.0, "{r}");
}

#[test]
fn a_dropped_ball_of_honey_joins_the_running_scene() {
    // The drop tool as the script sends it: a ball of the honey preset of the tool's radius,
    // 0.1 m, dropped onto a block of snow 0.15 m high from straight above its centre. It joins as emitter 1
    // with the honey material: about 4/3 π (0.1 m)³ / s³ particles at the block scene's spacing
    // s = 1/64 m (1072 for the exact volume; the lattice's count is within 3 % of it).
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("block.json");
    let low_block = block_scene("[]").replace("0.2], \"max\": [0.35, 0.35, 0.35]", "0.0], \"max\": [0.35, 0.35, 0.15]");
    assert!(low_block.contains("0.15] }"), "{low_block}");
    std::fs::write(&scene, low_block).expect("scene");
    let json = dir.path().join("report.json");
    let args = [path_str(&scene), "--frames", "4", "--size", "320x240", "--script", "0:ball=honey@0.25,0.25"];
    let run = x.powder(&[&args[..], &["--report", path_str(&json)]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    let r = report(&json);
    assert!(errors(&r).is_empty(), "{r}");
    let counts: Vec<u64> = r["material_counts"].as_array().expect("counts").iter().filter_map(|c| c.as_u64()).collect();
    let block = 13 * 13 * 10; // 0.2 × 0.2 × 0.15 m at 64 per metre
    let ball = 4.0 / 3.0 * std::f64::consts::PI * 0.1f64.powi(3) * 64f64.powi(3);
    assert_eq!(counts.len(), 2, "{r}");
    assert_eq!(counts[0], block, "{r}");
    assert!((counts[1] as f64 / ball - 1.0).abs() < 0.03, "{} particles in the ball, {ball:.0} by volume", counts[1]);
    // It came down onto the block (0.15 m high; the ball's top starts at 0.35 m and honey slumps,
    // measured 0.299 m after four frames): dropped onto the snow, not into it or onto the floor.
    assert!(number(&r, "max_z") > 0.25, "{r}");
}
