//! The material presets' label in the Material panel, and the scenes compiled into the binary.
//! The presets themselves are the library's ([`powder::sim::presets`]), which scene files name too.

use powder::scene::{BUILTIN_DEFAULT_JSON, Scene, SceneError};
use powder::sim::material::{MaterialKind, SnowMaterial};
pub use powder::sim::presets::material_presets;

/// What the preset box shows for the material `current`: the preset it equals; else the preset
/// last `chosen` (or, with none chosen, the preset the scene's material `loaded` equals), marked
/// "(edited)"; else the scene's own material, "(edited)" once it differs from it.
pub fn preset_label(current: &SnowMaterial, chosen: Option<&str>, loaded: SnowMaterial) -> String {
    if let Some(preset) = material_presets().into_iter().find(|p| p.material == *current) {
        return preset.name.to_string();
    }
    // Without a preset chosen, the scene's material stands in, named as the preset it equals.
    let loaded_preset = material_presets().into_iter().find(|p| p.material == loaded).map(|p| p.name);
    match chosen.or(loaded_preset) {
        Some(name) => format!("{name} (edited)"),
        None if *current == loaded => "the scene's own".to_string(),
        None => "the scene's own (edited)".to_string(),
    }
}

/// What a material is called: the name of the preset it equals, else its kind's, "(custom)".
pub fn material_name(m: &SnowMaterial) -> String {
    if let Some(preset) = material_presets().into_iter().find(|p| p.material == *m) {
        return preset.name.to_string();
    }
    let kind = match m.kind {
        MaterialKind::Snow => "snow",
        MaterialKind::Sand => "sand",
        MaterialKind::Liquid => "liquid",
        MaterialKind::ViscoPlastic => "visco-plastic",
    };
    format!("{kind} (custom)")
}

/// The name of each emitter's material ([`material_name`]; the scene's for an emitter without its
/// own), one per material id: the emitters from the material table's last entry on share it.
pub fn material_names(scene: &Scene) -> Vec<String> {
    let ids = scene.emitters.len().min(powder::sim::params::MAX_MATERIALS);
    scene.emitters[..ids].iter().map(|e| material_name(e.material().unwrap_or(&scene.material))).collect()
}

/// Scenes compiled into the binary: (name, JSON text). The first is the default.
pub const BUILTIN_SCENES: [(&str, &str); 3] = [
    ("snowball hits a wall", BUILTIN_DEFAULT_JSON),
    ("block drop", include_str!("../../../scenes/block_drop.json")),
    ("snowball collision", include_str!("../../../scenes/snowball_collision.json")),
];

/// The built-in scene called `name`.
pub fn builtin_scene(name: &str) -> Result<Scene, SceneError> {
    let text = BUILTIN_SCENES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).unwrap_or(BUILTIN_DEFAULT_JSON);
    Scene::from_json(text, &format!("<built-in scene '{name}'>"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_emitter_is_named_by_its_material() {
        // The built-in scene's snowball takes the scene's material (the reference snow); a second
        // emitter of its own honey, and a third of honey edited, which no preset equals.
        let mut scene = builtin_scene("snowball hits a wall").expect("scene");
        let honey = powder::sim::presets::preset_by_id("honey").expect("honey");
        let mut ball = scene.emitters[0].clone();
        ball.set_material(Some(honey.material));
        scene.emitters.push(ball.clone());
        ball.set_material(Some(SnowMaterial { viscosity: 3.0, ..honey.material }));
        scene.emitters.push(ball);
        let names = material_names(&scene);
        assert_eq!(
            names,
            [material_name(&scene.material), honey.name.to_string(), "visco-plastic (custom)".to_string()]
        );
        assert_eq!(names[0], "Reference snow (paper)");
    }

    #[test]
    fn the_preset_box_names_the_preset_and_marks_edits() {
        let presets = material_presets();
        let soft = presets[2].material;
        assert_eq!(preset_label(&soft, None, SnowMaterial::default()), presets[2].name);
        let edited = SnowMaterial { hardening: soft.hardening + 0.5, ..soft };
        assert_eq!(preset_label(&edited, Some(presets[2].name), soft), format!("{} (edited)", presets[2].name));
        let own = SnowMaterial { youngs_modulus: 9.9e4, ..SnowMaterial::default() };
        assert_eq!(preset_label(&own, None, own), "the scene's own");
        let own_edited = SnowMaterial { poisson_ratio: 0.3, ..own };
        assert_eq!(preset_label(&own_edited, None, own), "the scene's own (edited)");
        // A scene whose material is a preset, edited without choosing one: that preset, edited.
        let reference = SnowMaterial { hardening: 8.0, ..presets[0].material };
        assert_eq!(preset_label(&reference, None, presets[0].material), format!("{} (edited)", presets[0].name));
    }

    #[test]
    fn presets_are_valid_and_builtin_scenes_parse() {
        for preset in material_presets() {
            let mut scene = Scene::builtin_default();
            scene.material = preset.material;
            scene.validate(preset.name).expect("preset in range");
        }
        for (name, _) in BUILTIN_SCENES {
            builtin_scene(name).expect("built-in scene parses");
        }
    }
}
