//! The Stats section: frame rate, where the time goes, and the state of the snow, from the
//! model's numbers ([`crate::app::model::stats`]), with the fixes offered when the simulation runs
//! behind real time.

use egui::{Color32, RichText, Ui};

use powder::sim::integrator::Integrator;

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::model::stats::StatsText;
use crate::app::panels::widgets::hint;

/// Draws the Stats section from the model's numbers (taken every `model::stats::REFRESH`).
pub fn stats(ui: &mut Ui, model: &Model, events: &mut Vec<AppEvent>) {
    let text = model.stats;
    // A fixed height, scrolled inside when the rows do not fit: the sections below stay where
    // they are whether or not a warning or a pass's timing shows.
    egui::ScrollArea::vertical()
        .id_salt("stats")
        .auto_shrink([false, false])
        .max_height(STATS_HEIGHT)
        .show(ui, |ui| rows(ui, text, events));
    ui.label(hint(model.window.gpu_name));
}

/// Height of the Stats section's rows, points: about a dozen rows and the real-time line.
const STATS_HEIGHT: f32 = 250.0;

fn rows(ui: &mut Ui, text: &StatsText, events: &mut Vec<AppEvent>) {
    egui::Grid::new("stats_grid").num_columns(2).striped(true).show(ui, |ui| {
        for (name, value) in &text.rows {
            ui.label(name);
            ui.label(value);
            ui.end_row();
        }
    });
    if let Some(line) = &text.real_time {
        if line.behind {
            ui.label(RichText::new(&line.text).color(Color32::from_rgb(255, 170, 60)));
        } else {
            ui.label(&line.text);
        }
        if let Some(resolution) = line.fix {
            let button = ui.button(format!("Use grid {resolution} and restart")).on_hover_text(
                "A coarser grid: a simulated second costs about the fourth power of the resolution (cells × substeps) \
                 once the scene is respawned at its particles per cell. Restarts the scene.",
            );
            if button.clicked() {
                events.push(AppEvent::SetGridResolution(resolution));
                events.push(AppEvent::Reset);
            }
        }
        if line.behind && text.explicit {
            let button = ui.button("Use the real-time integrator (PB-MPM)").on_hover_text(
                "Position-based MPM takes steps limited by how far the snow moves, not by its stiffness: far fewer \
                 steps, softer snow at few iterations (docs/pbmpm.md). The particles carry over.",
            );
            if button.clicked() {
                events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(Default::default())));
            }
        }
    }
}
