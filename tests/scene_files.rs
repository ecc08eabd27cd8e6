//! Scene files: the shipped scenes, particle spawning (counts, mass, determinism) and the error
//! for each kind of bad input.

use std::path::{Path, PathBuf};

use glam::DVec3;
use powder::scene::{Emitter, Scene, SceneError};
use serde_json::{Value, json};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

/// A valid scene document to break in one place per test.
fn base() -> Value {
    json!({
        "version": 1,
        "domain": { "size": [2.0, 1.0, 1.0] },
        "grid": { "resolution": 20 },
        "emitters": [
            { "shape": "sphere", "center": [0.5, 0.5, 0.5], "radius": 0.2, "velocity": [3, 0, 0] },
            { "shape": "box", "min": [1.2, 0.2, 0.0], "max": [1.8, 0.8, 0.4] }
        ]
    })
}

fn load(doc: &Value) -> Result<Scene, SceneError> {
    Scene::from_json(&doc.to_string(), "x.json")
}

fn modified(edit: impl FnOnce(&mut Value)) -> Result<Scene, SceneError> {
    let mut doc = base();
    edit(&mut doc);
    load(&doc)
}

/// Asserts an `Invalid` error on `field` whose message states `allowed`.
fn assert_invalid(result: Result<Scene, SceneError>, field: &str, allowed: &str) {
    let err = result.expect_err("scene should be rejected");
    let message = err.to_string();
    match &err {
        SceneError::Invalid { field: f, allowed: a, source_name, .. } => {
            assert_eq!((f.as_str(), a.as_str(), source_name.as_str()), (field, allowed, "x.json"));
        }
        other => panic!("expected Invalid for {field}, got {other:?}"),
    }
    assert!(message.starts_with("x.json: ") && message.contains(field) && message.contains(allowed));
}

fn assert_parse(text: &str, needles: &[&str]) -> (usize, usize) {
    let err = Scene::from_json(text, "x.json").expect_err("should not parse");
    let message = err.to_string();
    let SceneError::Parse { line, column, .. } = err else { panic!("expected Parse, got {err:?}") };
    assert!(message.starts_with(&format!("x.json:{line}:{column}: ")), "{message}");
    for n in needles {
        assert!(message.contains(n), "{message:?} lacks {n:?}");
    }
    (line, column)
}

#[test]
fn every_shipped_scene_loads_with_a_sane_particle_count() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(scenes_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let n = scene.spawn_particles().expect("particles").len();
            // The smallest shipped scene, ramp_wall, spawns 6,006; the largest, figure_walk, 28,800.
            assert!((5_000..100_000).contains(&n), "{}: {n} particles", path.display());
            // Serialising and parsing back (paths relative to the scenes folder) gives the same scene.
            assert_eq!(Scene::from_json_at(&scene.to_json(), "round trip", &scenes_dir()).unwrap(), scene);
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    names.sort();
    let expected = [
        "blade_plow.json",
        "block_drop.json",
        "figure_walk.json",
        "ramp_wall.json",
        "snowball_collision.json",
        "snowball_wall.json",
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
    assert!(matches!(scene.emitters[1], Emitter::Box { velocity, .. } if velocity == DVec3::ZERO));
}

#[test]
fn syntax_errors_and_unknown_fields_give_line_and_column() {
    let (line, column) = assert_parse("{\n  \"version\": 1,\n  \"domain\": {,}\n}", &[]);
    assert_eq!((line, column), (3, 14));
    let mut doc = base().to_string().replacen("\"grid\"", "\"grids\"", 1);
    assert_parse(&doc, &["unknown field `grids`"]);
    doc = serde_json::to_string_pretty(&base()).unwrap().replacen("\"radius\"", "\"radiu\"", 1);
    assert_parse(&doc, &["unknown field `radiu`"]);
    doc = base().to_string().replacen("\"resolution\":20", "\"resolution\":\"high\"", 1);
    assert_parse(&doc, &["invalid type"]);
    doc = base().to_string().replacen("\"shape\":\"sphere\"", "\"shape\":\"cone\"", 1);
    assert_parse(&doc, &["unknown variant `cone`"]);
    // JSON has no NaN, and serde_json refuses numbers that overflow f64 instead of making them ∞.
    doc = base().to_string().replacen("\"radius\":0.2", "\"radius\":1e999", 1);
    assert_parse(&doc, &["number out of range"]);
    doc = base().to_string().replacen("\"radius\":0.2", "\"radius\":NaN", 1);
    assert_parse(&doc, &[]);
    let mut no_grid = base();
    no_grid.as_object_mut().unwrap().remove("grid");
    assert_parse(&no_grid.to_string(), &["missing field `grid`"]);
}

#[test]
fn time_dt_must_be_auto_or_seconds() {
    let mut doc = base();
    doc["time"] = json!({ "dt": "fast" });
    assert_parse(&doc.to_string(), &["time.dt", "\"auto\"", "(0, 0.1]", "fast"]);
    let fixed = modified(|d| d["time"] = json!({ "dt": 0.0002 })).unwrap();
    assert_eq!(fixed.solver_params().dt, 0.0002);
    assert_invalid(modified(|d| d["time"] = json!({ "dt": 0.5 })), "time.dt", "\"auto\" or (0, 0.1]");
}

/// `base()` with the value at JSON pointer `pointer` set (object keys are added if missing).
fn with(pointer: &str, value: Value) -> Result<Scene, SceneError> {
    let (parent, key) = pointer.rsplit_once('/').expect("a JSON pointer");
    modified(|d| match d.pointer_mut(parent).expect("pointer into base()") {
        Value::Array(items) => items[key.parse::<usize>().expect("an index")] = value,
        object => object[key] = value,
    })
}

#[test]
fn out_of_range_values_name_field_value_and_range() {
    let err = with("/version", json!(3)).unwrap_err().to_string();
    assert_eq!(err, "x.json: version = 3 is out of range: allowed [1, 2]");
    let err = modified(|d| d["material"] = json!({ "poisson_ratio": 0.5 })).unwrap_err();
    let expected = "x.json: material.poisson_ratio = 0.5 is out of range: allowed [0, 0.5)";
    assert_eq!(err.to_string(), expected);
    let negative_e = modified(|d| d["material"] = json!({ "youngs_modulus": -1.4e5 }));
    let message = negative_e.as_ref().unwrap_err().to_string();
    assert!(message.contains("material.youngs_modulus = -1.4e5 "), "{message}");
    assert_invalid(negative_e, "material.youngs_modulus", "[1, 1e9]");
    let cases = [
        ("/emitters", json!([]), "emitters", "a list of at least one emitter"),
        ("/grid/resolution", json!(2048), "grid.resolution", "[4, 1024]"),
        ("/domain/size/2", json!(0), "domain.size.z", "[0.001, 10000]"),
        ("/gravity", json!([0, 0, -2000]), "|gravity|", "[0, 1000]"),
        ("/boundary", json!({ "friction": -0.1 }), "boundary.friction", "[0, 10]"),
        ("/particles_per_cell", json!(0), "particles_per_cell", "[1, 64]"),
        ("/emitters/0/radius", json!(-0.2), "emitters[0].radius", "> 0"),
        ("/max_speed", json!(2.0), "|emitters[0].velocity|", "[0, 2]"),
        ("/time", json!({ "cfl": 1.5 }), "time.cfl", "[0.01, 1]"),
        ("/time", json!({ "fps": 0 }), "time.fps", "[0.01, 1000]"),
    ];
    for (pointer, value, field, allowed) in cases {
        assert_invalid(with(pointer, value), field, allowed);
    }
}

#[test]
fn emitters_must_lie_inside_the_domain_and_make_particles() {
    let outside = with("/emitters/1/max/0", json!(2.5));
    assert_invalid(outside, "emitters[1].max.x", "[0, 2], inside the domain along x");
    let low = with("/emitters/0/center/2", json!(0.1));
    assert_invalid(low, "emitters[0].center.z - radius", "[0, 1], inside the domain along z");
    let inverted = with("/emitters/1/max/1", json!(0.1));
    assert_invalid(inverted, "emitters[1].max.y", "> emitters[1].min.y = 0.2");
    // h = 0.1, s = 0.05: a box 1 cm thick has no lattice layer.
    let thin = with("/emitters/1/max/2", json!(0.01)).unwrap_err();
    assert!(matches!(thin, SceneError::NoParticles { emitter: 1, .. }), "{thin:?}");
    assert!(thin.to_string().contains("emitters[1] makes no particles"), "{thin}");
    let too_many = modified(|d| {
        d["grid"]["resolution"] = json!(1024);
        d["particles_per_cell"] = json!(64);
    });
    assert!(matches!(too_many, Err(SceneError::TooManyParticles { .. })));
}

#[test]
fn set_value_overrides_and_rejects_non_finite_values() {
    let mut scene = load(&base()).unwrap();
    let mut set = |key: &str, value: &str| scene.set_value(key, value, "cli").map(|()| scene.clone());
    assert_eq!(set("material.youngs_modulus", "5e4").unwrap().material.youngs_modulus, 5e4);
    let changed = set("emitters.0.radius", "0.25").unwrap();
    assert!(matches!(changed.emitters[0], Emitter::Sphere { radius: 0.25, .. }));
    let message = |r: Result<Scene, SceneError>| r.unwrap_err().to_string();
    let err = set("material.youngs_modulus", "NaN").unwrap_err();
    assert!(matches!(err, SceneError::Invalid { .. }), "{err:?}");
    let expected = "cli: material.youngs_modulus = NaN is out of range: allowed [1, 1e9]";
    assert_eq!(err.to_string(), expected);
    let err = message(set("material.poisson_ratio", "0.5"));
    assert!(err.contains("material.poisson_ratio = 0.5") && err.contains("[0, 0.5)"), "{err}");
    let err = message(set("grid.resolution", "1e999"));
    assert!(err.contains("grid.resolution = 1e999") && err.contains("[4, 1024]"), "{err}");
    let err = set("material.youngs_modulus", "soft").unwrap_err();
    assert!(matches!(err, SceneError::Override { .. }), "{err:?}");
    let err = set("material.stiffness", "1").unwrap_err();
    assert!(matches!(err, SceneError::Override { .. }), "{err:?}");
    // Failed overrides left the scene as it was after the last good one.
    assert_eq!(scene, changed);
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

/// Values in range as f64 that the GPU's f32 would turn into nonsense (zero mass, zero stiffness,
/// a domain collapsed onto a line, an infinite collider) are refused with the range that survives.
#[test]
fn values_that_do_not_survive_f32_are_refused_with_the_range_that_does() {
    // h = 0.1 m: the domain may reach 65536 cells, 6553.6 m, from the origin; f32 positions at 1e9 m
    // are 64 m apart, so the 2 m domain would be one point along x.
    let reach = "within 65536 cells of 0.1 m of the origin, where f32 positions still resolve 1/128 of a cell";
    let far = with("/domain/min", json!([1e9, 1e9, 0]));
    assert_invalid(far, "domain.min.x", &format!("[-6553.6, 6551.6] ({reach})"));
    assert_invalid(
        with("/domain/min", json!([0, -6553.7, 0])),
        "domain.min.y",
        &format!("[-6553.6, 6552.6] ({reach})"),
    );
    let material = |field: &str, value: f64| modified(|d| d["material"] = json!({ field: value }));
    assert_invalid(material("density", 1e-308), "material.density", "[1, 1e5]");
    assert_invalid(material("youngs_modulus", 5e-324), "material.youngs_modulus", "[1, 1e9]");
    assert_invalid(material("critical_compression", 1e-30), "material.critical_compression", "[1e-5, 0.99999]");
    assert_invalid(material("critical_compression", 0.9999999), "material.critical_compression", "[1e-5, 0.99999]");
    assert_invalid(material("critical_stretch", 1e-30), "material.critical_stretch", "[1e-5, 1e6]");
    let cases = [
        ("/max_speed", json!(1e-300), "max_speed", "[0.001, 1e5]"),
        ("/domain/size", json!([2, 1, 1e-30]), "domain.size.z", "[0.001, 10000]"),
        ("/domain/size", json!([2e30, 1, 1]), "domain.size.x", "[0.001, 10000]"),
        ("/time", json!({ "cfl": 1e-300 }), "time.cfl", "[0.01, 1]"),
        ("/time", json!({ "fps": 1e-9, "dt": 0.1 }), "time.fps", "[0.01, 1000]"),
    ];
    for (pointer, value, field, allowed) in cases {
        assert_invalid(with(pointer, value), field, allowed);
    }
    // Colliders are placed in f32 too.
    let collider = |c: Value| {
        modified(|d| {
            d["version"] = json!(2);
            d["colliders"] = json!([c]);
        })
    };
    let ball =
        |transform: Value| collider(json!({ "shape": { "type": "sphere", "radius": 0.1 }, "transform": transform }));
    assert_invalid(ball(json!({ "scale": [1e-300, 1e-300, 1e-300] })), "colliders[0].transform.scale.x", "[1e-6, 1e6]");
    let far = ball(json!({ "translation": [0, 0, 1e39] }));
    assert_invalid(far, "colliders[0].transform.translation.z", &format!("[-6553.6, 6553.6] ({reach})"));
    let huge = collider(json!({ "shape": { "type": "box", "size": [1, 1e300, 1] } }));
    assert_invalid(huge, "colliders[0].shape.size.y", &format!("(0, 13107.2] ({reach})"));
    let keys = json!({ "keys": [{ "time": 0, "translation": [-1e39, 0, 0] }] });
    let moved = collider(json!({ "shape": { "type": "plane" }, "keyframes": keys }));
    assert_invalid(moved, "colliders[0].keyframes.keys[0].translation.x", &format!("[-6553.6, 6553.6] ({reach})"));
}

/// The ends of the ranges are accepted, and there what the GPU gets stays a normal f32: particle
/// volume and mass and the fixed-point scales (the smallest cells with the lightest snow and the
/// lowest speed limit, and the largest cells with the heaviest and the highest).
#[test]
fn range_ends_load_and_give_normal_f32_masses_and_scales() {
    let normal = |x: f64| (x as f32).is_normal();
    for (size, resolution, per_cell, density, max_speed) in
        [(1e-3, 1024, 64, 1.0, 1e-3), (1e-3, 1024, 64, 1.0, 1e5), (1e4, 4, 1, 1e5, 1e-3), (1e4, 4, 1, 1e5, 1e5)]
    {
        let corner = 4.0 * size / resolution as f64;
        let scene = modified(|d| {
            d["domain"] = json!({ "size": [size, size, size] });
            d["grid"]["resolution"] = json!(resolution);
            d["particles_per_cell"] = json!(per_cell);
            d["material"] = json!({ "density": density, "youngs_modulus": 1.0 });
            d["max_speed"] = json!(max_speed);
            // Micrometre cells of the softest snow take 0.37 µs steps: at 30 fps a frame would
            // need 90 000 of them.
            d["time"] = json!({ "fps": 1000 });
            d["emitters"] = json!([{ "shape": "box", "min": [0, 0, 0], "max": [corner, corner, corner] }]);
        })
        .unwrap_or_else(|e| panic!("size {size}: {e}"));
        let p = scene.solver_params();
        let particles = scene.spawn_particles().expect("particles");
        assert!(!particles.is_empty());
        let scales = [p.fixed_point.mass_scale, p.fixed_point.momentum_scale, p.material.mu0(), p.dt];
        assert!(scales.iter().all(|&v| normal(v)), "size {size}, max_speed {max_speed}: {scales:?}");
        for q in &particles {
            assert!(q.mass.is_normal() && q.volume.is_normal(), "size {size}: {} kg, {} m³", q.mass, q.volume);
        }
    }
}

/// A fixed dt is never lengthened to fit a frame: a dt/fps pair that needs more substeps per frame
/// than the cap is refused at load, naming both and the bound; so is an fps the adaptive step
/// cannot fill.
#[test]
fn a_frame_must_fit_the_substep_cap() {
    let time = |t: Value| with("/time", t);
    let allowed = "\"auto\" or [1.666666667e-6, 0.1] at time.fps = 30: a frame may take at most 20000 substeps";
    assert_invalid(time(json!({ "dt": 1e-9 })), "time.dt", allowed);
    // 100 s frames of 1e-4 s: a million substeps.
    let allowed = "\"auto\" or [0.005, 0.1] at time.fps = 0.01: a frame may take at most 20000 substeps";
    assert_invalid(time(json!({ "fps": 0.01, "dt": 1e-4 })), "time.dt", allowed);
    assert_eq!(time(json!({ "dt": 2e-6 })).unwrap().solver_params().dt, 2e-6);
    // Auto: h = 0.1 m, c + 3 m/s ≈ 22.7 m/s, cfl 0.4: a step of 1.76 ms; 100 s frames need 56 700.
    let err = time(json!({ "fps": 0.01 })).unwrap_err();
    let SceneError::Invalid { field, allowed, .. } = &err else { panic!("{err:?}") };
    assert_eq!(field, "time.fps");
    assert!(allowed.starts_with("[0.028") && allowed.contains("stable step of 0.00176"), "{err}");
    assert!(time(json!({ "fps": 0.03 })).is_ok());
}

/// Every section is an object with named fields: serde's derive would take a list of the values in
/// field order, so a bare list of the 14 values passed for a scene.
#[test]
fn sections_written_as_lists_are_refused() {
    let emitter = json!({ "shape": "box", "min": [0.2, 0.2, 0.2], "max": [0.8, 0.8, 0.8] });
    let bare = json!([
        1,
        "",
        [[0, 0, 0], [2, 1, 1]],
        [20],
        [30, "auto", 0.4],
        [0, 0, -9.81],
        ["separate", 0.3],
        [1.4e5, 0.2, 10, 0.025, 0.0075, 400, 3000],
        8,
        [0, 0.1, 0, 0],
        1,
        50,
        [emitter],
        []
    ]);
    let shape_error = |r: Result<Scene, SceneError>| match r {
        Err(SceneError::Shape { field, message, .. }) => (field, message),
        other => panic!("expected a Shape error, got {other:?}"),
    };
    let (field, message) = shape_error(load(&bare));
    assert_eq!(
        (field.as_str(), message.as_str()),
        ("the scene", "expected an object with named fields ({\"name\": value, ...}), found a list")
    );
    assert_eq!(shape_error(with("/domain", json!([[0, 0, 0], [2, 1, 1]]))).0, "domain");
    assert_eq!(shape_error(with("/grid", json!([20]))).0, "grid");
    assert_eq!(
        shape_error(with("/emitters/1", json!(["box", [1.2, 0.2, 0], [1.8, 0.8, 0.4], [0, 0, 0]]))).0,
        "emitters[1]"
    );
    let err = with("/material", json!([1.4e5, 0.2, 10, 0.025, 0.0075, 400])).unwrap_err().to_string();
    assert_eq!(err, "x.json: material: expected an object with named fields ({\"name\": value, ...}), found a list");
}

/// `null` is no value in the format: `max_speed: null` used to mean "the default" silently.
#[test]
fn null_fields_are_refused() {
    let err = with("/max_speed", Value::Null).unwrap_err().to_string();
    assert_eq!(
        err,
        "x.json: max_speed: null is not a value of the scene format; leave the field out to get its default"
    );
    let collider = json!({ "shape": { "type": "plane" }, "animation": null, "keyframes": null });
    let err = modified(|d| {
        d["version"] = json!(2);
        d["colliders"] = json!([collider]);
    })
    .unwrap_err();
    assert!(matches!(&err, SceneError::Shape { field, .. } if field == "colliders[0].animation"), "{err:?}");
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

/// `--set` values are JSON: `.5`, `+5` and `5.` are not numbers there; keys have no empty segments.
#[test]
fn set_value_takes_only_json_numbers_and_whole_keys() {
    let mut scene = load(&base()).unwrap();
    let before = scene.clone();
    for value in [".5", "+5", "5.", "-.5", "05"] {
        let err = scene.set_value("material.density", value, "cli").unwrap_err();
        let SceneError::Override { message, .. } = &err else { panic!("{value}: {err:?}") };
        assert!(message.starts_with(&format!("{value} is not a number as JSON writes it")), "{err}");
    }
    let err = scene.set_value("time.dt", ".001", "cli").unwrap_err().to_string();
    assert!(err.contains("not a number as JSON writes it"), "{err}");
    for key in ["material..density", ".material.density", "material.density.", "emitters..0.radius"] {
        let err = scene.set_value(key, "500", "cli").unwrap_err().to_string();
        assert!(err.starts_with(&format!("cli: cannot set {key} = 500: the key has an empty segment")), "{err}");
    }
    let err = scene.set_value("max_speed", "null", "cli").unwrap_err();
    assert!(matches!(&err, SceneError::Shape { field, .. } if field == "max_speed"), "{err:?}");
    let err = scene.set_value("grid", "[32]", "cli").unwrap_err();
    assert!(matches!(&err, SceneError::Shape { field, .. } if field == "grid"), "{err:?}");
    assert_eq!(scene, before);
    scene.set_value("material.density", "500", "cli").unwrap();
    scene.set_value("emitters[0].radius", "0.25", "cli").unwrap();
    assert_eq!(scene.material.density, 500.0);
}

#[test]
fn the_integrator_section_chooses_and_checks_pbmpm() {
    use powder::sim::integrator::Integrator;
    use powder::sim::pbmpm::PbmpmSettings;
    // Left out: explicit. Given with a subset of the PB-MPM settings: the rest default.
    assert_eq!(load(&base()).expect("scene").integrator, Integrator::Explicit);
    let scene = modified(|d| d["integrator"] = serde_json::json!({"kind": "pbmpm", "iterations": 12})).expect("scene");
    assert_eq!(scene.integrator, Integrator::Pbmpm(PbmpmSettings { iterations: 12, ..PbmpmSettings::default() }));
    // Out of range: one message naming the field and its range.
    let bad = modified(|d| d["integrator"] = serde_json::json!({"kind": "pbmpm", "relaxation": 2.5}));
    assert_invalid(bad, "integrator.relaxation", "(0, 2)");
    let bad = modified(|d| d["integrator"] = serde_json::json!({"kind": "pbmpm", "iterations": 0}));
    assert_invalid(bad, "integrator.iterations", "an integer in [1, 64]");
    // An unknown kind or setting is refused by the parser.
    assert!(modified(|d| d["integrator"] = serde_json::json!({"kind": "implicit"})).is_err());
    assert!(modified(|d| d["integrator"] = serde_json::json!({"kind": "pbmpm", "iteration": 3})).is_err());
}

/// The app's `view` section: a camera and render settings that load back exactly, and values
/// outside the panel's ranges refused with the field named.
#[test]
fn the_view_section_loads_and_bad_values_name_their_field() {
    let render = json!({ "mode": "both", "color": "plastic_jacobian", "particle_scale": 1.5, "exposure": 2.0,
        "density_scale": 3.0, "speed_scale": 10.0, "resolution_scale": 0.5 });
    let camera = json!({ "target": [1.0, 0.5, 0.25], "distance": 2.5, "yaw": -0.6, "pitch": 0.35, "fov_y": 0.8 });
    let scene = with("/view", json!({ "camera": camera, "render": render })).expect("loads");
    let view = scene.view.expect("view");
    let c = view.camera.expect("camera").camera();
    assert_eq!((c.target.to_array(), c.distance, c.yaw, c.pitch, c.fov_y), ([1.0, 0.5, 0.25], 2.5, -0.6, 0.35, 0.8));
    let r = view.render.expect("render").settings();
    assert_eq!(
        (r.mode, r.color_field),
        (powder::render::RenderMode::Both, powder::render::ColorField::PlasticJacobian)
    );
    assert_eq!(with("/view", json!({})).expect("an empty view loads").view, Some(Default::default()));
    let mut bad = render.clone();
    bad["exposure"] = json!(9.0);
    assert_invalid(with("/view", json!({ "render": bad })), "view.render.exposure", "[0.1, 8]");
    let mut bad = camera.clone();
    bad["pitch"] = json!(1.6);
    assert_invalid(with("/view", json!({ "camera": bad })), "view.camera.pitch", "(-1.5707964, 1.5707964)");
    let mut bad = render;
    bad["mode"] = json!("wireframe");
    let err = with("/view", json!({ "render": bad })).unwrap_err().to_string();
    assert!(err.contains("wireframe") && err.contains("particles"), "{err}");
}
