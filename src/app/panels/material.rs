//! The Material section: which material it edits (the scene's or an emitter's own), presets and
//! the model's parameters.

use egui::Ui;

use powder::scene::ranges::{
    BULK_MODULUS, COHESION, CRITICAL_COMPRESSION, CRITICAL_STRETCH, DENSITY, FRICTION_ANGLE, HARDENING, POISSON_RATIO,
    TENSILE_STRENGTH, VISCOSITY, YIELD_STRESS, YOUNGS_MODULUS,
};
use powder::sim::material::{Elasticity, MaterialKind, SnowMaterial};
use powder::sim::params::MAX_MATERIALS;

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::panels::tips;
use crate::app::panels::widgets::tunable;
use crate::app::run::presets::{material_presets, preset_label};

/// What the Material section keeps between frames.
#[derive(Default)]
pub struct MaterialPanelState {
    /// The preset last chosen and the scene it was chosen for.
    chosen: Option<(&'static str, String)>,
    /// The material the controls edit: the scene's (`None`) or emitter `i`'s.
    editing: Option<usize>,
}

/// Draws the Material section.
pub fn material(ui: &mut Ui, model: &Model, state: &mut MaterialPanelState, events: &mut Vec<AppEvent>) {
    // A preset chosen for another scene says nothing about this one.
    if state.chosen.as_ref().is_some_and(|(_, scene)| scene != model.scene_name) {
        *state = MaterialPanelState::default();
    }
    let emitters = &model.scene.emitters;
    // Emitters from the table's last entry on share it: the panel offers the first 16.
    let editable = emitters.len().min(MAX_MATERIALS);
    if state.editing.is_some_and(|i| i >= editable) {
        state.editing = None;
    }
    if editable > 1 || emitters.iter().any(|e| e.material().is_some()) {
        let name = |i: Option<usize>| match i {
            None => "the scene's material".to_string(),
            Some(i) => format!("emitter {i} ({})", emitters[i].shape_name()),
        };
        egui::ComboBox::from_label("edits").selected_text(name(state.editing)).show_ui(ui, |ui| {
            for choice in std::iter::once(None).chain((0..editable).map(Some)) {
                ui.selectable_value(&mut state.editing, choice, name(choice)).on_hover_text(tips::EDITS);
            }
        });
    }
    let current = match state.editing {
        None => model.scene.material,
        Some(i) => {
            let own = emitters[i].material().copied();
            let mut has_own = own.is_some();
            if ui.checkbox(&mut has_own, "its own material").on_hover_text(tips::OWN_MATERIAL).changed() {
                events.push(AppEvent::SetEmitterMaterial(i, has_own.then_some(model.scene.material)));
            }
            match own {
                Some(m) => m,
                None => {
                    ui.label("made of the scene's material");
                    return;
                }
            }
        }
    };
    let set = |m: SnowMaterial| match state.editing {
        None => AppEvent::SetMaterial(m),
        Some(i) => AppEvent::SetEmitterMaterial(i, Some(m)),
    };
    let label = preset_label(&current, state.chosen.as_ref().map(|(n, _)| *n), model.loaded_material);
    let mut picked = None;
    egui::ComboBox::from_label("preset").selected_text(label).show_ui(ui, |ui| {
        for preset in material_presets() {
            if ui.selectable_label(preset.material == current, preset.name).on_hover_text(preset.note).clicked() {
                picked = Some(preset);
            }
        }
    });
    if let Some(preset) = picked {
        state.chosen = Some((preset.name, model.scene_name.to_string()));
        events.push(set(preset.material));
    }
    let mut m = current;
    if parameters(ui, &mut m) {
        events.push(set(m));
    }
    if state.editing.is_none() && ui.button("Reset to the scene's material").clicked() {
        state.chosen = None;
        events.push(AppEvent::ResetMaterial);
    }
}

/// The kind and the sliders of its parameters; whether any changed. Each slider spans the range
/// scene files may hold (`powder::scene::ranges`).
fn parameters(ui: &mut Ui, m: &mut SnowMaterial) -> bool {
    let mut changed = false;
    let kinds = [
        (MaterialKind::Snow, "snow"),
        (MaterialKind::Sand, "sand (Drucker–Prager)"),
        (MaterialKind::Liquid, "liquid"),
        (MaterialKind::ViscoPlastic, "visco-plastic (honey, mud)"),
    ];
    let kind_name = kinds.iter().find(|(k, _)| *k == m.kind).map_or("", |(_, n)| n);
    egui::ComboBox::from_label("kind").selected_text(kind_name).show_ui(ui, |ui| {
        for (kind, name) in kinds {
            changed |= ui.selectable_value(&mut m.kind, kind, name).on_hover_text(tips::KIND).changed();
        }
    });
    if m.kind == MaterialKind::Liquid {
        changed |= tunable(ui, "bulk modulus K", &BULK_MODULUS, &mut m.bulk_modulus, tips::BULK_MODULUS);
        changed |= tunable(ui, "density ρ (applies on reset)", &DENSITY, &mut m.density, tips::DENSITY);
        return changed;
    }
    if m.kind == MaterialKind::Sand {
        changed |= tunable(ui, "friction angle φ", &FRICTION_ANGLE, &mut m.friction_angle, tips::FRICTION_ANGLE);
        changed |= tunable(ui, "cohesion c (0: dry)", &COHESION, &mut m.cohesion, tips::COHESION);
    }
    if m.kind == MaterialKind::ViscoPlastic {
        changed |= tunable(ui, "yield stress τy", &YIELD_STRESS, &mut m.yield_stress, tips::YIELD_STRESS);
        changed |= tunable(ui, "viscosity η", &VISCOSITY, &mut m.viscosity, tips::VISCOSITY);
    }
    let laws = [(Elasticity::FixedCorotated, "fixed corotated"), (Elasticity::NeoHookean, "neo-Hookean")];
    let law_name = laws.iter().find(|(l, _)| *l == m.elasticity).map_or("", |(_, n)| n);
    egui::ComboBox::from_label("elasticity").selected_text(law_name).show_ui(ui, |ui| {
        for (law, name) in laws {
            changed |= ui.selectable_value(&mut m.elasticity, law, name).on_hover_text(tips::ELASTICITY).changed();
        }
    });
    changed |= tunable(ui, "Young's modulus E", &YOUNGS_MODULUS, &mut m.youngs_modulus, tips::YOUNGS_MODULUS);
    changed |= tunable(ui, "Poisson's ratio ν", &POISSON_RATIO, &mut m.poisson_ratio, tips::POISSON_RATIO);
    if m.kind == MaterialKind::ViscoPlastic {
        changed |= tunable(ui, "density ρ (applies on reset)", &DENSITY, &mut m.density, tips::DENSITY);
        return changed;
    }
    changed |= tunable(ui, "hardening ξ", &HARDENING, &mut m.hardening, tips::HARDENING);
    if m.kind == MaterialKind::Snow {
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
    }
    changed |= tunable(ui, "density ρ (applies on reset)", &DENSITY, &mut m.density, tips::DENSITY);
    changed
}
