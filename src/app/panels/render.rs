//! The Render and Tool sections: how the 3D view draws the snow, and the mouse tool's settings.

use std::ops::RangeInclusive;

use egui::Ui;

use powder::render::{ColorField, RenderMode, RenderSettings};
use powder::scene::ranges::{DENSITY_SCALE, EXPOSURE, PARTICLE_SCALE, RESOLUTION_SCALE, SPEED_SCALE, Tunable};

use crate::app::events::{AppEvent, ToolSettings};
use crate::app::model::frame::Model;
use crate::app::panels::tips;
use crate::app::panels::widgets::{hint, slider, tunable};

/// Draws the Render section; `materials` names each emitter's material (the material legend).
pub fn render(ui: &mut Ui, current: &RenderSettings, materials: &[String], events: &mut Vec<AppEvent>) {
    let mut s = *current;
    let modes = [
        (RenderMode::Surface, "surface"),
        (RenderMode::Particles, "particles"),
        (RenderMode::Volume, "volume"),
        (RenderMode::Both, "both"),
    ];
    let fields = [
        (ColorField::Snow, "snow"),
        (ColorField::Speed, "speed"),
        (ColorField::PlasticJacobian, "plastic Jp"),
        (ColorField::Material, "material"),
    ];
    egui::ComboBox::from_label("mode")
        .selected_text(name_of(&modes, s.mode))
        .show_ui(ui, |ui| {
            for (m, n) in modes {
                ui.selectable_value(&mut s.mode, m, n);
            }
        })
        .response
        .on_hover_text(tips::RENDER_MODE);
    egui::ComboBox::from_label("colour")
        .selected_text(name_of(&fields, s.color_field))
        .show_ui(ui, |ui| {
            for (f, n) in fields {
                ui.selectable_value(&mut s.color_field, f, n);
            }
        })
        .response
        .on_hover_text(tips::COLOUR);
    crate::app::panels::legend::color_legend(ui, &s, materials);
    {
        // The ranges scene files and `--set` are held to as well (`powder::scene::ranges`).
        let edit = |ui: &mut Ui, name, v: &mut f32, range: &Tunable, tip| {
            let mut x = *v as f64;
            tunable(ui, name, range, &mut x, tip);
            *v = x as f32;
        };
        edit(ui, "particle size", &mut s.particle_scale, &PARTICLE_SCALE, tips::PARTICLE_SIZE);
        edit(ui, "exposure", &mut s.exposure, &EXPOSURE, tips::EXPOSURE);
        edit(ui, "volume density", &mut s.density_scale, &DENSITY_SCALE, tips::VOLUME_DENSITY);
        edit(ui, "speed colour scale", &mut s.speed_scale, &SPEED_SCALE, tips::SPEED_SCALE);
        edit(ui, "view resolution", &mut s.resolution_scale, &RESOLUTION_SCALE, tips::VIEW_RESOLUTION);
    }
    if s != *current {
        events.push(AppEvent::SetRender(s));
    }
}

/// Draws the Tool section.
pub fn tool(ui: &mut Ui, model: &Model, events: &mut Vec<AppEvent>) {
    let mut t: ToolSettings = model.tool;
    let presets = powder::sim::presets::material_presets();
    let dropping = t.drop.and_then(|id| presets.iter().find(|p| p.id == id)).map(|p| p.name);
    egui::ComboBox::from_label("right click")
        .selected_text(dropping.map_or("grabs".to_string(), |n| format!("drops {n}")))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut t.drop, None, "grabs (drag to throw)");
            for p in &presets {
                ui.selectable_value(&mut t.drop, Some(p.id), format!("drops a ball of {}", p.name));
            }
        })
        .response
        .on_hover_text(tips::DROP);
    if t.drop.is_some() {
        ui.label(hint("right click drops a ball of the tool's radius where it points"));
    } else {
        ui.label(hint("right drag grabs and throws; Ctrl + right drag repels"));
    }
    ui.checkbox(&mut t.repel, "right drag repels").on_hover_text(tips::REPEL);
    {
        let edit = |ui: &mut Ui, name, unit, v: &mut f32, range: RangeInclusive<f64>, tip| {
            let mut x = *v as f64;
            slider(ui, name, unit, &mut x, range, true, tip);
            *v = x as f32;
        };
        edit(ui, "radius", "m", &mut t.radius, 0.01..=1.0, tips::TOOL_RADIUS);
        edit(ui, "strength", "1/s", &mut t.rate, 10.0..=5000.0, tips::TOOL_STRENGTH);
        edit(ui, "repel speed", "m/s", &mut t.repel_speed, 0.1..=20.0, tips::REPEL_SPEED);
    }
    if t != model.tool {
        events.push(AppEvent::SetTool(t));
    }
}

/// The name of `value` in a (value, name) list.
fn name_of<T: PartialEq>(list: &[(T, &'static str)], value: T) -> &'static str {
    list.iter().find(|(k, _)| *k == value).map_or("?", |(_, n)| *n)
}
