//! Stepping the [`Solver`] a frame at a time, each substep's dt chosen on the GPU by the substep
//! clock ([`crate::sim::explicit::clock`]).

use super::error::SolverError;
use super::state::Solver;
use crate::gpu::{Gpu, PendingRead};
use crate::sim::explicit::clock::{FrameReport, FrameStep, GpuSubstepClock};
use crate::sim::explicit::substep;
use crate::sim::pbmpm::PbmpmSettings;
use crate::sim::record;
use crate::sim::sort::bins::SolverPath;

/// Substeps an auto frame's next batch records beyond the estimate from the last stable dt, as a
/// fraction of it: a state that stiffens within the batch needs more, and each batch short costs
/// a wait for the GPU and a readback; substeps recorded past the frame's end cost only empty
/// dispatches.
const BATCH_MARGIN: f64 = 0.25;

/// Substeps of a frame submitted by [`Solver::submit_batch`] and not yet seen finished.
pub struct Batch {
    /// The batch's last submission.
    pub submission: wgpu::SubmissionIndex,
    /// Substeps recorded (those past an auto frame's end are empty).
    pub substeps: u32,
    clock: PendingRead,
}

impl Batch {
    /// Whether the GPU has finished the batch (as of the last [`Gpu::poll`]).
    pub fn finished(&self) -> bool {
        self.clock.ready()
    }
}

impl Solver {
    /// Runs `substeps` substeps of `params.dt` (does not wait for them), submitted
    /// [`substep::SUBSTEPS_PER_SUBMIT`] at a time so that the GPU starts on the first ones while the
    /// host records the rest. They make up one collider frame: substep k sees the colliders
    /// `(k + 1) / substeps` of the way through it. On the fused path they are one run of
    /// [`substep::record_substep`]: the particles are complete when it ends. The clock measures each
    /// substep's dt against the stable dt of the state it steps ([`Solver::read_clock`]).
    pub fn step(&self, gpu: &Gpu, substeps: u32) {
        self.step_timed(gpu, substeps, None);
    }

    /// [`Solver::step`], with the substeps of the first submission timed by `timer` where one is
    /// given: each stage of them writes its timestamps, and the submission ends with
    /// [`substep::SubstepTimer::resolve`].
    pub fn step_timed(&self, gpu: &Gpu, substeps: u32, timer: Option<&dyn substep::SubstepTimer>) {
        let dt = self.params.dt;
        if self.integrator.pbmpm().is_some() {
            self.step_pbmpm(gpu, substeps, dt);
            return;
        }
        if self.integrator.water().is_some() {
            self.begin_frame(gpu, substeps as f64 * dt, FrameStep::Fixed { dt, substeps });
            self.record_water_then(gpu, substeps, dt, &mut |_| {});
            return;
        }
        self.begin_frame(gpu, substeps as f64 * dt, FrameStep::Fixed { dt, substeps });
        self.record_substeps(gpu, 0..substeps, substeps, self.path() == SolverPath::Fused, timer);
    }

    /// Simulates a frame of `span` seconds stepped as `step` says, and reports what its substeps
    /// did (read back from the clock). A [`FrameStep::Fixed`] frame is recorded in one batch; an
    /// [`FrameStep::Auto`] frame in batches, each as many substeps as the last stable dt says the
    /// rest of the frame needs plus a margin, with one readback of the clock after each, until
    /// the GPU reports the frame's end. The particles are complete when it returns.
    ///
    /// An auto frame runs the fused path's substeps as the sorted path's: g2p2g scatters with the
    /// next substep's dt, which depends on the state it is producing.
    pub fn step_frame(
        &self,
        gpu: &Gpu,
        span: f64,
        step: FrameStep,
        timer: Option<&dyn substep::SubstepTimer>,
    ) -> Result<FrameReport, SolverError> {
        if let Some(settings) = self.integrator.pbmpm().copied() {
            return self.step_pbmpm_frame(gpu, span, &settings);
        }
        if let Some(settings) = self.integrator.water().copied() {
            return self.step_water_frame(gpu, span, &settings);
        }
        self.begin_frame(gpu, span, step);
        let max_substeps = match step {
            FrameStep::Fixed { substeps, .. } => {
                self.record_substeps(gpu, 0..substeps, substeps, self.path() == SolverPath::Fused, timer);
                return Ok(FrameReport::from_clock(&self.read_clock(gpu)?));
            }
            FrameStep::Auto { max_substeps } => max_substeps.max(1),
        };
        let stable = match self.last_stable_dt.get() {
            Some(stable) => stable,
            None => {
                let s = self.stats(gpu)?;
                super::stats::stable_dt(&self.params, s.max_speed, s.max_hardening, self.params.cfl)
            }
        };
        let (mut recorded, mut clock) = (0, GpuSubstepClock::for_frame(&self.params, span, step));
        loop {
            let batch = batch_size(span - clock.time as f64, stable_or(clock.stable_dt, stable))
                .min(max_substeps.saturating_sub(clock.substeps))
                .max(1);
            let timer = timer.filter(|_| recorded == 0);
            self.record_substeps(gpu, recorded..recorded + batch, u32::MAX, false, timer);
            recorded += batch;
            let before = clock.substeps;
            clock = self.read_clock(gpu)?;
            if clock.finished != 0 || clock.substeps == before {
                return Ok(FrameReport::from_clock(&clock));
            }
        }
    }

    /// A PB-MPM frame of `span` seconds: as many equal steps as `settings` ask for at the speed of
    /// the fastest particle now ([`PbmpmSettings::plan_frame`]: no longer than its `dt`, and no
    /// particle moving more than `motion_cfl` cells per step). The steps are submitted and not
    /// waited for: the host planned them, so it reports them without reading the clock back.
    fn step_pbmpm_frame(&self, gpu: &Gpu, span: f64, settings: &PbmpmSettings) -> Result<FrameReport, SolverError> {
        // The frame loop has usually just read the stats of this very state (Solver::stable_dt):
        // a second readback would wait for the GPU to say the same speed again.
        let speed = match self.measured_speed.get() {
            Some((at, speed, _)) if at == self.steps_recorded.get() => speed,
            _ => self.stats(gpu)?.max_speed,
        };
        let (steps, dt) = settings.plan_frame(span, speed, self.params.max_speed, self.params.grid.cell_size);
        self.step_pbmpm(gpu, steps, dt);
        Ok(FrameReport::planned(steps, dt))
    }

    /// Runs `steps` PB-MPM steps of `dt` seconds (does not wait), as one collider frame: step k
    /// sees the colliders `(k + 1) / steps` of the way through it ([`crate::sim::pbmpm::gpu`]).
    /// Submitted [`crate::sim::pbmpm::gpu::STEPS_PER_SUBMIT`] steps at a time.
    pub fn step_pbmpm(&self, gpu: &Gpu, steps: u32, dt: f64) {
        self.begin_frame(gpu, steps as f64 * dt, FrameStep::Fixed { dt, substeps: steps });
        self.record_pbmpm_then(gpu, steps, crate::sim::pbmpm::gpu::STEPS_PER_SUBMIT, &mut |_| {});
    }

    /// Records and submits `steps` PB-MPM steps of the frame [`Solver::begin_frame`] set,
    /// `per_submit` per submission (at least one), with `last` recording more into the last one.
    /// Returns the last submission (`None` for no steps).
    fn record_pbmpm_then(
        &self,
        gpu: &Gpu,
        steps: u32,
        per_submit: u32,
        last: &mut dyn FnMut(&mut wgpu::CommandEncoder),
    ) -> Option<wgpu::SubmissionIndex> {
        self.note_steps_recorded();
        let settings = self.integrator.pbmpm().copied().unwrap_or_default();
        let (mut done, mut submission) = (0, None);
        while done < steps {
            let n = (steps - done).min(per_submit.max(1));
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("pbmpm") });
            crate::sim::pbmpm::gpu::record_steps(&mut encoder, &self.kernels, &self.pages, n, &settings, &self.params);
            done += n;
            if done >= steps {
                last(&mut encoder);
            }
            submission = Some(gpu.queue.submit([encoder.finish()]));
        }
        // On the binned paths PB-MPM's steps leave the sums, bins and cell counters as a binned
        // substep does; an explicit substep after them still starts from clean bins, so that
        // switching integrators does not depend on the two agreeing on that bookkeeping.
        self.clear_bins_first.set(true);
        submission
    }

    /// Sets the clock for a frame of `span` seconds stepped as `step` says, and turns every
    /// page's substep dispatches on ([`crate::sim::record::write_gate_template`]). Remembers the
    /// frame's step length if it is a PB-MPM frame (0 otherwise), for the next frame's first step.
    pub fn begin_frame(&self, gpu: &Gpu, span: f64, step: FrameStep) {
        let mut clock = GpuSubstepClock::for_frame(&self.params, span, step);
        clock.pb_prev_dt = self.pb_last_dt.get() as f32;
        let pbmpm_dt = match (self.integrator.pbmpm(), step) {
            (Some(_), FrameStep::Fixed { dt, .. }) => dt,
            _ => 0.0,
        };
        self.pb_last_dt.set(pbmpm_dt);
        self.water_clock.set(self.integrator.water().map(|_| clock));
        gpu.queue.write_buffer(&self.pages[0].clock, 0, bytemuck::bytes_of(&clock));
        for page in &self.pages {
            record::write_gate_template(&gpu.queue, page);
        }
    }

    /// Records and submits substeps `range` of a frame of `count` ([`substep::record_substep`]),
    /// [`substep::SUBSTEPS_PER_SUBMIT`] per submission; the first submission's are timed by `timer`,
    /// and `last` records more into the last one. Returns the last submission (`None` for an empty
    /// range).
    fn record_substeps(
        &self,
        gpu: &Gpu,
        range: std::ops::Range<u32>,
        count: u32,
        fused: bool,
        timer: Option<&dyn substep::SubstepTimer>,
    ) -> Option<wgpu::SubmissionIndex> {
        self.record_substeps_then(gpu, range, count, fused, timer, substep::SUBSTEPS_PER_SUBMIT, &mut |_| {})
    }

    /// [`Solver::record_substeps`], `per_submit` substeps per submission (at least one), with
    /// `last` recording more into the last submission.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_substeps_then(
        &self,
        gpu: &Gpu,
        range: std::ops::Range<u32>,
        count: u32,
        fused: bool,
        timer: Option<&dyn substep::SubstepTimer>,
        per_submit: u32,
        last: &mut dyn FnMut(&mut wgpu::CommandEncoder),
    ) -> Option<wgpu::SubmissionIndex> {
        self.note_steps_recorded();
        let mut done = range.start;
        let mut submission = None;
        while done < range.end {
            let n = (range.end - done).min(per_submit.max(1));
            let timer = timer.filter(|_| done == range.start);
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("step") });
            if done == range.start {
                self.record_stale_stress(&mut encoder);
            }
            if self.path().is_binned() && self.clear_bins_first.replace(false) {
                self.record_clean_bins(&mut encoder);
            }
            for k in done..done + n {
                let timestamps = timer.map(|t| t.timestamps(k - range.start));
                substep::record_substep(&mut encoder, &self.kernels, &self.pages, k, count, fused, timestamps);
            }
            if let Some(timer) = timer {
                timer.resolve(&mut encoder, n);
            }
            done += n;
            if done >= range.end {
                last(&mut encoder);
            }
            submission = Some(gpu.queue.submit([encoder.finish()]));
        }
        submission
    }

    /// Records and submits the next `substeps` substeps (at least one) of the frame that
    /// [`Solver::begin_frame`] set up for `step`, and returns at once: nothing waits for the GPU.
    /// The clock on the GPU carries the frame on from where the last batch left it (its time,
    /// substeps, ratios and end), so a frame stepped in several batches runs the same substeps,
    /// with the same dt and collider blend, as one stepped at once ([`Solver::step_frame`]); where
    /// an auto frame ends inside the batch, the rest of it are empty dispatches. On the fused path
    /// each batch of a [`FrameStep::Fixed`] frame is a run of its own (the particles are complete
    /// after it, and the fused path gives the sorted path's results); an auto frame's substeps run
    /// as the sorted path's, as in [`Solver::step_frame`]. They are submitted `per_submit` at a
    /// time ([`substep::SUBSTEPS_PER_SUBMIT`], so that the GPU starts on the first while the host
    /// records the rest; or all at once, where a submission waits for the queue's earlier work, as
    /// on a software driver). The first submission's substeps are timed by `timer`. The last
    /// submission ends with a copy of the clock, which [`Solver::batch_clock`] reads once the batch
    /// has finished, and whatever `last` records (copies of the state, say; the read it returns is
    /// started with the clock's).
    #[allow(clippy::too_many_arguments)]
    pub fn submit_batch(
        &self,
        gpu: &Gpu,
        step: FrameStep,
        substeps: u32,
        per_submit: u32,
        timer: Option<&dyn substep::SubstepTimer>,
        last: &mut dyn FnMut(&Solver, &mut wgpu::CommandEncoder) -> Option<PendingRead>,
    ) -> Batch {
        let n = substeps.max(1);
        let fused = matches!(step, FrameStep::Fixed { .. }) && self.path() == SolverPath::Fused;
        let count = if fused { n } else { u32::MAX };
        let (mut clock, mut more) = (None, None);
        let mut tail = |encoder: &mut wgpu::CommandEncoder| {
            clock = Some(gpu.record_read(encoder, &[&self.pages[0].clock]));
            more = last(self, encoder);
        };
        let submission = if self.integrator.pbmpm().is_some() {
            // PB-MPM's steps of the frame begin_frame set (FrameStep::Fixed of its step dt).
            self.record_pbmpm_then(gpu, n, per_submit, &mut tail)
        } else if self.integrator.water().is_some() {
            // Water's steps, planned as PB-MPM's are.
            let dt = match step {
                FrameStep::Fixed { dt, .. } => dt,
                FrameStep::Auto { .. } => self.params.dt,
            };
            self.record_water_then(gpu, n, dt, &mut tail)
        } else {
            self.record_substeps_then(gpu, 0..n, count, fused, timer, per_submit, &mut tail)
        }
        .expect("a batch records at least one substep");
        let clock = clock.expect("the last submission records the clock's copy");
        clock.start();
        if let Some(more) = more {
            more.start();
        }
        Batch { submission, clock, substeps: n }
    }

    /// The clock as `batch` left it, once the GPU has finished it and the device has been polled
    /// ([`Gpu::poll`]); `None` before. Like [`Solver::read_clock`], it remembers the stable dt.
    pub fn batch_clock(&self, batch: &Batch) -> Option<Result<GpuSubstepClock, SolverError>> {
        let bytes = match batch.clock.take()? {
            Ok(mut parts) => parts.pop().unwrap_or_default(),
            Err(e) => return Some(Err(e.into())),
        };
        let clock: GpuSubstepClock = bytemuck::pod_read_unaligned(&bytes[..size_of::<GpuSubstepClock>()]);
        self.remember_stable_dt(&clock);
        Some(Ok(clock))
    }

    fn remember_stable_dt(&self, clock: &GpuSubstepClock) {
        if clock.substeps > 0 && clock.stable_dt.is_finite() && clock.stable_dt > 0.0 {
            self.last_stable_dt.set(Some(clock.stable_dt as f64));
        }
    }

    /// Reads the substep clock back (waits for the GPU): after [`Solver::step`], the frame's
    /// substeps so far and their largest dt / stable dt ([`FrameReport::from_clock`]).
    pub fn read_clock(&self, gpu: &Gpu) -> Result<GpuSubstepClock, SolverError> {
        let bytes = gpu.read_buffer(&self.pages[0].clock)?;
        let clock: GpuSubstepClock = bytemuck::pod_read_unaligned(&bytes);
        self.remember_stable_dt(&clock);
        Ok(clock)
    }

    /// Marks the clock's substep as running, as a pass run alone ([`Solver::run_pass`]) needs it:
    /// a sort's `bin_dispatch` after a frame's end would otherwise size no dispatches.
    pub(crate) fn write_clock_running(&self, gpu: &Gpu) {
        let offset = std::mem::offset_of!(GpuSubstepClock, running) as u64;
        gpu.queue.write_buffer(&self.pages[0].clock, offset, &1u32.to_le_bytes());
    }

    /// Writes the clock's dt and collider blend: what a pass run alone reads.
    pub(crate) fn write_clock_dt(&self, gpu: &Gpu, dt: f64, blend: f32) {
        let offset = std::mem::offset_of!(GpuSubstepClock, dt) as u64;
        const _: () =
            assert!(std::mem::offset_of!(GpuSubstepClock, blend) == std::mem::offset_of!(GpuSubstepClock, dt) + 4);
        let words = [(dt as f32).to_bits(), blend.to_bits()];
        gpu.queue.write_buffer(&self.pages[0].clock, offset, bytemuck::cast_slice(&words));
    }
}

/// `clock`'s stable dt where it has measured one (finite and positive), else `fallback`.
fn stable_or(clock: f32, fallback: f64) -> f64 {
    if clock.is_finite() && clock > 0.0 { clock as f64 } else { fallback }
}

/// Substeps to record for `remaining` seconds at a stable dt of `stable`: the estimate plus
/// [`BATCH_MARGIN`] and one.
fn batch_size(remaining: f64, stable: f64) -> u32 {
    let estimate = (remaining.max(0.0) / stable).ceil();
    let batch = estimate * (1.0 + BATCH_MARGIN) + 1.0;
    if batch.is_finite() { batch.min(u32::MAX as f64) as u32 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::batch_size;

    #[test]
    fn batches_cover_the_estimate_with_a_margin() {
        // 1/60 s at 4e-4 s: 42 substeps estimated, 53.5 → 53 recorded.
        assert_eq!(batch_size(1.0 / 60.0, 4e-4), 53);
        // Nothing left, or no stiffness at all: one substep.
        assert_eq!(batch_size(0.0, 4e-4), 1);
        assert_eq!(batch_size(1.0 / 60.0, f64::INFINITY), 1);
        assert_eq!(batch_size(1.0 / 60.0, 0.0), 1);
    }
}
