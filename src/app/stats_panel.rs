//! The Stats section: frame rate, where the time goes, and the state of the snow, refreshed
//! every [`REFRESH`].

use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};

use super::events::{AppEvent, StepMode};
use super::timing::RECENT_FRAMES;
use super::ui::{PanelModel, short};

/// How often the Stats section's numbers are refreshed: often enough to follow them, rarely enough
/// to read them, and the panel's pixels are reused between refreshes (`ui_layer.rs`; redrawing them
/// each frame cost about 10 ms of a frame on lavapipe).
pub const REFRESH: Duration = Duration::from_millis(500);

/// The Stats section's numbers as of their last refresh.
pub struct StatsText {
    taken: Instant,
    rows: Vec<(String, String)>,
    /// The real-time line, and whether it is a warning.
    real_time: Option<(String, bool)>,
    /// The stable dt, seconds (also shown by the Simulation section).
    pub stable_dt: f64,
}

impl StatsText {
    /// The numbers now.
    pub fn collect(model: &PanelModel) -> Self {
        let d = model.driver;
        let last = d.stepper().last_frame();
        let (sim_time, substeps) = d.stepper().sim_time();
        let mut rows = Vec::new();
        let mut row = |name: &str, value: String| rows.push((name.to_string(), value));
        row("fps", format!("{:.1} ({:.1} ms/frame)", model.clock.fps, model.clock.frame_ms));
        if let Some(t) = model.frame_times.recent(RECENT_FRAMES) {
            row("UI frame time", format!("median {:.0} ms, 99% {:.0} ms (last {})", t.p50_ms, t.p99_ms, t.frames));
        }
        row("simulation", format!("{:.1} ms for {} substeps", last.sim_ms, last.substeps));
        if last.substeps > 0 {
            row("  per substep", format!("{:.2} ms (wall clock)", last.sim_ms / last.substeps as f64));
        }
        row("draw + present", format!("{:.1} ms", model.draw_ms));
        if let Some(ms) = d.stepper().pass_ms() {
            for (name, ms) in d.solver().stage_names().iter().zip(ms) {
                row(&format!("  GPU {name}"), format!("{ms:.3} ms / substep"));
            }
        }
        let pages = d.solver().pages().len();
        let paged = if pages > 1 { format!(" in {pages} pages") } else { String::new() };
        row("particles", format!("{}{paged}", d.solver().particle_count()));
        row("GPU memory", format!("{:.2} GB (particles, grid, bins)", d.solver().gpu_bytes() as f64 / 1e9));
        row("grid", d.solver().grid_storage().summary(d.stepper().stats().map(|s| s.grid_blocks_peak)));
        row("simulated", format!("{sim_time:.3} s ({substeps} substeps)"));
        let dt = if last.substeps > 0 { format!("{} s", short(last.dt)) } else { "none this frame".to_string() };
        row("dt", format!("{dt} (stable {} s)", short(d.stepper().stable_dt())));
        if last.substeps > 0 {
            // Each substep's dt against the stable dt of the state it stepped, the largest of the
            // frame: at most 1 under auto dt.
            let past = if last.max_dt_ratio > 1.0 { ", past the stable dt" } else { "" };
            row("dt / stable dt", format!("{:.3} at most{past}", last.max_dt_ratio));
        }
        if let Some(s) = d.stepper().stats() {
            row("max speed", format!("{:.2} m/s", s.max_speed));
            row("max hardening", format!("{:.2}", s.max_hardening));
            row("Jp range", format!("{:.3} … {:.3}", s.min_plastic_jacobian, s.max_plastic_jacobian));
            if s.nonfinite_count > 0 || s.overflow_count > 0 {
                row("resets", format!("{} non-finite, {} clamped", s.nonfinite_count, s.overflow_count));
            }
        }
        let (mode, ..) = d.stepper().settings();
        let real_time = (mode == StepMode::RealTime && !d.stepper().paused()).then(|| {
            let (ratio, behind) = d.stepper().real_time();
            if behind {
                let text = format!(
                    "behind real time: simulating {}% of real time (the substeps do not fit the time budget)",
                    short(100.0 * ratio)
                );
                (text, true)
            } else {
                (format!("real time ({:.0}%)", 100.0 * ratio.min(1.0)), false)
            }
        });
        Self { taken: Instant::now(), rows, real_time, stable_dt: d.stepper().stable_dt() }
    }
}

/// Draws the Stats section from `text`, refreshed first if it is older than [`REFRESH`].
pub fn stats(ui: &mut Ui, model: &PanelModel, text: &mut Option<StatsText>, events: &mut Vec<AppEvent>) {
    if text.as_ref().is_none_or(|t| t.taken.elapsed() >= REFRESH) {
        *text = Some(StatsText::collect(model));
    }
    let Some(text) = text else { return };
    egui::Grid::new("stats_grid").num_columns(2).striped(true).show(ui, |ui| {
        for (name, value) in &text.rows {
            ui.label(name);
            ui.label(value);
            ui.end_row();
        }
    });
    if let Some((line, behind)) = &text.real_time {
        if *behind {
            ui.label(RichText::new(line).color(Color32::from_rgb(255, 170, 60)));
        } else {
            ui.label(line);
        }
    }
    ui.label(RichText::new(model.gpu_name).small().weak());
    ui.horizontal(|ui| {
        if ui.button("Screenshot (F12)").clicked() {
            events.push(AppEvent::Screenshot(None));
        }
        if let Some(path) = model.last_screenshot {
            ui.label(RichText::new(path.display().to_string()).small());
        }
    });
}
