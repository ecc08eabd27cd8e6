//! Scene files that do not load: the error for each kind of bad input, naming the field, the
//! value and what is allowed.

use powder::scene::{Scene, SceneError};
use serde_json::{Value, json};

mod scene_support;
use scene_support::*;

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
    doc = base().to_string().replacen("\"emitters\"", "\"material\":{\"preset\":\"custard\"},\"emitters\"", 1);
    assert_parse(&doc, &["material.preset", "\"custard\"", "jelly", "reference_snow"]);
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

#[test]
fn out_of_range_values_name_field_value_and_range() {
    let err = with("/version", json!(5)).unwrap_err().to_string();
    assert_eq!(err, "x.json: version = 5 is out of range: allowed [1, 4]");
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

#[test]
fn emitter_materials_need_version_3_and_their_fields_in_range() {
    // Version 3 reads an emitter's own material, a preset with fields over it, as the scene's.
    let scene = modified(|d| {
        d["version"] = json!(3);
        d["emitters"][0]["material"] = json!({ "preset": "water", "bulk_modulus": 2e5 });
    })
    .unwrap();
    let own = scene.emitters[0].material().copied().expect("the emitter's own material");
    assert_eq!((own.kind, own.bulk_modulus, own.density), (powder::sim::material::MaterialKind::Liquid, 2e5, 1000.0));
    assert_eq!(scene.solver_params().material_of(0), &own);
    // Older files cannot name one: the message says which version can.
    let old = modified(|d| d["emitters"][0]["material"] = json!({ "preset": "water" }));
    assert_invalid(old, "version", "3 for a scene with emitter materials");
    // Its fields are checked against the same ranges as the scene's, named by emitter.
    let soft = modified(|d| {
        d["version"] = json!(3);
        d["emitters"][0]["material"] = json!({ "kind": "liquid", "bulk_modulus": 1.0 });
    });
    assert_invalid(soft, "emitters[0].material.bulk_modulus", "[100, 2.2e9]");
    let unknown = modified(|d| {
        d["version"] = json!(3);
        d["emitters"][0]["material"] = json!({ "preset": "lava" });
    });
    assert!(unknown.unwrap_err().to_string().contains("unknown preset \"lava\""));
}

#[test]
fn emitters_past_the_material_tables_end_must_share_its_last_entry() {
    // The GPU's table holds 16 materials, one per emitter: emitters 15, 16, … share entry 15, so a
    // scene whose 17th emitter names another material than the 16th's is refused, naming it.
    let scene = |last: Value| {
        modified(|d| {
            d["version"] = json!(3);
            let ball =
                |i: usize| json!({ "shape": "sphere", "center": [0.1 + 0.1 * i as f64, 0.5, 0.5], "radius": 0.04 });
            let mut emitters: Vec<Value> = (0..17).map(ball).collect();
            emitters[15]["material"] = json!({ "preset": "jelly" });
            emitters[16]["material"] = last;
            d["emitters"] = json!(emitters);
        })
    };
    assert!(scene(json!({ "preset": "jelly" })).is_ok(), "the same material is accepted");
    let err = scene(json!({ "preset": "honey" })).expect_err("a 17th material");
    match &err {
        SceneError::Invalid { field, allowed, .. } => {
            assert_eq!(field, "emitters[16].material");
            assert!(allowed.contains("emitters[15]") && allowed.contains("share one material"), "{allowed}");
        }
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn water_scenes_hold_liquid_and_their_settings_are_checked() {
    let water = |d: &mut Value| {
        d["material"] = json!({ "preset": "water" });
        d["integrator"] = json!({ "kind": "flip" });
    };
    modified(water).expect("a liquid scene under flip loads");
    // The base scene's snow under the water step, with no liquid.
    assert_invalid(
        modified(|d| d["integrator"] = json!({ "kind": "flip" })),
        "material.kind",
        "liquid, for one emitter at least that fills at time 0: integrator.kind \"flip\" steps the liquid as \
         water (other materials step by MPM beside it)",
    );
    // Under flip, the base scene's emitter and a copy of it taking the water preset, changed by
    // `change`.
    let beside_snow = |version: u32, change: fn(&mut Value)| {
        modified(move |d| {
            d["version"] = json!(version);
            d["integrator"] = json!({ "kind": "flip" });
            let mut emitters = d["emitters"].as_array().expect("emitters").clone();
            let mut liquid = emitters[0].clone();
            liquid["material"] = json!({ "preset": "water" });
            change(&mut liquid);
            emitters.push(liquid);
            d["emitters"] = json!(emitters);
        })
    };
    // Snow beside a pond.
    beside_snow(3, |_| {}).expect("snow beside water under flip loads");
    // Liquid only from a pour that starts later: the first particles would all be snow.
    assert_invalid(
        beside_snow(4, |spout| {
            spout["velocity"] = json!([0.0, 0.0, -1.0]);
            spout["pour"] = json!({ "start": 0.5, "end": 1.0 });
        }),
        "material.kind",
        "liquid, for one emitter at least that fills at time 0: integrator.kind \"flip\" steps the liquid as \
         water (other materials step by MPM beside it)",
    );
    let settings = |key: &str, value: Value| {
        modified(move |d| {
            water(d);
            d["integrator"][key] = value.clone();
        })
    };
    assert_invalid(
        settings("transfer", json!({ "kind": "pic_flip", "ratio": 1.2 })),
        "integrator.transfer.ratio",
        "[0, 1]",
    );
    assert_invalid(settings("pressure", json!({ "tolerance": 2.0 })), "integrator.pressure.tolerance", "[1e-12, 1]");
    assert_invalid(settings("cfl", json!(9.0)), "integrator.cfl", "[0.05, 5]");
    let message = settings("pressure", json!({ "preconditioner": "ilu" })).unwrap_err().to_string();
    assert!(message.contains("unknown variant `ilu`"), "{message}");
}
