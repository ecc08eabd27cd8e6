//! The Stats section: frame rate, where the time goes, and the state of the snow, refreshed
//! every [`REFRESH`].

use powder::sim::integrator::Integrator;
use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};

use super::events::AppEvent;
use super::stepping::{BEHIND_REAL_TIME, coarser_resolution};
use super::timing::RECENT_FRAMES;
use super::ui::{PanelModel, hint, short};

/// How often the Stats section's numbers are refreshed: often enough to follow them, rarely enough
/// to read them, and the panel's pixels are reused between refreshes (`ui_layer.rs`; redrawing them
/// each frame cost about 10 ms of a frame on lavapipe).
pub const REFRESH: Duration = Duration::from_millis(500);

/// How fast the simulation runs against the wall clock, and the fix when it is behind.
struct RealTimeLine {
    text: String,
    behind: bool,
    /// A coarser grid resolution that should keep real time.
    fix: Option<u32>,
}

/// A ratio to two significant digits (at least two decimals): 0.0013, 0.06, 1.23.
fn short_ratio(ratio: f64) -> String {
    if ratio.is_nan() || ratio <= 0.0 || ratio.is_infinite() {
        return "0".to_string();
    }
    let decimals = ((-ratio.log10()).floor().max(0.0) as usize + 2).min(9);
    let text = format!("{ratio:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The Stats section's numbers as of their last refresh.
pub struct StatsText {
    taken: Instant,
    rows: Vec<(String, String)>,
    /// The real-time line.
    real_time: Option<RealTimeLine>,
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
        if last.substeps > 0 {
            let over = if last.ui_frames > 1 { format!(" over {} UI frames", last.ui_frames) } else { String::new() };
            let (n, span, ms) = (last.substeps, short(last.span), last.sim_ms);
            let plural = if n == 1 { "" } else { "s" };
            row("last sim frame", format!("{n} substep{plural} over {span} s in {ms:.1} ms{over}"));
        }
        if let Some(ms) = d.stepper().substep_ms() {
            row("  per substep", format!("{ms:.2} ms (wall clock)"));
        }
        if let Some((done, span)) = d.stepper().frame_progress() {
            row("sim frame", format!("{:.0}% of {} s done", 100.0 * done / span.max(f64::MIN_POSITIVE), short(span)));
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
        let running = !d.stepper().paused();
        let real_time = d.stepper().real_time_ratio().filter(|_| running).map(|ratio| {
            let resolution = d.scene().grid.resolution;
            if ratio < BEHIND_REAL_TIME {
                let fix = coarser_resolution(resolution, ratio);
                let text = match fix {
                    Some(r) => format!("behind real time: {}× — try grid {r}³", short_ratio(ratio)),
                    None => format!("behind real time: {}×", short_ratio(ratio)),
                };
                RealTimeLine { text, behind: true, fix }
            } else {
                RealTimeLine { text: format!("real time: {}×", short_ratio(ratio)), behind: false, fix: None }
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
    // A fixed height, scrolled inside when the rows do not fit: the sections below stay where
    // they are whether or not a warning or a pass's timing shows.
    egui::ScrollArea::vertical()
        .id_salt("stats")
        .auto_shrink([false, false])
        .max_height(STATS_HEIGHT)
        .show(ui, |ui| rows(ui, model, text, events));
    ui.label(hint(model.gpu_name));
}

/// Height of the Stats section's rows, points: about a dozen rows and the real-time line.
const STATS_HEIGHT: f32 = 250.0;

fn rows(ui: &mut Ui, model: &PanelModel, text: &StatsText, events: &mut Vec<AppEvent>) {
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
        if line.behind && model.driver.solver().integrator().pbmpm().is_none() {
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

#[cfg(test)]
mod tests {
    use super::short_ratio;

    #[test]
    fn ratios_keep_two_significant_digits() {
        assert_eq!(short_ratio(0.06), "0.06");
        assert_eq!(short_ratio(0.0013), "0.0013");
        assert_eq!(short_ratio(0.9), "0.9");
        assert_eq!(short_ratio(1.234), "1.23");
        assert_eq!(short_ratio(0.0), "0");
        assert_eq!(short_ratio(f64::NAN), "0");
    }
}
