//! A frame of the simulation in progress, and a batch of its substeps on the GPU.

use std::time::Instant;

use powder::sim::explicit::clock::{FrameStep, GpuSubstepClock};
use powder::sim::solver::Batch;

/// A frame of the simulation being stepped, possibly over many UI frames.
pub struct Frame {
    pub span: f64,
    pub step: FrameStep,
    /// The stable dt at its start, seconds.
    pub stable: f64,
    /// The fastest particle at its start, m/s.
    pub start_speed: f64,
    /// The GPU's clock as the last finished batch left it.
    pub clock: GpuSubstepClock,
    /// Substeps submitted.
    pub recorded: u32,
    /// Substeps of its first submission (those timed), once submitted.
    pub timed: Option<u32>,
    pub sim_ms: f64,
    pub ui_frames: u32,
    /// A requested single step (runs while paused).
    pub single: bool,
    /// The settings it was planned with changed: it ends once its batch in flight is back.
    pub cut: bool,
}

impl Frame {
    /// Substeps it still needs: the rest of a planned frame, or an estimate from the stable dt for
    /// an auto frame (the GPU's clock decides; substeps recorded past its end are empty).
    pub fn left(&self) -> u32 {
        match self.step {
            FrameStep::Fixed { substeps, .. } => substeps.saturating_sub(self.recorded),
            FrameStep::Auto { max_substeps } => {
                let estimate = (self.remaining() / self.stable_now()).ceil();
                let estimate = if estimate.is_finite() { estimate.clamp(1.0, u32::MAX as f64) as u32 } else { 1 };
                estimate.min(max_substeps.saturating_sub(self.recorded).max(1))
            }
        }
    }

    pub fn remaining(&self) -> f64 {
        (self.span - self.clock.time as f64).max(0.0)
    }

    /// The stable dt of the latest state the clock measured, else the frame's start.
    pub fn stable_now(&self) -> f64 {
        let measured = self.clock.stable_dt as f64;
        if self.clock.substeps > 0 && measured.is_finite() && measured > 0.0 { measured } else { self.stable }
    }

    /// Simulated seconds `n` more substeps are expected to cover.
    pub fn span_of(&self, n: u32) -> f64 {
        match self.step {
            FrameStep::Fixed { dt, .. } => n as f64 * dt,
            FrameStep::Auto { .. } => (n as f64 * self.stable_now()).min(self.remaining()),
        }
    }
}

/// A batch submitted and not yet seen finished.
pub struct InFlight {
    pub batch: Batch,
    pub submitted: Instant,
    /// Wall-clock milliseconds it is expected to take (from the measured cost per substep).
    pub expected_ms: Option<f64>,
    /// Its frame was dropped (reset, new particles): what it reports is ignored.
    pub orphan: bool,
}
