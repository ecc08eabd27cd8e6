//! Named snow materials and the scenes compiled into the binary.
//!
//! The material presets are the reference snow of Stomakhin et al. 2013 ("A material point method
//! for snow simulation", Table 2) and the variations of it the paper compares in its snowball
//! smash figure, each changing one or two parameters. Two more are powder's own, and say so.

use powder::scene::{BUILTIN_DEFAULT_JSON, Scene, SceneError};
use powder::sim::material::SnowMaterial;

/// A named material.
pub struct MaterialPreset {
    /// Name shown in the UI.
    pub name: &'static str,
    /// Where the numbers come from and what they change.
    pub note: &'static str,
    /// The parameters.
    pub material: SnowMaterial,
}

/// The reference snow: E = 1.4e5 Pa, ν = 0.2, ξ = 10, θc = 2.5e-2, θs = 7.5e-3, ρ = 400 kg/m³.
fn reference() -> SnowMaterial {
    SnowMaterial::default()
}

/// Every material preset, the reference first.
pub fn material_presets() -> Vec<MaterialPreset> {
    let r = reference();
    vec![
        MaterialPreset {
            name: "Reference snow (paper)",
            note: "Stomakhin et al. 2013, Table 2: E 1.4e5 Pa, ν 0.2, ξ 10, θc 2.5e-2, θs 7.5e-3, ρ 400 kg/m³",
            material: r,
        },
        MaterialPreset {
            name: "Lower hardening (paper)",
            note: "Stomakhin et al. 2013: ξ = 5 instead of 10; compacted snow stiffens less",
            material: SnowMaterial { hardening: 5.0, ..r },
        },
        MaterialPreset {
            name: "Lower Young's modulus (paper)",
            note: "Stomakhin et al. 2013: E = 4.8e4 Pa instead of 1.4e5; softer, squishier snow",
            material: SnowMaterial { youngs_modulus: 4.8e4, ..r },
        },
        MaterialPreset {
            name: "Lower critical compression (paper)",
            note: "Stomakhin et al. 2013: θc = 1.9e-2 instead of 2.5e-2; yields sooner under compression",
            material: SnowMaterial { critical_compression: 1.9e-2, ..r },
        },
        MaterialPreset {
            name: "Lower critical stretch (paper)",
            note: "Stomakhin et al. 2013: θs = 5e-3 instead of 7.5e-3; breaks apart sooner (more brittle)",
            material: SnowMaterial { critical_stretch: 5e-3, ..r },
        },
        MaterialPreset {
            name: "Lower θc and θs (paper)",
            note: "Stomakhin et al. 2013: θc = 1.9e-2 and θs = 5e-3; the most brittle of the paper's variants",
            material: SnowMaterial { critical_compression: 1.9e-2, critical_stretch: 5e-3, ..r },
        },
        MaterialPreset {
            name: "Stiffer, E × 2 (powder, not in the paper)",
            note: "powder's own variation: E = 2.8e5 Pa; keeps its shape better (smaller stable dt)",
            material: SnowMaterial { youngs_modulus: 2.8e5, ..r },
        },
        MaterialPreset {
            name: "More plastic, θc = 0.1 (powder, not in the paper)",
            note: "powder's own variation: θc = 0.1; packs down a lot before it resists",
            material: SnowMaterial { critical_compression: 0.1, ..r },
        },
    ]
}

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
