//! The default view (the snow's surface) shows all the snow the particle view shows: every
//! shipped scene, opened by the real binary under Xvfb at grid 32 and 64, drawn once with
//! `"mode": "surface"` and once with `"mode": "particles"` from the same camera; the surface
//! covers at least 90 % of the pixels the particles cover.

mod common;

use std::path::Path;

use common::xvfb::{Xvfb, read_png};
use powder::render::Camera;

/// Small and short: 24 runs on 2 cores in CI.
const SIZE: &str = "200x150";

/// Whether a pixel reads as snow: bright and nearly grey (as `tests/bake_images.rs`).
fn is_snow(p: &[u8]) -> bool {
    let c = [p[0], p[1], p[2]].map(|v| v as f32 / 255.0);
    let (lo, hi) = (c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]));
    lo > 0.6 && (hi - lo) / hi < 0.08
}

/// `scene` with grid `resolution` and a complete view section: the camera framing its domain as
/// the app frames a scene without one, and the render `mode`.
fn with_view(scene: &serde_json::Value, resolution: u32, mode: &str) -> serde_json::Value {
    let mut scene = scene.clone();
    scene["grid"]["resolution"] = resolution.into();
    // Two frames of 1/600 s: the view is what is compared, not the motion, and the scenes full of
    // water would otherwise step a second of lavapipe time per frame at grid 64.
    scene["time"]["fps"] = 600.into();
    let triple = |v: &serde_json::Value, fallback: f32| {
        let at = |k: usize| v.get(k).and_then(|x| x.as_f64()).map_or(fallback, |x| x as f32);
        glam::Vec3::new(at(0), at(1), at(2))
    };
    let lo = triple(&scene["domain"]["min"], 0.0);
    let size = triple(&scene["domain"]["size"], 1.0);
    let mut camera = Camera::default();
    camera.frame(lo, lo + size);
    scene["view"] = serde_json::json!({
        "camera": { "target": camera.target.to_array(), "distance": camera.distance, "yaw": camera.yaw,
                    "pitch": camera.pitch, "fov_y": camera.fov_y },
        "render": { "mode": mode, "color": "snow", "particle_scale": 1.0, "exposure": 1.0,
                    "density_scale": 1.0, "speed_scale": 10.0, "resolution_scale": 1.0 }
    });
    scene
}

fn screenshot(x: &Xvfb, scene: &Path, png: &Path) -> (Vec<u8>, u32, u32) {
    let args = [scene.to_str().expect("utf-8"), "--frames", "2", "--size", SIZE, "--hide-ui", "--screenshot"];
    let run = x.powder(&[&args[..], &[png.to_str().expect("utf-8")]].concat());
    assert!(run.status.success(), "powder {} failed: {}", scene.display(), run.stderr);
    read_png(png)
}

#[test]
fn the_default_view_covers_the_snow_the_particles_cover_in_every_scene() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    // The scenes name their glTF files as ../assets/…: the copies sit in scenes/ beside it.
    std::os::unix::fs::symlink(repo.join("assets"), dir.path().join("assets")).expect("assets link");
    std::fs::create_dir(dir.path().join("scenes")).expect("scenes dir");
    let mut files: Vec<_> = std::fs::read_dir(repo.join("scenes"))
        .expect("scenes")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    let x = Xvfb::start();
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("scene reads");
        let scene: serde_json::Value = serde_json::from_str(&text).expect("scene is JSON");
        let stem = file.file_stem().expect("stem").to_string_lossy().into_owned();
        for resolution in [32, 64] {
            let mut shots = Vec::new();
            for mode in ["surface", "particles"] {
                let copy = dir.path().join("scenes").join(format!("{stem}_{resolution}_{mode}.json"));
                let json = serde_json::to_string(&with_view(&scene, resolution, mode)).expect("json");
                std::fs::write(&copy, json).expect("copy written");
                shots.push(screenshot(&x, &copy, &copy.with_extension("png")));
            }
            let ((surface, w, h), particles) = (&shots[0], &shots[1].0);
            let (w, h) = (*w as i64, *h as i64);
            // A particle pixel counts as covered when the surface shows snow there or a pixel
            // away: the surface of packed snow lies within about half a particle spacing (the
            // impostors' radius) of their silhouette, and at this size the snow's outline is a
            // large share of its few hundred pixels (ramp_wall's block: 148, 131 of them
            // surface snow exactly, 88 %).
            let surface_snow = |x: i64, y: i64| {
                (x >= 0 && y >= 0 && x < w && y < h) && is_snow(&surface[(4 * (y * w + x)) as usize..])
            };
            let (mut covered, mut shown) = (0usize, 0usize);
            for (i, p) in particles.chunks_exact(4).enumerate() {
                if is_snow(p) {
                    shown += 1;
                    let (x, y) = (i as i64 % w, i as i64 / w);
                    let near = (-1..=1).any(|dy| (-1..=1).any(|dx| surface_snow(x + dx, y + dy)));
                    covered += usize::from(near);
                }
            }
            eprintln!("{stem} at {resolution}: the surface covers {covered} of {shown} particle pixels");
            if shown == 0 || covered * 10 < shown * 9 {
                failures.push(format!("{stem} at grid {resolution}: {covered} of {shown}"));
            }
        }
    }
    assert!(failures.is_empty(), "the surface misses snow the particles show: {failures:?}");
}
