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
    if !text.residuals.is_empty() {
        residual_plot(ui, &text.residuals);
    }
    ui.label(hint(model.window.gpu_name));
}

/// Colours of the residual curves, one per preconditioner in the order they were used.
const CURVES: [Color32; 5] = [
    Color32::from_rgb(90, 170, 255),
    Color32::from_rgb(255, 170, 60),
    Color32::from_rgb(120, 220, 120),
    Color32::from_rgb(230, 100, 200),
    Color32::from_rgb(230, 230, 90),
];

/// Decades below 1 the plot's vertical axis reaches at least.
const PLOT_DECADES: f32 = 8.0;

/// The water's pressure solves: the relative residual (log scale, 1 at the top) against the
/// iteration, the last projection of each preconditioner used since the scene loaded, each in its
/// colour with its name and iterations.
fn residual_plot(ui: &mut Ui, curves: &[(&'static str, Vec<f32>)]) {
    ui.label("pressure solve: relative residual against iteration (last projection of each preconditioner)");
    let width = ui.available_width().clamp(120.0, 400.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 110.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_gray(24));
    let longest = curves.iter().map(|(_, h)| h.len().saturating_sub(1)).max().unwrap_or(1).max(1) as f32;
    let lowest = curves
        .iter()
        .flat_map(|(_, h)| h.iter().filter(|r| **r > 0.0).map(|r| r.log10()))
        .fold(-PLOT_DECADES, f32::min)
        .floor();
    let at = |i: usize, r: f32| {
        let x = rect.left() + rect.width() * i as f32 / longest;
        let y = rect.top() + rect.height() * (r.max(1e-30).log10() / lowest).clamp(0.0, 1.0);
        egui::pos2(x, y)
    };
    for (n, (_, history)) in curves.iter().enumerate() {
        let points: Vec<egui::Pos2> = history.iter().enumerate().map(|(i, r)| at(i, *r)).collect();
        painter.add(egui::Shape::line(points, egui::Stroke::new(1.5, CURVES[n % CURVES.len()])));
    }
    let text = |pos, align, s: String| painter.text(pos, align, s, egui::FontId::proportional(11.0), Color32::GRAY);
    text(rect.left_top() + egui::vec2(3.0, 2.0), egui::Align2::LEFT_TOP, "1".into());
    text(rect.left_bottom() + egui::vec2(3.0, -2.0), egui::Align2::LEFT_BOTTOM, format!("1e{lowest}"));
    text(rect.right_bottom() + egui::vec2(-3.0, -2.0), egui::Align2::RIGHT_BOTTOM, format!("{longest} iterations"));
    ui.horizontal_wrapped(|ui| {
        for (n, (name, history)) in curves.iter().enumerate() {
            let its = history.len().saturating_sub(1);
            ui.label(RichText::new(format!("{name} {its}")).color(CURVES[n % CURVES.len()]));
        }
    });
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
