//! The Material section: presets and the snow model's parameters.

use egui::Ui;

use powder::scene::ranges::{
    CRITICAL_COMPRESSION, CRITICAL_STRETCH, DENSITY, FRICTION_ANGLE, HARDENING, POISSON_RATIO, TENSILE_STRENGTH,
    YOUNGS_MODULUS,
};

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::panels::tips;
use crate::app::panels::widgets::tunable;
use crate::app::run::presets::{material_presets, preset_label};
use powder::sim::material::MaterialKind;

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
        // Each slider spans the range scene files may hold (`powder::scene::ranges`).
        let mut sand = m.kind == MaterialKind::Sand;
        if ui.checkbox(&mut sand, "sand (Drucker–Prager)").on_hover_text(tips::SAND).changed() {
            m.kind = if sand { MaterialKind::Sand } else { MaterialKind::Snow };
            changed = true;
        }
        if sand {
            changed |= tunable(ui, "friction angle φ", &FRICTION_ANGLE, &mut m.friction_angle, tips::FRICTION_ANGLE);
        }
        changed |= tunable(ui, "Young's modulus E", &YOUNGS_MODULUS, &mut m.youngs_modulus, tips::YOUNGS_MODULUS);
        changed |= tunable(ui, "Poisson's ratio ν", &POISSON_RATIO, &mut m.poisson_ratio, tips::POISSON_RATIO);
        changed |= tunable(ui, "hardening ξ", &HARDENING, &mut m.hardening, tips::HARDENING);
        changed |= tunable(
            ui,
            "critical compression θc",
            &CRITICAL_COMPRESSION,
            &mut m.critical_compression,
            tips::CRITICAL_COMPRESSION,
        );
        changed |=
            tunable(ui, "critical stretch θs", &CRITICAL_STRETCH, &mut m.critical_stretch, tips::CRITICAL_STRETCH);
        changed |= tunable(
            ui,
            "tensile strength σF (0: no cracks)",
            &TENSILE_STRENGTH,
            &mut m.tensile_strength,
            tips::TENSILE_STRENGTH,
        );
        changed |= tunable(ui, "density ρ (applies on reset)", &DENSITY, &mut m.density, tips::DENSITY);
    }
    if changed {
        events.push(AppEvent::SetMaterial(m));
    }
    if ui.button("Reset to the scene's material").clicked() {
        *chosen = None;
        events.push(AppEvent::ResetMaterial);
    }
}
