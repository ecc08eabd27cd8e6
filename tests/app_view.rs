//! A scene file's `view` section (what the app's Save writes) sets the app's camera: the real
//! binary under Xvfb draws the snow exactly where that camera projects it.

mod common;

use common::xvfb::{Xvfb, report};
use glam::{Vec2, Vec3};
use powder::render::Camera;

/// The block of `tests/app_window.rs` seen from a camera nothing else uses: from behind and
/// above (yaw 2 rad, pitch 0.8 rad), close (1.2 m), narrow (0.6 rad field of view).
const SCENE: &str = r#"{
  "version": 2,
  "domain": { "size": [0.5, 0.5, 0.5] },
  "grid": { "resolution": 16 },
  "emitters": [ { "shape": "box", "min": [0.15, 0.15, 0.2], "max": [0.35, 0.35, 0.35], "velocity": [0, 0, -1] } ],
  "view": {
    "camera": { "target": [0.2, 0.3, 0.15], "distance": 1.2, "yaw": 2.0, "pitch": 0.8, "fov_y": 0.6 },
    "render": { "mode": "particles", "color": "speed", "particle_scale": 1.0, "exposure": 1.0,
                "density_scale": 1.0, "speed_scale": 5.0, "resolution_scale": 1.0 }
  }
}"#;

/// The rectangle `lo`–`hi` covers on a `w`×`h` view through `camera`, as the report measures it:
/// the corners through the camera's own world-to-pixel projection, clamped to the view.
fn projected(camera: &Camera, lo: Vec3, hi: Vec3, (w, h): (f32, f32)) -> [f32; 4] {
    let mut rect = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
    for corner in 0..8u32 {
        let pick = |bit: u32, a: f32, b: f32| if corner & bit == 0 { a } else { b };
        let point = Vec3::new(pick(1, lo.x, hi.x), pick(2, lo.y, hi.y), pick(4, lo.z, hi.z));
        let Vec2 { x, y } = camera.project_to_pixels(point, Vec2::new(w, h)).expect("the box is in front of the eye");
        rect = [rect[0].min(x), rect[1].min(y), rect[2].max(x), rect[3].max(y)];
    }
    [rect[0].clamp(0.0, w), rect[1].clamp(0.0, h), rect[2].clamp(0.0, w), rect[3].clamp(0.0, h)]
}

#[test]
fn the_view_section_places_the_camera() {
    let x = Xvfb::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("saved.json");
    std::fs::write(&scene, SCENE).expect("written");
    let json = dir.path().join("report.json");
    let args = [scene.to_str().expect("utf-8"), "--frames", "1", "--size", "320x240", "--hide-ui", "--report"];
    let run = x.powder(&[&args[..], &[json.to_str().expect("utf-8")]].concat());
    assert!(run.status.success(), "powder failed ({:?}): {}", run.status, run.stderr);
    eprintln!("{:.1} s", run.seconds);
    let r = report(&json);
    let triple = |key: &str| {
        let v: Vec<f32> = r[key].as_array().expect(key).iter().map(|x| x.as_f64().expect("number") as f32).collect();
        Vec3::new(v[0], v[1], v[2])
    };
    let size = r["view_size"].as_array().expect("view_size");
    let (w, h) = (size[0].as_f64().expect("w") as f32, size[1].as_f64().expect("h") as f32);
    let shown: Vec<f32> =
        r["snow_rect_px"].as_array().expect("snow on screen").iter().map(|v| v.as_f64().expect("px") as f32).collect();
    let camera = Camera { target: Vec3::new(0.2, 0.3, 0.15), distance: 1.2, yaw: 2.0, pitch: 0.8, fov_y: 0.6 };
    let expected = projected(&camera, triple("bbox_min"), triple("bbox_max"), (w, h));
    // The report projects the same box through the same camera function (the same f32 operations):
    // a thousandth of a pixel covers the rounding of its JSON; any other camera (the domain
    // framing every scene without a view opens with) is tens of pixels off.
    for (s, e) in shown.iter().zip(expected) {
        assert!((s - e).abs() < 1e-3, "snow drawn at {shown:?}, the saved camera puts it at {expected:?}");
    }
}
