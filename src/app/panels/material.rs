//! The Material section: presets and the snow model's parameters.

use egui::Ui;

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::panels::tips;
use crate::app::panels::widgets::slider;
use crate::app::run::presets::{material_presets, preset_label};

/// Draws the Material section; `chosen` is the preset last chosen and the scene it was chosen for.
pub fn material(ui: &mut Ui, model: &Model, chosen: &mut Option<(&'static str, String)>, events: &mut Vec<AppEvent>) {
    let mut m = model.scene.material;
    // A preset chosen for another scene says nothing about this one.
    if chosen.as_ref().is_some_and(|(_, scene)| scene != model.scene_name) {
        *chosen = None;
    }
    let label = preset_label(&m, chosen.as_ref().map(|(n, _)| *n), model.loaded_material);
    egui::ComboBox::from_label("preset").selected_text(label).show_ui(ui, |ui| {
        for preset in material_presets() {
            if ui.selectable_label(preset.material == m, preset.name).on_hover_text(preset.note).clicked() {
                *chosen = Some((preset.name, model.scene_name.to_string()));
                events.push(AppEvent::SetMaterial(preset.material));
            }
        }
    });
    let mut changed = false;
    {
        changed |= slider(ui, "Young's modulus E", "Pa", &mut m.youngs_modulus, 1e3..=1e7, true, tips::YOUNGS_MODULUS);
        changed |= slider(ui, "Poisson's ratio ν", "", &mut m.poisson_ratio, 0.0..=0.45, false, tips::POISSON_RATIO);
        changed |= slider(ui, "hardening ξ", "", &mut m.hardening, 0.0..=30.0, false, tips::HARDENING);
        changed |= slider(
            ui,
            "critical compression θc",
            "",
            &mut m.critical_compression,
            1e-3..=0.3,
            true,
            tips::CRITICAL_COMPRESSION,
        );
        changed |=
            slider(ui, "critical stretch θs", "", &mut m.critical_stretch, 1e-4..=0.1, true, tips::CRITICAL_STRETCH);
        // Linear: 0 (the paper's model, no cracking) must be reachable.
        changed |= slider(
            ui,
            "tensile strength σF (0: no cracks)",
            "Pa",
            &mut m.tensile_strength,
            0.0..=2e4,
            false,
            tips::TENSILE_STRENGTH,
        );
        changed |=
            slider(ui, "density ρ (applies on reset)", "kg/m³", &mut m.density, 50.0..=1000.0, false, tips::DENSITY);
    }
    if changed {
        events.push(AppEvent::SetMaterial(m));
    }
    if ui.button("Reset to the scene's material").clicked() {
        *chosen = None;
        events.push(AppEvent::ResetMaterial);
    }
}
