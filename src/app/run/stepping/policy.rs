//! The stepping rules: how many substeps a batch gets, how long a UI frame waits for one, how
//! fast the simulation runs against the wall clock and how far the snow can have moved.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use powder::sim::explicit::substep;

use crate::app::run::timing::MAX_TIMED_SUBSTEPS;

/// Real-time mode never tries to catch up more than this much lag, seconds: after a stall (a
/// grid rebuild, a dragged window) the simulation resumes instead of running in slow motion.
pub const MAX_CATCH_UP: f64 = 0.1;
// The substeps of a frame's first submission are the ones timed (Solver::submit_batch); the
// timer has room for them all.
const _: () = assert!(substep::SUBSTEPS_PER_SUBMIT <= MAX_TIMED_SUBSTEPS);
/// Weight of the newest sample in the moving average of the cost per substep.
pub const AVERAGING: f64 = 0.1;
/// The simulation rate is measured over this much of the latest wall-clock time...
pub const RATE_WINDOW: Duration = Duration::from_secs(3);
/// ...and is not shown until it covers at least this much.
pub const MIN_RATE_WINDOW: Duration = Duration::from_secs(1);
/// Below this many simulated seconds per wall second the simulation counts as behind real time.
pub const BEHIND_REAL_TIME: f64 = 0.9;
/// The simulation budget per UI frame a stepper starts with, wall-clock milliseconds.
pub const DEFAULT_BUDGET_MS: f64 = 20.0;
/// Where the simulation has a device of its own, the wall-clock milliseconds a batch is sized to:
/// long enough that the UI's polls (once a UI frame) rarely find the simulation's queue idle,
/// short enough that Pause and Reset stop it soon and the view follows it several times a second.
pub const OWN_DEVICE_BATCH_MS: f64 = 250.0;

/// What one frame simulated.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameSim {
    /// Substeps run.
    pub substeps: u32,
    /// The last one's length, seconds (under auto dt each substep has its own).
    pub dt: f64,
    /// Simulated seconds the substeps covered.
    pub span: f64,
    /// The largest ratio of a substep's dt to the stable dt of the state it stepped.
    pub max_dt_ratio: f64,
    /// Wall-clock milliseconds from submitting its batches to seeing them finished, summed.
    pub sim_ms: f64,
    /// The UI frames it took (at least one).
    pub ui_frames: u32,
}

/// What the simulation did during one UI frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UiFrameSim {
    /// Batches submitted.
    pub batches: u32,
    /// Substeps in them.
    pub substeps: u32,
    /// Batches seen finished.
    pub collected: u32,
    /// Frames of the simulation finished.
    pub frames_finished: u32,
    /// Simulated seconds the finished batches covered.
    pub advanced: f64,
    /// Simulated seconds of their frame before them (for the motion bound).
    pub(super) time_before: f64,
    /// The fastest particle at the start of their frame, m/s.
    pub(super) start_speed: Option<f64>,
}

/// The scene's time settings a frame needs.
#[derive(Clone, Copy, Debug)]
pub struct SceneTime {
    /// Courant number of the stable dt.
    pub cfl: f64,
    /// Simulated seconds of one scene frame.
    pub frame_duration: f64,
}

/// What the caller readies the solver for before substeps run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Prepare {
    /// A frame of `span` simulated seconds starts at `sim_time` (its colliders).
    Frame {
        /// Simulated seconds at the frame's start.
        sim_time: f64,
        /// Its length, seconds.
        span: f64,
    },
    /// A batch of about `span` simulated seconds is about to be submitted (the mouse tool).
    Batch {
        /// Its expected length, seconds.
        span: f64,
    },
}

/// Substeps of a frame's next batch: as many as `budget_left_ms` (what is left of the UI frame's
/// simulation budget) holds at `substep_ms` each, at most `left` (what the frame still needs), and
/// at least one in a UI frame's `first` batch, so that the simulation always moves however costly
/// a substep is. Before the cost is measured, one. Zero: submit nothing more this UI frame.
pub fn batch_substeps(budget_left_ms: f64, first: bool, substep_ms: Option<f64>, left: u32) -> u32 {
    let fits = match substep_ms {
        Some(ms) if ms > 0.0 && budget_left_ms > 0.0 => (budget_left_ms / ms).floor().min(u32::MAX as f64) as u32,
        Some(ms) if ms > 0.0 => 0,
        // Not measured (or free): one substep, to measure it.
        _ => 1,
    };
    let least = u32::from(first);
    fits.max(least).min(left)
}

/// How long a UI frame waits for the batch in flight: what is left of its budget where the batch
/// is expected to end within it (it then ends in time for the next batch or the draw to follow),
/// else not at all: the batch is looked at again next UI frame.
pub fn batch_wait(budget_left_ms: f64, expected_left_ms: Option<f64>) -> Duration {
    match expected_left_ms {
        Some(expected) if budget_left_ms > 0.0 && expected <= budget_left_ms => {
            Duration::from_secs_f64(budget_left_ms / 1e3)
        }
        _ => Duration::ZERO,
    }
}

/// A coarser grid resolution to try at `ratio` simulated seconds per wall second, from
/// `resolution` cells along the longest edge; `None` if there is none below it. With the scene's
/// particles per cell (after a reset), a substep's cost scales with the cells and the substeps per
/// second with 1/h: the cost of a simulated second grows as the resolution to the fourth, so
/// `resolution · ratio^¼` should keep real time. Rounded to a multiple of 8, at least 8, and at
/// most a halving at a time: a grid far coarser than the scene was made for loses its shapes, and
/// the line offers the next step if it is still behind.
pub fn coarser_resolution(resolution: u32, ratio: f64) -> Option<u32> {
    if ratio.is_nan() || ratio <= 0.0 || ratio >= 1.0 || resolution <= 8 {
        return None;
    }
    let ideal = (resolution as f64 * ratio.powf(0.25)).max(resolution as f64 / 2.0);
    let rounded = ((ideal / 8.0).round() as u32 * 8).max(8);
    let coarser = if rounded >= resolution { resolution.saturating_sub(8).max(8) } else { rounded };
    (coarser < resolution).then_some(coarser)
}

/// Simulated seconds per wall-clock second over the last [`RATE_WINDOW`] of stepping.
#[derive(Default)]
pub struct RateMeter {
    pub samples: VecDeque<(Instant, f64)>,
}

impl RateMeter {
    pub fn sample(&mut self, now: Instant, progress: f64) {
        self.samples.push_back((now, progress));
        while self.samples.len() > 2 && self.samples.get(1).is_some_and(|s| now - s.0 >= RATE_WINDOW) {
            self.samples.pop_front();
        }
    }

    pub fn clear(&mut self) {
        self.samples.clear();
    }

    pub fn ratio(&self) -> Option<f64> {
        let (&(t0, s0), &(t1, s1)) = (self.samples.front()?, self.samples.back()?);
        let wall = t1 - t0;
        (wall >= MIN_RATE_WINDOW).then(|| (s1 - s0).max(0.0) / wall.as_secs_f64())
    }
}

/// How far a particle starting at most at `speed` (m/s) gets in `span` seconds with gravity
/// (m/s²) its only accelerating force: (speed + |g|·span)·span, the distance at the largest speed
/// it can then reach. Zero for no time; `None` when the speed is unknown or the result not finite.
pub fn motion_bound(span: f64, speed: Option<f64>, gravity: f64) -> Option<f64> {
    if span == 0.0 {
        return Some(0.0);
    }
    let bound = (speed? + gravity.abs() * span) * span;
    bound.is_finite().then_some(bound)
}
