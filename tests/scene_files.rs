//! Scene files that load: the shipped scenes, particle spawning (counts, mass, determinism), the
//! defaults of what a file leaves out, and the files a scene refers to.

use std::path::Path;

use glam::DVec3;
use powder::scene::{Emitter, Scene, SceneError};
use serde_json::json;

mod scene_support;
use scene_support::*;

#[test]
fn every_shipped_scene_loads_with_a_sane_particle_count() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(scenes_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
            // Every particle the scene makes, the pouring emitters' batches counted. The smallest
            // shipped scene, ramp_wall, makes 6,006; the largest, figure_walk, 28,800.
            let n = scene.sample_emitters("scene", &mut |_| {}).expect("samples").count();
            assert!((5_000..100_000).contains(&n), "{}: {n} particles", path.display());
            let at_zero = scene.spawn_particles().expect("particles").len() as u64;
            let poured = scene.pour_schedule("scene").expect("pour");
            assert_eq!(at_zero + poured.total() - poured.made_by(0.0), n, "{}", path.display());
            // Serialising and parsing back (paths relative to the scenes folder) gives the same scene.
            assert_eq!(Scene::from_json_at(&scene.to_json(), "round trip", &scenes_dir()).unwrap(), scene);
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    names.sort();
    let expected = [
        "blade_plow.json",
        "block_drop.json",
        "dam_break.json",
        "figure_walk.json",
        "figure_wet_sand.json",
        "honey_on_snow.json",
        "jelly_drop.json",
        "ramp_wall.json",
        "sand_column.json",
        "sand_pile.json",
        "snow_on_jelly.json",
        "snowball_collision.json",
        "snowball_pond.json",
        "snowball_wall.json",
        "water_bowl.json",
        "water_dam_break.json",
        "water_pond.json",
        "water_ramp.json",
        "water_snow_bank.json",
    ];
    assert_eq!(names, expected);
    // The block is lattice aligned (0.375 × 0.375 × 0.25 m at s = 1/96 m): exactly 36·36·24.
    let block = Scene::load(&scenes_dir().join("block_drop.json")).unwrap();
    assert_eq!(block.spawn_particles().expect("particles").len(), 36 * 36 * 24);
}

#[test]
fn builtin_default_is_snowball_wall() {
    let file = Scene::load(&scenes_dir().join("snowball_wall.json")).unwrap();
    assert_eq!(Scene::builtin_default(), file);
    assert_eq!(file.grid_spec().cells.to_array(), [64, 32, 32]);
}

/// A 1 m³ box at h = 0.1 m and 8 particles per cell: spacing s = 0.05 m, a 20³ lattice whose points
/// sit s/2 inside the faces; jitter moves them at most s/4, so every point is kept: exactly 8000,
/// and the mass is exactly density × volume.
#[test]
fn aligned_box_makes_8000_particles_of_exact_mass() {
    let scene = modified(|d| {
        d["domain"]["size"] = json!([2.0, 2.0, 2.0]);
        d["emitters"] = json!([{ "shape": "box", "min": [0.5, 0.5, 0.5], "max": [1.5, 1.5, 1.5] }]);
    })
    .unwrap();
    assert_eq!(scene.cell_size(), 0.1);
    assert_eq!(scene.particle_spacing(), 0.05);
    let particles = scene.spawn_particles().expect("particles");
    assert_eq!(particles.len(), 8000);
    let mass: f64 = particles.iter().map(|p| p.mass as f64).sum();
    assert!((mass - 400.0).abs() < 1e-6 * 400.0, "mass {mass}");
    for p in &particles {
        assert_eq!(p.volume, 0.05f32.powi(3));
        assert_eq!((p.material, p.plastic_jacobian, p.velocity), (0, 1.0, [0.0; 3]));
        assert!(p.position.iter().all(|&x| (0.5..=1.5).contains(&x)), "{:?}", p.position);
    }
}

/// Sphere mass. Each lattice point stands for its cell of side s; cells wholly inside the sphere
/// are always kept and cells wholly outside never, so the error comes from the ~4πr²·√3·s/s³ cells
/// cut by the surface. There the jitter is symmetric, so on a flat surface the expected kept volume
/// is exact; what remains is curvature (O((s/r)²) ≈ 0.5 % at r/s = 15) and per-cell noise that
/// averages out (a few hundred boundary cells → ~0.3 %). 2 % is a generous bound.
#[test]
fn sphere_mass_matches_density_times_volume() {
    for (radius, seed) in [(0.2f64, 1), (0.23, 2), (0.31, 3)] {
        let scene = modified(|d| {
            d["seed"] = json!(seed);
            d["emitters"] = json!([{ "shape": "sphere", "center": [1.0, 0.5, 0.5], "radius": radius }]);
            d["grid"]["resolution"] = json!(64);
        })
        .unwrap();
        let mass: f64 = scene.spawn_particles().expect("particles").iter().map(|p| p.mass as f64).sum();
        let exact = 400.0 * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
        let error = (mass - exact).abs() / exact;
        assert!(error < 0.02, "r = {radius}: mass {mass} vs {exact} ({:.2} %)", 100.0 * error);
    }
}

#[test]
fn spawning_is_deterministic_and_seeded() {
    let scene = load(&base()).unwrap();
    let a = scene.spawn_particles().expect("particles");
    assert_eq!(a, scene.spawn_particles().expect("particles"));
    assert!(a.iter().any(|p| p.material == 1) && a.iter().any(|p| p.material == 0));
    let mut other = scene.clone();
    other.seed = 2;
    assert_ne!(a, other.spawn_particles().expect("particles"));
    // The jitter is visible: positions are not all on the lattice.
    assert!(a.windows(2).any(|w| w[0].position[1] != w[1].position[1]));
}

#[test]
fn defaults_fill_optional_fields() {
    let scene = load(&base()).unwrap();
    assert_eq!(scene.gravity, DVec3::new(0.0, 0.0, -9.81));
    assert_eq!((scene.particles_per_cell, scene.seed, scene.max_speed), (8, 1, None));
    assert_eq!(scene.effective_max_speed(), 50.0);
    assert_eq!(scene.frame_duration(), 1.0 / 30.0);
    let partial = modified(|d| d["material"] = json!({ "hardening": 5 })).unwrap();
    assert_eq!(partial.material.hardening, 5.0);
    assert_eq!(partial.material.density, 400.0);
    // A preset, with a field given over it: the rest from the preset, not the reference snow.
    let jelly = modified(|d| d["material"] = json!({ "preset": "jelly", "youngs_modulus": 2e4 })).unwrap();
    assert_eq!(jelly.material, powder::sim::presets::elastic(2e4, 0.45, 1000.0));
    let rubber = modified(|d| d["material"] = json!({ "preset": "rubber" })).unwrap();
    assert_eq!(rubber.material, powder::sim::presets::preset_by_id("rubber").unwrap().material);
    assert!(matches!(scene.emitters[1], Emitter::Box { velocity, .. } if velocity == DVec3::ZERO));
}

#[test]
fn missing_file_is_an_io_error_naming_it() {
    let err = Scene::load(Path::new("/nonexistent/dir/scene.json")).unwrap_err();
    assert!(matches!(err, SceneError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/dir/scene.json"));
}

#[test]
fn a_mesh_emitter_fills_the_shipped_glb_sphere_by_volume() {
    // sphere.glb: r = 0.25 m, placed at the centre of a 1 m box at resolution 32 with 8 particles
    // per cell: spacing s = 1/64 m, so the ball holds (4/3)π r³ / s³ = 17,157 lattice cells. The
    // inscribed icosphere is 0.3 % smaller; lattice and jitter at the surface add ~1 %: 2 %.
    let text = r#"{"version": 2, "domain": {"size": [1, 1, 1]}, "grid": {"resolution": 32},
        "emitters": [{"shape": "mesh", "path": "../assets/sphere.glb",
                      "transform": {"translation": [0.5, 0.5, 0.5]}}]}"#;
    let scene = Scene::from_json_at(text, "mesh emitter", &scenes_dir()).expect("valid");
    let particles = scene.spawn_particles().expect("particles");
    let s = scene.particle_spacing();
    let expected = 4.0 / 3.0 * std::f64::consts::PI * 0.25f64.powi(3) / s.powi(3);
    let n = particles.len() as f64;
    eprintln!("mesh emitter: {n} particles, expected {expected:.0}");
    assert!((n - expected).abs() <= 0.02 * expected, "{n} particles, expected {expected:.0}");
    // Every particle lies in the ball (up to the jitter, which moves points only within the mesh).
    let centre = glam::Vec3::splat(0.5);
    let farthest = particles.iter().map(|p| (glam::Vec3::from(p.position) - centre).length()).fold(0.0, f32::max);
    assert!(farthest <= 0.25, "a particle at {farthest} m from the centre");
    // A mesh emitter that sticks out of the domain is refused with the emitter named.
    let outside = text.replace("[0.5, 0.5, 0.5]", "[0.9, 0.5, 0.5]");
    let err = Scene::from_json_at(&outside, "mesh emitter", &scenes_dir()).unwrap_err().to_string();
    assert!(err.contains("emitters[0]") && err.contains("inside the domain along x"), "{err}");
}

/// A UTF-8 byte order mark (what Windows editors write) is not part of the JSON, from a file or
/// from text.
#[test]
fn a_byte_order_mark_is_ignored() {
    let text = base().to_string();
    let plain = Scene::from_json(&text, "x.json").unwrap();
    assert_eq!(Scene::from_json(&format!("\u{feff}{text}"), "x.json").unwrap(), plain);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bom.json");
    std::fs::write(&path, [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat()).unwrap();
    assert_eq!(Scene::load(&path).unwrap(), plain);
}

/// A section given in part takes the defaults for what it leaves out: a `view.render` with only a
/// mode used to fail on the first field it left out ("missing field `color`").
#[test]
fn a_partial_view_section_takes_defaults_for_the_rest() {
    use powder::render::{Camera, RenderMode, RenderSettings};
    let mut doc = base();
    doc["view"] = json!({ "render": { "mode": "volume" }, "camera": { "distance": 4.0 } });
    let view = load(&doc).expect("a partial view loads").view.expect("a view section");
    let render = view.render.expect("render").settings();
    assert_eq!(render, RenderSettings { mode: RenderMode::Volume, ..RenderSettings::default() });
    let camera = view.camera.expect("camera").camera();
    assert_eq!(camera, Camera { distance: 4.0, ..Camera::default() });
}
