//! How much simulated time each frame advances, and running those substeps: real time within a
//! budget, a fixed number of substeps, or one scene frame per displayed frame (see [`StepMode`]).

use std::time::Instant;

use powder::gpu::Gpu;
use powder::runner::plan_frame;
use powder::scene::TimeStep;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::explicit::substep;
use powder::sim::params::MAX_SUBSTEPS_PER_FRAME;
use powder::sim::{Solver, SolverStats};

use super::events::{AppEvent, StepMode};
use super::messages::Messages;
use super::timing::{MAX_TIMED_SUBSTEPS, PassTimer};

/// Real-time mode never tries to catch up more than this much lag, seconds: after a stall (a
/// grid rebuild, a dragged window) the simulation resumes instead of running in slow motion.
const MAX_CATCH_UP: f64 = 0.1;
// The substeps of a frame's first submission are the ones timed (Solver::step_timed); the timer
// has room for them all.
const _: () = assert!(substep::SUBSTEPS_PER_SUBMIT <= MAX_TIMED_SUBSTEPS);
/// Weight of the newest sample in the moving averages of substep cost and real-time ratio.
const AVERAGING: f64 = 0.1;

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
    /// Wall-clock milliseconds from recording the substeps to their completion.
    pub sim_ms: f64,
}

/// The scene's time settings a frame needs.
#[derive(Clone, Copy, Debug)]
pub struct SceneTime {
    /// Courant number of the stable dt.
    pub cfl: f64,
    /// Simulated seconds of one scene frame.
    pub frame_duration: f64,
}

/// Stepping policy and what the last frames measured.
pub struct Stepper {
    mode: StepMode,
    substeps: u32,
    auto_dt: bool,
    fixed_dt: f64,
    budget_ms: f64,
    paused: bool,
    step_requested: bool,
    debt: f64,
    sim_time: f64,
    total_substeps: u64,
    last: FrameSim,
    max_dt_ratio: f64,
    stable_dt: f64,
    stats: Option<SolverStats>,
    timer: Option<PassTimer>,
    pass_ms: Option<[f64; 4]>,
    substep_ms: f64,
    realtime_ratio: f64,
    behind: bool,
}

impl Stepper {
    /// A stepper in `mode`, with auto dt or `fixed_dt` seconds.
    pub fn new(gpu: &Gpu, mode: StepMode, auto_dt: bool, fixed_dt: f64) -> Self {
        Self {
            mode,
            substeps: 20,
            auto_dt,
            fixed_dt,
            budget_ms: 30.0,
            paused: false,
            step_requested: false,
            debt: 0.0,
            sim_time: 0.0,
            total_substeps: 0,
            last: FrameSim::default(),
            max_dt_ratio: 0.0,
            stable_dt: fixed_dt,
            stats: None,
            // A software driver's timestamps measure when work is issued, not how long it runs
            // (lavapipe reports ~0.1 ms passes inside 9 ms substeps); the wall clock tells more there.
            timer: if gpu.info.device_type == wgpu::DeviceType::Cpu { None } else { PassTimer::new(gpu) },
            pass_ms: None,
            substep_ms: 0.0,
            realtime_ratio: 0.0,
            behind: false,
        }
    }

    /// Takes over the user's choices (mode, substeps, budget, pause) from `old` (a new scene).
    pub fn keep_choices_of(&mut self, old: &Stepper) {
        (self.mode, self.substeps, self.budget_ms, self.paused) = (old.mode, old.substeps, old.budget_ms, old.paused);
    }

    /// Applies a stepping event; returns `false` for events that are not about stepping.
    pub fn apply(&mut self, event: &AppEvent) -> bool {
        match *event {
            AppEvent::SetStepMode(mode) => {
                self.mode = mode;
                self.debt = 0.0;
            }
            AppEvent::SetSubsteps(n) => self.substeps = n.clamp(1, MAX_SUBSTEPS_PER_FRAME),
            AppEvent::SetDt(dt) => self.fixed_dt = dt.clamp(1e-7, 0.1),
            AppEvent::SetAutoDt(on) => self.auto_dt = on,
            AppEvent::SetRealTimeBudget(ms) => self.budget_ms = ms.clamp(1.0, 1000.0),
            AppEvent::TogglePause => self.paused = !self.paused,
            AppEvent::Step => {
                self.paused = true;
                self.step_requested = true;
            }
            _ => return false,
        }
        true
    }

    /// Time back to zero (reset or new particles).
    pub fn restart(&mut self) {
        self.sim_time = 0.0;
        self.total_substeps = 0;
        self.debt = 0.0;
        self.stats = None;
        self.max_dt_ratio = 0.0;
    }

    /// Simulates one frame: `wall_dt` seconds of wall clock passed since the last one. The frame's
    /// span of simulated time is planned from the stable dt at its start (a scene frame, the
    /// substeps per frame, or the real-time budget); with auto dt the GPU then chooses each
    /// substep's dt from the state it steps ([`Solver::step_frame`]), taking more substeps than
    /// planned where the snow stiffens. Once the span is known, `prepare(solver, sim_time, span)`
    /// readies the solver for it (the tool, the colliders of simulated time
    /// `sim_time .. sim_time + span`; `span` is zero when the frame runs no substeps); its error is
    /// shown and the frame runs anyway.
    pub fn advance(
        &mut self,
        gpu: &Gpu,
        solver: &mut Solver,
        time: SceneTime,
        wall_dt: f64,
        messages: &mut Messages,
        prepare: impl FnOnce(&mut Solver, f64, f64) -> Result<(), String>,
    ) {
        self.last = FrameSim::default();
        if self.paused && !self.step_requested {
            return;
        }
        let single = std::mem::take(&mut self.step_requested);
        let (stable, stats) = match solver.stable_dt(gpu, time.cfl) {
            Ok(v) => v,
            Err(e) => {
                messages.error(format!("reading the solver's stats failed: {e}"));
                return;
            }
        };
        self.stable_dt = stable;
        self.stats = Some(stats);
        let dt = if self.auto_dt { stable } else { self.fixed_dt };
        let (substeps, dt) = if single || self.mode == StepMode::SceneFrames {
            let step = if self.auto_dt { TimeStep::Auto } else { TimeStep::Fixed(self.fixed_dt) };
            let (n, dt, _capped) = plan_frame(time.frame_duration, step, stable);
            (n, dt)
        } else if self.mode == StepMode::FixedSubsteps {
            (self.substeps, dt)
        } else {
            self.plan_real_time(wall_dt, dt)
        };
        let span = substeps as f64 * dt;
        if let Err(e) = prepare(solver, self.sim_time, span) {
            messages.error(e);
        }
        if substeps == 0 {
            return;
        }
        let step = if self.auto_dt {
            FrameStep::Auto { max_substeps: MAX_SUBSTEPS_PER_FRAME }
        } else {
            FrameStep::Fixed { dt, substeps }
        };
        let start = Instant::now();
        // The frame's substeps are one collider frame: `prepare` gave the solver the colliders at
        // the frame's start and end, and each substep sees them as far through as its time. The
        // first submission's substeps are timed.
        let timer = self.timer.as_ref().map(|t| t as &dyn substep::SubstepTimer);
        let report = match solver.step_frame(gpu, span, step, timer) {
            Ok(report) => report,
            Err(e) => {
                messages.error(format!("reading the substep clock failed: {e}"));
                return;
            }
        };
        gpu.wait_idle();
        let sim_ms = start.elapsed().as_secs_f64() * 1e3;
        let substeps = report.substeps.max(1);
        let timed = substeps.min(substep::SUBSTEPS_PER_SUBMIT);
        self.pass_ms = self.timer.as_ref().and_then(|t| t.read(gpu, timed)).or(self.pass_ms);
        let per_substep = sim_ms / substeps as f64;
        self.substep_ms = if self.substep_ms > 0.0 {
            AVERAGING * per_substep + (1.0 - AVERAGING) * self.substep_ms
        } else {
            per_substep
        };
        // The span, not the clock's f32 sum of it (within 1e-5 of it): the colliders' animation
        // and the next frame's start are on this time.
        self.sim_time += span;
        self.total_substeps += report.substeps as u64;
        if wall_dt > 0.0 && !single {
            let ratio = span / wall_dt;
            self.realtime_ratio = AVERAGING * ratio + (1.0 - AVERAGING) * self.realtime_ratio;
        }
        self.max_dt_ratio = self.max_dt_ratio.max(report.max_ratio);
        let (dt, max_dt_ratio) = (report.last_dt, report.max_ratio);
        self.last = FrameSim { substeps: report.substeps, dt, span, max_dt_ratio, sim_ms };
    }

    /// Real-time mode: the substeps that pay off the simulated time owed, as many as fit the budget.
    fn plan_real_time(&mut self, wall_dt: f64, dt: f64) -> (u32, f64) {
        self.debt = (self.debt + wall_dt).min(MAX_CATCH_UP);
        let wanted = ((self.debt / dt).floor() as u32).min(MAX_SUBSTEPS_PER_FRAME);
        let affordable = if self.substep_ms > 0.0 {
            ((self.budget_ms / self.substep_ms).floor() as u32).max(1)
        } else {
            1 // first frame: measure the cost of one substep before committing to more
        };
        let n = wanted.min(affordable);
        self.behind = n < wanted;
        // When behind, the rest is dropped: owing more would only make the next frame slower.
        self.debt = if self.behind { 0.0 } else { self.debt - n as f64 * dt };
        (n, dt)
    }

    /// Paused?
    pub fn paused(&self) -> bool {
        self.paused
    }
    /// Stepping mode, substeps per frame, auto dt, fixed dt and real-time budget (ms).
    pub fn settings(&self) -> (StepMode, u32, bool, f64, f64) {
        (self.mode, self.substeps, self.auto_dt, self.fixed_dt, self.budget_ms)
    }
    /// Simulated seconds and substeps since the last reset.
    pub fn sim_time(&self) -> (f64, u64) {
        (self.sim_time, self.total_substeps)
    }
    /// The last frame's substeps.
    pub fn last_frame(&self) -> FrameSim {
        self.last
    }
    /// The stable dt measured at the start of the last simulated frame, seconds.
    pub fn stable_dt(&self) -> f64 {
        self.stable_dt
    }
    /// The largest ratio of a substep's dt to the stable dt of the state it stepped since the last
    /// reset (at most 1 under auto dt).
    pub fn max_dt_ratio(&self) -> f64 {
        self.max_dt_ratio
    }
    /// An estimate, in metres, of how far any particle moved during the last frame's substeps:
    /// the fastest particle at the frame's start, sped up by `gravity` (m/s²) for the whole frame.
    /// Stress can speed particles up too; it is left out (the renderer's tolerance, half a voxel,
    /// is several frames' motion at one substep per frame). Zero when the frame ran none, `None`
    /// without stats. Forces the stats do not see (the mouse tool, moving colliders) are the
    /// caller's to rule out.
    pub fn motion_bound(&self, gravity: f64) -> Option<f64> {
        motion_bound(self.last.span, self.stats.map(|s| s.max_speed), gravity)
    }
    /// The last stats.
    pub fn stats(&self) -> Option<SolverStats> {
        self.stats
    }
    /// GPU milliseconds of each pass per substep, if the device has (meaningful) timestamps.
    pub fn pass_ms(&self) -> Option<[f64; 4]> {
        self.pass_ms
    }
    /// Real-time mode: simulated seconds per wall-clock second (averaged) and whether the last
    /// frame fell behind for lack of budget.
    pub fn real_time(&self) -> (f64, bool) {
        (self.realtime_ratio, self.behind)
    }
}

/// How far a particle starting at most at `speed` (m/s) gets in `span` seconds with gravity
/// (m/s²) its only accelerating force: (speed + |g|·span)·span, the distance at the largest speed
/// it can then reach. Zero for no time; `None` when the speed is unknown or the result not finite.
fn motion_bound(span: f64, speed: Option<f64>, gravity: f64) -> Option<f64> {
    if span == 0.0 {
        return Some(0.0);
    }
    let bound = (speed? + gravity.abs() * span) * span;
    bound.is_finite().then_some(bound)
}

#[cfg(test)]
mod tests {
    use super::motion_bound;

    #[test]
    fn the_motion_bound_is_the_distance_at_the_largest_reachable_speed() {
        // 8 m/s for 1 ms under 9.81 m/s²: (8 + 0.00981) · 0.001 m.
        let bound = motion_bound(1e-3, Some(8.0), -9.81).expect("known");
        assert!((bound - 8.00981e-3).abs() < 1e-12, "{bound}");
        // The exact free-fall distance from rest, g·t²/2, is within it.
        let t: f64 = 0.05;
        assert!(motion_bound(t, Some(0.0), 9.81).expect("known") >= 0.5 * 9.81 * t * t);
        assert_eq!(motion_bound(0.0, None, 9.81), Some(0.0));
        assert_eq!(motion_bound(1e-3, None, 9.81), None);
        assert_eq!(motion_bound(1e-3, Some(f64::INFINITY), 9.81), None);
    }
}
