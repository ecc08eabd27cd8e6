//! `--set KEY=VALUE` overrides ([`Scene::set_value`]): every field of the scene file reachable,
//! values parsed as in a file, and a refused override leaving the scene as it was.

use powder::scene::{Emitter, Scene, SceneError};

mod scene_support;
use scene_support::*;

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

/// `--set material.preset=ID` takes the whole preset (the scene's JSON form spells out every
/// material field, which would otherwise keep the old material), and fields set after it change it.
#[test]
fn a_preset_set_from_the_command_line_replaces_the_material() {
    let mut scene = load(&base()).unwrap();
    scene.set_value("material.youngs_modulus", "5e4", "cli").unwrap();
    scene.set_value("material.preset", "jelly", "cli").unwrap();
    assert_eq!(scene.material, powder::sim::presets::preset_by_id("jelly").unwrap().material);
    scene.set_value("material.density", "900", "cli").unwrap();
    assert_eq!((scene.material.density, scene.material.youngs_modulus), (900.0, 1e4));
    let err = scene.set_value("material.preset", "custard", "cli").unwrap_err().to_string();
    assert!(err.contains("custard") && err.contains("dry_sand"), "{err}");
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

/// `view` is optional and absent from the built-in scene; `--set view.render.mode=particles` used
/// to fail with "view is not a field of the scene". Every field of the file, `view.*` included, is
/// reachable, and the parts of the section the override does not name take their defaults.
#[test]
fn set_value_reaches_the_optional_view_section() {
    let mut scene = load(&base()).unwrap();
    assert_eq!(scene.view, None);
    scene.set_value("view.render.mode", "particles", "cli").expect("view.render.mode is a field");
    let render = scene.view.and_then(|v| v.render).expect("a render section").settings();
    let defaults = powder::render::RenderSettings::default();
    assert_eq!(render, powder::render::RenderSettings { mode: powder::render::RenderMode::Particles, ..defaults });
    scene.set_value("view.camera.yaw", "1.25", "cli").expect("view.camera.yaw is a field");
    let camera = scene.view.and_then(|v| v.camera).expect("a camera").camera();
    assert_eq!(camera, powder::render::Camera { yaw: 1.25, ..powder::render::Camera::default() });
    // A name that is no field is still refused, the scene unchanged.
    let before = scene.clone();
    for key in ["view.render.nope", "viewport.render.mode", "view.nope.mode"] {
        let err = scene.set_value(key, "1", "cli").unwrap_err();
        assert!(matches!(err, SceneError::Override { .. }), "{key}: {err:?}");
    }
    assert_eq!(scene, before);
}
