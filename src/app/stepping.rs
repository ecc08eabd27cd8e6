//! How much simulated time each frame advances, and running those substeps without holding up
//! the UI: real time within a budget, a fixed number of substeps, or one scene frame per frame
//! (see [`StepMode`]).
//!
//! A *frame* of the simulation (a scene frame, a real-time chunk, or N substeps) no longer has to
//! fit in one UI frame. Each UI frame the stepper looks at the batch of substeps it last submitted
//! (without waiting, or waiting only for the part of its budget the batch is expected to need),
//! and submits the next batch only once that one is done: at most as many substeps as the
//! simulation budget holds at the measured cost per substep ([`batch_substeps`]), and at least one
//! in a UI frame's first batch so that the simulation always moves. The frame's substeps carry on
//! across batches on the GPU's clock ([`Solver::submit_batch`]), so a frame split over many UI
//! frames simulates exactly what one uninterrupted frame would. A UI frame thus never blocks on
//! more than its budget, however long the simulation takes; Pause, Reset and the settings act at
//! the next UI frame (a batch already running finishes first: the GPU cannot stop it).
//!
//! A per-frame budget rather than a simulation thread: wgpu's device is driven from the UI
//! thread either way, and a thread would add locking around the solver without freeing the queue.
//! On a software driver, where one substep can take longer than a whole UI frame, the app gives
//! the simulation a device (and queue) of its own ([`super::shown`]), so the window's drawing is
//! not queued behind it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use powder::gpu::{Gpu, PendingRead};
use powder::runner::plan_frame;
use powder::scene::TimeStep;
use powder::sim::explicit::clock::{FrameStep, GpuSubstepClock};
use powder::sim::explicit::substep;
use powder::sim::params::MAX_SUBSTEPS_PER_FRAME;
use powder::sim::solver::{Batch, PendingStats};
use powder::sim::{Solver, SolverStats};

use super::events::{AppEvent, StepMode};
use super::messages::Messages;
use super::timing::{MAX_TIMED_SUBSTEPS, PassTimer};

/// Real-time mode never tries to catch up more than this much lag, seconds: after a stall (a
/// grid rebuild, a dragged window) the simulation resumes instead of running in slow motion.
const MAX_CATCH_UP: f64 = 0.1;
// The substeps of a frame's first submission are the ones timed (Solver::submit_batch); the
// timer has room for them all.
const _: () = assert!(substep::SUBSTEPS_PER_SUBMIT <= MAX_TIMED_SUBSTEPS);
/// Weight of the newest sample in the moving average of the cost per substep.
const AVERAGING: f64 = 0.1;
/// The simulation rate is measured over this much of the latest wall-clock time...
const RATE_WINDOW: Duration = Duration::from_secs(3);
/// ...and is not shown until it covers at least this much.
const MIN_RATE_WINDOW: Duration = Duration::from_secs(1);
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
    time_before: f64,
    /// The fastest particle at the start of their frame, m/s.
    start_speed: Option<f64>,
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
struct RateMeter {
    samples: VecDeque<(Instant, f64)>,
}

impl RateMeter {
    fn sample(&mut self, now: Instant, progress: f64) {
        self.samples.push_back((now, progress));
        while self.samples.len() > 2 && self.samples.get(1).is_some_and(|s| now - s.0 >= RATE_WINDOW) {
            self.samples.pop_front();
        }
    }

    fn clear(&mut self) {
        self.samples.clear();
    }

    fn ratio(&self) -> Option<f64> {
        let (&(t0, s0), &(t1, s1)) = (self.samples.front()?, self.samples.back()?);
        let wall = t1 - t0;
        (wall >= MIN_RATE_WINDOW).then(|| (s1 - s0).max(0.0) / wall.as_secs_f64())
    }
}

/// A frame of the simulation being stepped, possibly over many UI frames.
struct Frame {
    span: f64,
    step: FrameStep,
    /// The stable dt at its start, seconds.
    stable: f64,
    /// The fastest particle at its start, m/s.
    start_speed: f64,
    /// The GPU's clock as the last finished batch left it.
    clock: GpuSubstepClock,
    /// Substeps submitted.
    recorded: u32,
    /// Substeps of its first submission (those timed), once submitted.
    timed: Option<u32>,
    sim_ms: f64,
    ui_frames: u32,
    /// A requested single step (runs while paused).
    single: bool,
    /// The settings it was planned with changed: it ends once its batch in flight is back.
    cut: bool,
}

impl Frame {
    /// Substeps it still needs: the rest of a planned frame, or an estimate from the stable dt for
    /// an auto frame (the GPU's clock decides; substeps recorded past its end are empty).
    fn left(&self) -> u32 {
        match self.step {
            FrameStep::Fixed { substeps, .. } => substeps.saturating_sub(self.recorded),
            FrameStep::Auto { max_substeps } => {
                let estimate = (self.remaining() / self.stable_now()).ceil();
                let estimate = if estimate.is_finite() { estimate.clamp(1.0, u32::MAX as f64) as u32 } else { 1 };
                estimate.min(max_substeps.saturating_sub(self.recorded).max(1))
            }
        }
    }

    fn remaining(&self) -> f64 {
        (self.span - self.clock.time as f64).max(0.0)
    }

    /// The stable dt of the latest state the clock measured, else the frame's start.
    fn stable_now(&self) -> f64 {
        let measured = self.clock.stable_dt as f64;
        if self.clock.substeps > 0 && measured.is_finite() && measured > 0.0 { measured } else { self.stable }
    }

    /// Simulated seconds `n` more substeps are expected to cover.
    fn span_of(&self, n: u32) -> f64 {
        match self.step {
            FrameStep::Fixed { dt, .. } => n as f64 * dt,
            FrameStep::Auto { .. } => (n as f64 * self.stable_now()).min(self.remaining()),
        }
    }
}

/// A batch submitted and not yet seen finished.
struct InFlight {
    batch: Batch,
    submitted: Instant,
    /// Wall-clock milliseconds it is expected to take (from the measured cost per substep).
    expected_ms: Option<f64>,
    /// Its frame was dropped (reset, new particles): what it reports is ignored.
    orphan: bool,
}

/// Stepping policy, the frame in progress and what the last frames measured.
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
    frames_finished: u64,
    last: FrameSim,
    ui: UiFrameSim,
    max_dt_ratio: f64,
    stable_dt: f64,
    stats: Option<SolverStats>,
    timer: Option<PassTimer>,
    pass_ms: Option<[f64; 4]>,
    substep_ms: Option<f64>,
    frame: Option<Frame>,
    in_flight: Option<InFlight>,
    /// The stats a new frame is planned from, on their way back.
    stats_pending: Option<PendingStats>,
    /// The simulation has a device of its own: its batches do not hold up the window's drawing.
    own_device: bool,
    rate: RateMeter,
}

impl Stepper {
    /// A stepper in `mode`, with auto dt or `fixed_dt` seconds.
    pub fn new(gpu: &Gpu, mode: StepMode, auto_dt: bool, fixed_dt: f64) -> Self {
        Self {
            mode,
            substeps: 20,
            auto_dt,
            fixed_dt,
            budget_ms: DEFAULT_BUDGET_MS,
            paused: false,
            step_requested: false,
            debt: 0.0,
            sim_time: 0.0,
            total_substeps: 0,
            frames_finished: 0,
            last: FrameSim::default(),
            ui: UiFrameSim::default(),
            max_dt_ratio: 0.0,
            stable_dt: fixed_dt,
            stats: None,
            // A software driver's timestamps measure when work is issued, not how long it runs
            // (lavapipe reports ~0.1 ms passes inside 9 ms substeps); the wall clock tells more there.
            timer: if gpu.info.device_type == wgpu::DeviceType::Cpu { None } else { PassTimer::new(gpu) },
            pass_ms: None,
            substep_ms: None,
            frame: None,
            in_flight: None,
            stats_pending: None,
            own_device: false,
            rate: RateMeter::default(),
        }
    }

    /// Takes over the user's choices (mode, substeps, budget, pause) from `old` (a new scene), and
    /// its device's place.
    pub fn keep_choices_of(&mut self, old: &Stepper) {
        (self.mode, self.substeps, self.budget_ms, self.paused) = (old.mode, old.substeps, old.budget_ms, old.paused);
        self.own_device = old.own_device;
    }

    /// Says that the simulation's device is its own, not the window's: its batches are then sized
    /// to [`OWN_DEVICE_BATCH_MS`] instead of the budget per UI frame, and a UI frame never waits
    /// for them.
    pub fn set_own_device(&mut self, own: bool) {
        self.own_device = own;
    }

    /// The solver's state was changed by an event: stats read before it no longer describe it.
    pub fn state_changed(&mut self) {
        self.stats_pending = None;
    }

    /// Wall-clock milliseconds of simulation work a batch is sized to: the budget per UI frame, or
    /// where the simulation has its own device, [`OWN_DEVICE_BATCH_MS`].
    fn batch_budget_ms(&self) -> f64 {
        if self.own_device { OWN_DEVICE_BATCH_MS } else { self.budget_ms }
    }

    /// Applies a stepping event; returns `false` for events that are not about stepping. A change
    /// to how frames are planned (mode, substeps, dt) ends the frame in progress where its batch
    /// in flight leaves it, so that the next frame follows the new settings.
    pub fn apply(&mut self, event: &AppEvent) -> bool {
        match *event {
            AppEvent::SetStepMode(mode) => {
                self.mode = mode;
                self.debt = 0.0;
                self.cut_frame();
            }
            AppEvent::SetSubsteps(n) => {
                self.substeps = n.clamp(1, MAX_SUBSTEPS_PER_FRAME);
                self.cut_frame();
            }
            AppEvent::SetDt(dt) => {
                self.fixed_dt = dt.clamp(1e-7, 0.1);
                self.cut_frame();
            }
            AppEvent::SetAutoDt(on) => {
                self.auto_dt = on;
                self.cut_frame();
            }
            AppEvent::SetRealTimeBudget(ms) => self.budget_ms = ms.clamp(1.0, 1000.0),
            AppEvent::TogglePause => {
                self.paused = !self.paused;
                self.rate.clear(); // time spent paused is not behind real time
            }
            AppEvent::Step => {
                self.paused = true;
                self.step_requested = true;
                self.rate.clear();
            }
            _ => return false,
        }
        true
    }

    /// Ends the frame in progress where its batch in flight leaves it (the next one is planned
    /// anew): its plan no longer holds, or the solver's state was rebuilt under it.
    pub fn cut_frame(&mut self) {
        if let Some(frame) = &mut self.frame {
            frame.cut = true;
        }
    }

    /// Time back to zero (reset or new particles): the frame in progress is dropped, and a batch
    /// still running is waited out (without blocking) and ignored.
    pub fn restart(&mut self) {
        self.sim_time = 0.0;
        self.total_substeps = 0;
        self.debt = 0.0;
        self.stats = None;
        self.max_dt_ratio = 0.0;
        self.frame = None;
        self.stats_pending = None;
        if let Some(flight) = &mut self.in_flight {
            flight.orphan = true;
        }
        self.rate.clear();
    }

    /// Time set to `sim_time` (a kept frame restored): as [`Stepper::restart`], from there.
    pub fn go_to(&mut self, sim_time: f64) {
        self.restart();
        self.sim_time = sim_time;
    }

    /// Starts a UI frame's share of the simulation: `wall_dt` seconds of wall clock passed since
    /// the last one. Then [`Stepper::step`], once or more.
    pub fn start_ui_frame(&mut self, wall_dt: f64) {
        self.ui = UiFrameSim::default();
        if let Some(frame) = &mut self.frame {
            frame.ui_frames += 1;
        }
        if self.mode == StepMode::RealTime && !self.paused {
            self.debt = (self.debt + wall_dt).min(MAX_CATCH_UP);
        }
    }

    /// [`Stepper::start_ui_frame`] and one [`Stepper::step`].
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)]
    pub fn advance(
        &mut self,
        gpu: &Gpu,
        solver: &mut Solver,
        time: SceneTime,
        wall_dt: f64,
        hold: bool,
        messages: &mut Messages,
        prepare: impl FnMut(&mut Solver, Prepare) -> Result<(), String>,
        copy: &mut dyn FnMut(&Solver, &mut wgpu::CommandEncoder) -> Option<PendingRead>,
    ) {
        self.start_ui_frame(wall_dt);
        self.step(gpu, solver, time, hold, false, messages, prepare, copy);
    }

    /// The simulation's work in a UI frame. First the batch in flight is looked at: if the GPU
    /// has finished it, its frame moves on by what it covered (and ends, if it did: then the next
    /// frame starts only once this UI frame has been `drawn`, so that the finished frame is
    /// shown). Then, unless paused or `hold`, the next batch is submitted (a new frame planned
    /// first if none is in progress), and more while the budget lasts and each is back in time.
    ///
    /// A frame's span of simulated time is planned from the stable dt at its start (a scene frame,
    /// the substeps per frame, or the real-time budget); with auto dt the GPU then chooses each
    /// substep's dt from the state it steps, taking more substeps than planned where the snow
    /// stiffens. `prepare` readies the solver: [`Prepare::Frame`] when a frame with substeps
    /// starts (its colliders), [`Prepare::Batch`] before each batch (the mouse tool); its error is
    /// shown and the substeps run anyway. `copy` records into each batch's last submission (the
    /// copy of the particles the window draws, where the simulation has a device of its own).
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        gpu: &Gpu,
        solver: &mut Solver,
        time: SceneTime,
        hold: bool,
        drawn: bool,
        messages: &mut Messages,
        mut prepare: impl FnMut(&mut Solver, Prepare) -> Result<(), String>,
        copy: &mut dyn FnMut(&Solver, &mut wgpu::CommandEncoder) -> Option<PendingRead>,
    ) {
        let start = Instant::now();
        let spent_ms = || start.elapsed().as_secs_f64() * 1e3;
        // The budget left in this UI frame, and how long it may wait for the GPU: not at all where
        // the simulation has its own device (its work does not hold up the drawing).
        let budget = self.batch_budget_ms();
        let own_device = self.own_device;
        let left_ms = |spent: f64| if own_device { 0.0 } else { budget - spent };
        loop {
            if let Some(flight) = &self.in_flight {
                let expected_left = flight.expected_ms.map(|ms| ms - flight.submitted.elapsed().as_secs_f64() * 1e3);
                gpu.poll(Some(&flight.batch.submission), Some(batch_wait(left_ms(spent_ms()), expected_left)));
                let Some(result) = solver.batch_clock(&flight.batch) else { break };
                let Some(flight) = self.in_flight.take() else { break };
                match result {
                    Err(e) => {
                        messages.error(format!("reading the substep clock failed: {e}"));
                        self.frame = None;
                        break;
                    }
                    Ok(_) if flight.orphan => continue,
                    Ok(clock) => {
                        if self.collect(gpu, clock, &flight) {
                            break;
                        }
                        continue;
                    }
                }
            }
            if hold {
                break;
            }
            if let Some(pending) = &self.stats_pending {
                // The stats pass is short, and nothing else of the simulation is in flight: the UI
                // frame waits for it within its budget.
                let wait = Duration::from_secs_f64((self.budget_ms - spent_ms()).max(0.0) / 1e3);
                gpu.poll(Some(&pending.submission), Some(wait));
                let Some(result) = solver.take_stats(pending) else { break };
                self.stats_pending = None;
                match result {
                    Ok(stats) => {
                        let stable = solver.stable_dt_of(gpu, &stats, time.cfl);
                        if !self.begin(gpu, solver, stable, stats, time, messages, &mut prepare) {
                            break;
                        }
                    }
                    Err(e) => {
                        messages.error(format!("reading the solver's stats failed: {e}"));
                        break;
                    }
                }
            }
            if self.frame.as_ref().is_some_and(|f| f.cut) {
                self.finish_frame(gpu, true);
            }
            let single_in_progress = self.frame.as_ref().is_some_and(|f| f.single);
            if self.paused && !self.step_requested && !single_in_progress {
                break;
            }
            if self.frame.is_none() {
                // A finished frame is drawn before the next starts; real time waits for a whole dt
                // owed (the dt of the last frame: the next one's is not known yet).
                let owed = self.step_requested || self.mode != StepMode::RealTime || self.debt >= self.last_dt();
                if (self.ui.frames_finished > 0 && !drawn) || !owed {
                    break;
                }
                self.stats_pending = Some(solver.request_stats(gpu));
                continue;
            }
            let Some(frame) = &mut self.frame else { break };
            let n = batch_substeps(budget - spent_ms(), self.ui.batches == 0, self.substep_ms, frame.left());
            if n == 0 {
                break;
            }
            if let Err(e) = prepare(solver, Prepare::Batch { span: frame.span_of(n) }) {
                messages.error(e);
            }
            let timer = self.timer.as_ref().filter(|_| frame.timed.is_none());
            // On a device of its own, a batch is one submission: on a software driver a submission
            // waits until the queue's earlier work is done, so a second one would hold up this UI
            // frame. Sharing the window's device, the GPU starts on the first substeps while the
            // rest are recorded.
            let per_submit = if own_device { u32::MAX } else { substep::SUBSTEPS_PER_SUBMIT };
            let timer = timer.map(|t| t as &dyn substep::SubstepTimer);
            let batch = solver.submit_batch(gpu, frame.step, n, per_submit, timer, copy);
            if timer.is_some() {
                frame.timed = Some(n.min(per_submit));
            }
            frame.recorded += n;
            log::debug!("batch of {n} substeps submitted (frame at {:.4} of {:.4} s)", frame.clock.time, frame.span);
            let expected_ms = self.substep_ms.map(|ms| ms * n as f64);
            self.in_flight = Some(InFlight { batch, submitted: Instant::now(), expected_ms, orphan: false });
            self.ui.batches += 1;
            self.ui.substeps += n;
        }
        if self.paused && !self.step_requested && self.frame.as_ref().is_none_or(|f| !f.single) {
            self.rate.clear();
        } else {
            self.rate.sample(Instant::now(), self.progress());
        }
    }

    /// Plans a frame from the stats of the state it starts from (read back without waiting, once
    /// nothing of the simulation was in flight) and `stable`, their stable dt, and readies the
    /// solver for it; `false` if it has no substeps (real time waiting for a whole dt).
    #[allow(clippy::too_many_arguments)]
    fn begin(
        &mut self,
        gpu: &Gpu,
        solver: &mut Solver,
        stable: f64,
        stats: SolverStats,
        time: SceneTime,
        messages: &mut Messages,
        prepare: &mut impl FnMut(&mut Solver, Prepare) -> Result<(), String>,
    ) -> bool {
        let single = std::mem::take(&mut self.step_requested);
        // PB-MPM steps are as long as its settings allow at the fastest particle's speed, and each
        // is planned as a fixed step: they take the place of the stable dt.
        let pbmpm = solver.integrator().pbmpm().copied();
        let stable = match pbmpm {
            Some(s) => {
                let p = solver.params();
                s.plan_frame(time.frame_duration, stats.max_speed, p.max_speed, p.grid.cell_size).1
            }
            None => stable,
        };
        let auto_dt = self.auto_dt || pbmpm.is_some();
        self.stable_dt = stable;
        self.stats = Some(stats);
        let dt = if auto_dt { stable } else { self.fixed_dt };
        let (substeps, dt) = if single || self.mode == StepMode::SceneFrames {
            let step = if auto_dt { TimeStep::Auto } else { TimeStep::Fixed(self.fixed_dt) };
            let (n, dt, _capped) = plan_frame(time.frame_duration, step, stable);
            (n, dt)
        } else if self.mode == StepMode::FixedSubsteps {
            (self.substeps, dt)
        } else {
            (self.plan_real_time(dt), dt)
        };
        if substeps == 0 {
            return false;
        }
        let span = substeps as f64 * dt;
        log::debug!("frame planned: {substeps} substeps of {dt:e} s (stable dt {stable:e} s)");
        if let Err(e) = prepare(solver, Prepare::Frame { sim_time: self.sim_time, span }) {
            messages.error(e);
        }
        let step = if self.auto_dt && pbmpm.is_none() {
            FrameStep::Auto { max_substeps: MAX_SUBSTEPS_PER_FRAME }
        } else {
            FrameStep::Fixed { dt, substeps }
        };
        // The frame's substeps are one collider frame: `prepare` gave the solver the colliders at
        // the frame's start and end, and each substep sees them as far through as its time.
        solver.begin_frame(gpu, span, step);
        self.frame = Some(Frame {
            span,
            step,
            stable,
            start_speed: stats.max_speed,
            clock: GpuSubstepClock::for_frame(solver.params(), span, step),
            recorded: 0,
            timed: None,
            sim_ms: 0.0,
            ui_frames: 1,
            single,
            cut: false,
        });
        true
    }

    /// Real-time mode: the substeps of `dt` that pay off the simulated time owed, as many as fit
    /// the budget at the measured cost (one before it is measured). When they do not all fit,
    /// the rest is dropped: owing more would only make the next frames slower.
    fn plan_real_time(&mut self, dt: f64) -> u32 {
        let wanted = ((self.debt / dt).floor().min(MAX_SUBSTEPS_PER_FRAME as f64)) as u32;
        let affordable = batch_substeps(self.batch_budget_ms(), true, self.substep_ms, MAX_SUBSTEPS_PER_FRAME);
        let n = wanted.min(affordable);
        self.debt = if n < wanted { 0.0 } else { self.debt - n as f64 * dt };
        n
    }

    /// Takes in a finished batch: its frame moves on by what the clock says it covered, the cost
    /// per substep is measured, and the frame ends where the clock says it did. Returns whether a
    /// frame ended (not cut short).
    fn collect(&mut self, gpu: &Gpu, clock: GpuSubstepClock, flight: &InFlight) -> bool {
        let Some(frame) = &mut self.frame else { return false };
        let ran = clock.substeps.saturating_sub(frame.clock.substeps);
        // Seen finished at this poll: an upper bound of the batch's time where it was not waited for.
        let ms = flight.submitted.elapsed().as_secs_f64() * 1e3;
        log::debug!("batch back after {ms:.1} ms: {ran} substeps ran, frame at {:.4} s", clock.time);
        frame.sim_ms += ms;
        if ran > 0 {
            let per_substep = ms / ran as f64;
            self.substep_ms =
                Some(self.substep_ms.map_or(per_substep, |old| AVERAGING * per_substep + (1.0 - AVERAGING) * old));
        }
        let before = frame.clock.time as f64;
        if self.ui.collected == 0 {
            (self.ui.time_before, self.ui.start_speed) = (before, Some(frame.start_speed));
        }
        self.ui.collected += 1;
        self.ui.advanced += (clock.time as f64 - before).max(0.0);
        frame.clock = clock;
        let ended = match frame.step {
            FrameStep::Fixed { substeps, .. } => clock.finished != 0 || clock.substeps >= substeps,
            // No substep ran: the clock cannot move the frame on (it never happens to a finite state).
            FrameStep::Auto { .. } => clock.finished != 0 || ran == 0,
        };
        if ended || frame.cut {
            self.finish_frame(gpu, !ended);
        }
        ended
    }

    /// Ends the frame in progress: its span (or, `cut` short, the time its substeps covered) is
    /// added to the simulated time.
    fn finish_frame(&mut self, gpu: &Gpu, cut: bool) {
        let Some(frame) = self.frame.take() else { return };
        let clock = frame.clock;
        // The span, not the clock's f32 sum of it (within 1e-5 of it): the colliders' animation
        // and the next frame's start are on this time.
        let span = if cut { clock.time as f64 } else { frame.span };
        self.sim_time += span;
        self.total_substeps += clock.substeps as u64;
        self.max_dt_ratio = self.max_dt_ratio.max(clock.max_ratio as f64);
        if let (Some(timer), Some(timed)) = (&self.timer, frame.timed) {
            self.pass_ms = timer.read(gpu, timed).or(self.pass_ms);
        }
        self.last = FrameSim {
            substeps: clock.substeps,
            dt: clock.dt as f64,
            span,
            max_dt_ratio: clock.max_ratio as f64,
            sim_ms: frame.sim_ms,
            ui_frames: frame.ui_frames,
        };
        if !cut {
            self.frames_finished += 1;
            self.ui.frames_finished += 1;
        }
    }

    /// Simulated seconds so far, the frame in progress included as far as its finished batches.
    fn progress(&self) -> f64 {
        self.sim_time + self.frame.as_ref().map_or(0.0, |f| f.clock.time as f64)
    }

    /// The dt a real-time frame would take: the last stable dt (auto) or the fixed dt.
    fn last_dt(&self) -> f64 {
        if self.auto_dt { self.stable_dt } else { self.fixed_dt }
    }

    /// Whether a batch of substeps is on the GPU. (The stats a frame is planned from may be too:
    /// that pass is short, and an event applied meanwhile drops them, [`Stepper::state_changed`].)
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }
    /// Whether the simulation shows a finished state: nothing of it on the GPU, and no frame in
    /// progress unless paused (a paused frame waits for Play).
    pub fn settled(&self) -> bool {
        !self.busy() && self.stats_pending.is_none() && (self.frame.is_none() || (self.paused && !self.step_requested))
    }
    /// Whether the simulation has a device of its own.
    pub fn own_device(&self) -> bool {
        self.own_device
    }
    /// Paused?
    pub fn paused(&self) -> bool {
        self.paused
    }
    /// Stepping mode, substeps per frame, auto dt, fixed dt and simulation budget per UI frame (ms).
    pub fn settings(&self) -> (StepMode, u32, bool, f64, f64) {
        (self.mode, self.substeps, self.auto_dt, self.fixed_dt, self.budget_ms)
    }
    /// Simulated seconds (of the frames finished) and substeps since the last reset.
    pub fn sim_time(&self) -> (f64, u64) {
        (self.sim_time, self.total_substeps)
    }
    /// Frames of the simulation finished since the app started.
    pub fn frames_finished(&self) -> u64 {
        self.frames_finished
    }
    /// How far the frame in progress is: its simulated seconds so far and its span.
    pub fn frame_progress(&self) -> Option<(f64, f64)> {
        self.frame.as_ref().map(|f| (f.clock.time as f64, f.span))
    }
    /// The last finished frame's substeps.
    pub fn last_frame(&self) -> FrameSim {
        self.last
    }
    /// What the simulation did in the last UI frame.
    pub fn ui_frame(&self) -> UiFrameSim {
        self.ui
    }
    /// Measured wall-clock milliseconds per substep (averaged), once measured.
    pub fn substep_ms(&self) -> Option<f64> {
        self.substep_ms
    }
    /// The stable dt measured at the start of the last frame, seconds.
    pub fn stable_dt(&self) -> f64 {
        self.stable_dt
    }
    /// The largest ratio of a substep's dt to the stable dt of the state it stepped since the last
    /// reset (at most 1 under auto dt).
    pub fn max_dt_ratio(&self) -> f64 {
        self.max_dt_ratio
    }
    /// An estimate, in metres, of how far any particle moved during the batches the last UI frame
    /// saw finished: the fastest particle at their frame's start, sped up by `gravity` (m/s²) from
    /// then to their end. Stress can speed particles up too; it is left out (the renderer's
    /// tolerance, half a voxel, is several frames' motion at one substep per frame). Zero when
    /// none finished, `None` without stats. Forces the stats do not see (the mouse tool, moving
    /// colliders) are the caller's to rule out.
    pub fn motion_bound(&self, gravity: f64) -> Option<f64> {
        let speed = self.ui.start_speed.map(|v| v + gravity.abs() * self.ui.time_before);
        motion_bound(self.ui.advanced, speed, gravity)
    }
    /// The last stats.
    pub fn stats(&self) -> Option<SolverStats> {
        self.stats
    }
    /// GPU milliseconds of each pass per substep, if the device has (meaningful) timestamps.
    pub fn pass_ms(&self) -> Option<[f64; 4]> {
        self.pass_ms
    }
    /// Simulated seconds per wall-clock second over the last few seconds of stepping; `None`
    /// while paused or until a second has been measured.
    pub fn real_time_ratio(&self) -> Option<f64> {
        self.rate.ratio()
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
#[path = "stepping_tests.rs"]
mod tests;
