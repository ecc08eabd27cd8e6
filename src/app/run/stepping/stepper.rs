//! The [`Stepper`]: the stepping settings, the frame in progress and what the last frames
//! measured.

use powder::gpu::Gpu;
use powder::sim::SolverStats;
use powder::sim::params::MAX_SUBSTEPS_PER_FRAME;
use powder::sim::solver::PendingStats;

use crate::app::events::{AppEvent, StepMode};
use crate::app::run::stepping::frame::{Frame, InFlight};
use crate::app::run::stepping::policy::*;
use crate::app::run::timing::PassTimer;

/// Stepping policy, the frame in progress and what the last frames measured.
pub struct Stepper {
    pub(super) mode: StepMode,
    pub(super) substeps: u32,
    pub(super) auto_dt: bool,
    pub(super) fixed_dt: f64,
    pub(super) budget_ms: f64,
    pub(super) paused: bool,
    pub(super) step_requested: bool,
    pub(super) debt: f64,
    pub(super) sim_time: f64,
    pub(super) total_substeps: u64,
    pub(super) frames_finished: u64,
    pub(super) last: FrameSim,
    pub(super) ui: UiFrameSim,
    pub(super) max_dt_ratio: f64,
    pub(super) stable_dt: f64,
    pub(super) stats: Option<SolverStats>,
    pub(super) timer: Option<PassTimer>,
    pub(super) pass_ms: Option<[f64; 4]>,
    pub(super) substep_ms: Option<f64>,
    pub(super) frame: Option<Frame>,
    pub(super) in_flight: Option<InFlight>,
    /// The stats a new frame is planned from, on their way back.
    pub(super) stats_pending: Option<PendingStats>,
    /// The simulation has a device of its own: its batches do not hold up the window's drawing.
    pub(super) own_device: bool,
    pub(super) rate: RateMeter,
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
    pub(super) fn batch_budget_ms(&self) -> f64 {
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

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
