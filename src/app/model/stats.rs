//! The Stats section's numbers: frame rate, where the time goes, the state of the snow and how
//! fast the simulation runs against the wall clock, taken from the driver every [`REFRESH`].

use std::time::{Duration, Instant};

use crate::app::run::driver::Driver;
use crate::app::run::stepping::policy::{BEHIND_REAL_TIME, coarser_resolution};
use crate::app::run::timing::{FrameClock, FrameTimes, RECENT_FRAMES};
use powder::sim::SolveTotals;
use powder::sim::pbmpm::{PbSolver, PbmpmSettings};
use powder::sim::water::WaterSettings;
use powder::sim::water::gpu::FrameStatus;

/// How often the Stats numbers are taken again: often enough to follow them, rarely enough to read
/// them, and the panel's pixels are reused between refreshes (`window/ui_layer.rs`; redrawing them
/// each frame cost about 10 ms of a frame on lavapipe).
pub const REFRESH: Duration = Duration::from_millis(500);

/// How fast the simulation runs against the wall clock, and the fix when it is behind.
#[derive(Clone, Debug, PartialEq)]
pub struct RealTimeLine {
    /// "real time: 1.2×" or "behind real time: 0.0089× — try grid 24³".
    pub text: String,
    /// Slower than [`BEHIND_REAL_TIME`].
    pub behind: bool,
    /// A coarser grid resolution that should keep real time.
    pub fix: Option<u32>,
}

/// The Stats numbers as of their last refresh.
#[derive(Clone, Debug)]
pub struct StatsText {
    /// When they were taken.
    pub taken: Instant,
    /// Name and value of each row.
    pub rows: Vec<(String, String)>,
    /// The real-time line (while running).
    pub real_time: Option<RealTimeLine>,
    /// The stable dt, seconds (also shown by the Simulation section).
    pub stable_dt: f64,
    /// The integrator is explicit MLS-MPM (the real-time integrator can be offered).
    pub explicit: bool,
    /// Water: per preconditioner used so far, the last projection's relative residual at the
    /// start and after each iteration (the Stats plot).
    pub residuals: Vec<(&'static str, Vec<f32>)>,
}

/// A number in few characters: 1.4e5, 0.025, 12.
pub fn short(v: f64) -> String {
    if v != 0.0 && !(1e-2..1e4).contains(&v.abs()) {
        let s = format!("{v:.2e}");
        s.replace(".00e", "e").replace("0e", "e")
    } else {
        format!("{}", (v * 1e4).round() / 1e4)
    }
}

/// A ratio to two significant digits (at least two decimals): 0.0013, 0.06, 1.23.
pub fn short_ratio(ratio: f64) -> String {
    if ratio.is_nan() || ratio <= 0.0 || ratio.is_infinite() {
        return "0".to_string();
    }
    let decimals = ((-ratio.log10()).floor().max(0.0) as usize + 2).min(9);
    let text = format!("{ratio:.decimals$}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A byte count in the unit that shows it with three significant digits (kB, MB or GB): a small
/// scene's few megabytes are not "0.00 GB".
pub fn bytes_text(bytes: u64) -> String {
    let b = bytes as f64;
    let (value, unit) = if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else {
        (b / 1e3, "kB")
    };
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

/// The real-time line for a simulation running at `ratio` of real time on a grid of `resolution`.
pub fn real_time_line(ratio: f64, resolution: u32) -> RealTimeLine {
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
}

impl StatsText {
    /// The numbers now, from the driver, the frame clock and the last draw's milliseconds.
    pub fn collect(d: &Driver, clock: &FrameClock, frame_times: &FrameTimes, draw_ms: f64) -> Self {
        let last = d.stepper().last_frame();
        let (sim_time, substeps) = d.stepper().sim_time();
        let mut rows = Vec::new();
        let mut row = |name: &str, value: String| rows.push((name.to_string(), value));
        row("fps", format!("{:.1} ({:.1} ms/frame)", clock.fps, clock.frame_ms));
        if let Some(t) = frame_times.recent(RECENT_FRAMES) {
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
        row("draw + present", format!("{:.1} ms", draw_ms));
        if let Some(ms) = d.stepper().pass_ms() {
            for (name, ms) in d.solver().stage_names().iter().zip(ms) {
                row(&format!("  GPU {name}"), format!("{ms:.3} ms / substep"));
            }
        }
        let pages = d.solver().pages().len();
        let paged = if pages > 1 { format!(" in {pages} pages") } else { String::new() };
        row("particles", format!("{}{paged}", d.solver().particle_count()));
        let bytes = d.solver().gpu_bytes();
        if bytes > 0 {
            row("GPU memory", format!("{} (particles, grid, bins)", bytes_text(bytes)));
        }
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
            if let (Some(solve), Some(settings)) = (d.solver().pbmpm_solve(), d.solver().integrator().pbmpm()) {
                let newton_steps = settings.newton_steps_for(d.solver().params());
                row("PB-MPM solve", solve_line(solve, settings, newton_steps, &s.solve));
            }
            if s.nonfinite_count > 0 || s.overflow_count > 0 {
                row("resets", format!("{} non-finite, {} clamped", s.nonfinite_count, s.overflow_count));
            }
        }
        if let (Some(status), Some(settings)) = (d.solver().water_status(), d.solver().integrator().water()) {
            row("pressure solve", water_line(&status, settings));
        }
        let running = !d.stepper().paused();
        let real_time = d
            .stepper()
            .real_time_ratio()
            .filter(|_| running)
            .map(|ratio| real_time_line(ratio, d.scene().grid.resolution));
        let explicit = d.solver().integrator() == powder::sim::integrator::Integrator::Explicit;
        let residuals = if d.solver().integrator().water().is_some() {
            d.solver().water_histories().into_iter().map(|(k, h)| (k.name(), h)).collect()
        } else {
            Vec::new()
        };
        Self { taken: Instant::now(), rows, real_time, stable_dt: d.stepper().stable_dt(), explicit, residuals }
    }
}

/// The Stats panel's line on water's pressure solves of the last frame: the most iterations one
/// took, of the cap, with the preconditioner and tolerance, and how many stopped short of it.
fn water_line(status: &FrameStatus, settings: &WaterSettings) -> String {
    let p = &settings.pressure;
    let short = match status.unconverged {
        0 => String::new(),
        n => format!(", {n} stopped short"),
    };
    let volume = if settings.volume_correction {
        format!("; volume correction {} to {:.0e}", status.volume_iterations, settings.volume_tolerance)
    } else {
        String::new()
    };
    format!(
        "{} iterations at most (cap {}), {} to {:.0e}{volume}{short}",
        status.iterations,
        p.max_iterations,
        p.preconditioner.name(),
        p.tolerance
    )
}

/// The Stats panel's line on PB-MPM's solve: what ran (Newton–PCG falls back to the constraint
/// iterations on a grid without its vectors), its iterations a step, and for Newton–PCG the mean
/// CG iterations a step of the last report's steps and the largest relative residual one ended
/// with. A step of `newton_steps` Newton steps runs at most that many times the iterations.
fn solve_line(ran: PbSolver, settings: &PbmpmSettings, newton_steps: u32, solve: &SolveTotals) -> String {
    let n = settings.iterations;
    match (ran, settings.solver) {
        (PbSolver::Newton, _) => {
            let mean = solve.mean_iterations().map_or(String::new(), |m| format!("{m:.1} of "));
            let residual = solve.max_residual;
            let most = n * newton_steps;
            let newton = if newton_steps > 1 { format!(" over {newton_steps} Newton steps") } else { String::new() };
            format!("Newton–PCG, {mean}at most {most} CG iterations a step{newton}, residual ≤ {residual:.1e}")
        }
        (PbSolver::Constraints, PbSolver::Newton) => {
            format!("{n} constraint iterations a step (Newton–PCG needs a dense grid)")
        }
        (PbSolver::Constraints, PbSolver::Constraints) => format!("{n} constraint iterations a step"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_water_line_says_iterations_and_shortfalls() {
        let settings = WaterSettings::default();
        let status = FrameStatus { fastest: 1.0, iterations: 12, volume_iterations: 4, unconverged: 0, budget: 16 };
        let line = "12 iterations at most (cap 100), multigrid to 1e-6; volume correction 4 to 1e-4";
        assert_eq!(water_line(&status, &settings), line);
        let short = FrameStatus { unconverged: 3, ..status };
        assert_eq!(water_line(&short, &settings), format!("{line}, 3 stopped short"));
    }

    #[test]
    fn the_solve_line_says_what_ran() {
        let newton = PbmpmSettings { solver: PbSolver::Newton, iterations: 10, ..PbmpmSettings::default() };
        let solve = SolveTotals { steps: 4, iterations: 25, max_residual: 0.0123 };
        let line = solve_line(PbSolver::Newton, &newton, 1, &solve);
        assert_eq!(line, "Newton–PCG, 6.2 of at most 10 CG iterations a step, residual ≤ 1.2e-2");
        let quiet = solve_line(PbSolver::Newton, &newton, 1, &SolveTotals::default());
        assert_eq!(quiet, "Newton–PCG, at most 10 CG iterations a step, residual ≤ 0.0e0");
        // Sand's three Newton steps a step: up to three times the iterations.
        let sand = solve_line(PbSolver::Newton, &newton, 3, &solve);
        assert_eq!(sand, "Newton–PCG, 6.2 of at most 30 CG iterations a step over 3 Newton steps, residual ≤ 1.2e-2");
        let fallback = solve_line(PbSolver::Constraints, &newton, 1, &SolveTotals::default());
        assert_eq!(fallback, "10 constraint iterations a step (Newton–PCG needs a dense grid)");
        let constraints = PbmpmSettings { solver: PbSolver::Constraints, iterations: 5, ..newton };
        assert_eq!(
            solve_line(PbSolver::Constraints, &constraints, 1, &SolveTotals::default()),
            "5 constraint iterations a step"
        );
    }

    #[test]
    fn ratios_keep_two_significant_digits() {
        assert_eq!(short_ratio(0.06), "0.06");
        assert_eq!(short_ratio(0.0013), "0.0013");
        assert_eq!(short_ratio(0.9), "0.9");
        assert_eq!(short_ratio(1.234), "1.23");
        assert_eq!(short_ratio(0.0), "0");
        assert_eq!(short_ratio(f64::NAN), "0");
    }

    /// A small scene's solver memory (a few MB) reads in MB, not as "0.00 GB".
    #[test]
    fn memory_reads_in_the_unit_that_shows_it() {
        assert_eq!(bytes_text(4_200_000), "4.20 MB");
        assert_eq!(bytes_text(35_600_000), "35.6 MB");
        assert_eq!(bytes_text(2_340_000_000), "2.34 GB");
        assert_eq!(bytes_text(512_000), "512 kB");
    }
}
