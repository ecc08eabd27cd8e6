//! Stepping a frame in batches: each UI frame looks at the batch in flight and submits the next
//! within the budget.

use std::time::{Duration, Instant};

use powder::gpu::{Gpu, PendingRead};
use powder::runner::plan_frame;
use powder::scene::TimeStep;
use powder::sim::explicit::clock::{FrameStep, GpuSubstepClock};
use powder::sim::explicit::substep;
use powder::sim::params::MAX_SUBSTEPS_PER_FRAME;
use powder::sim::{Solver, SolverStats};

use crate::app::events::StepMode;
use crate::app::run::messages::Messages;
use crate::app::run::stepping::frame::{Frame, InFlight};
use crate::app::run::stepping::policy::*;
use crate::app::run::stepping::stepper::Stepper;

impl Stepper {
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
    pub(super) fn begin(
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
        // PB-MPM's and water's steps are as long as their settings allow at the fastest particle's
        // speed, and each is planned as a fixed step: they take the place of the stable dt.
        let p = solver.params();
        let planned = solver.integrator().plan_frame(
            time.frame_duration,
            stats.max_speed,
            p.max_speed,
            p.grid.cell_size,
            p.gravity.length(),
        );
        let stable = planned.map_or(stable, |(_, dt)| dt);
        let auto_dt = self.auto_dt || planned.is_some();
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
        let step = if self.auto_dt && planned.is_none() {
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
    pub(super) fn plan_real_time(&mut self, dt: f64) -> u32 {
        let wanted = ((self.debt / dt).floor().min(MAX_SUBSTEPS_PER_FRAME as f64)) as u32;
        let affordable = batch_substeps(self.batch_budget_ms(), true, self.substep_ms, MAX_SUBSTEPS_PER_FRAME);
        let n = wanted.min(affordable);
        self.debt = if n < wanted { 0.0 } else { self.debt - n as f64 * dt };
        n
    }

    /// Takes in a finished batch: its frame moves on by what the clock says it covered, the cost
    /// per substep is measured, and the frame ends where the clock says it did. Returns whether a
    /// frame ended (not cut short).
    pub(super) fn collect(&mut self, gpu: &Gpu, clock: GpuSubstepClock, flight: &InFlight) -> bool {
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
    pub(super) fn finish_frame(&mut self, gpu: &Gpu, cut: bool) {
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
    pub(super) fn progress(&self) -> f64 {
        self.sim_time + self.frame.as_ref().map_or(0.0, |f| f.clock.time as f64)
    }

    /// The dt a real-time frame would take: the last stable dt (auto) or the fixed dt.
    pub(super) fn last_dt(&self) -> f64 {
        if self.auto_dt { self.stable_dt } else { self.fixed_dt }
    }
}
