//! Recent frames of a running simulation, kept to go back to: each a [`SolverSnapshot`] (the
//! same capture a bake's checkpoint holds), within a memory budget. Going back restores a kept
//! frame's state ([`Solver::restore`]); simulating on from there without changes gives the same
//! frames again, bit for bit. A change made at a past frame starts a new branch: the frames kept
//! after it no longer follow from it and are dropped ([`Timeline::branch_at`]).

use std::collections::VecDeque;

use super::checkpoint::SolverSnapshot;
use super::{Solver, SolverError};
use crate::gpu::Gpu;

/// One kept frame.
#[derive(Clone, Debug)]
pub struct KeptFrame {
    /// The frame's number (frames finished since the start).
    pub frame: u64,
    /// Simulated seconds at the frame's end (the colliders' animation time).
    pub sim_time: f64,
    /// The solver's state at the frame's end.
    pub state: SolverSnapshot,
}

impl KeptFrame {
    /// Host bytes it takes.
    pub fn bytes(&self) -> u64 {
        self.state.bytes()
    }
}

/// Kept frames, oldest first, at most `budget_bytes` of them (the newest is always kept; the
/// default budget, zero, keeps only the newest).
#[derive(Debug, Default)]
pub struct Timeline {
    budget_bytes: u64,
    frames: VecDeque<KeptFrame>,
}

impl Timeline {
    /// An empty timeline that keeps at most `budget_bytes` of frames.
    pub fn new(budget_bytes: u64) -> Self {
        Timeline { budget_bytes, frames: VecDeque::new() }
    }

    /// Keeps `kept`. Frames kept at or after its number belong to another branch and go; then the
    /// oldest go until the rest fits the budget.
    pub fn keep(&mut self, kept: KeptFrame) {
        self.frames.retain(|f| f.frame < kept.frame);
        self.frames.push_back(kept);
        while self.frames.len() > 1 && self.bytes() > self.budget_bytes {
            self.frames.pop_front();
        }
    }

    /// Drops the frames after `frame`: the simulation was changed there.
    pub fn branch_at(&mut self, frame: u64) {
        self.frames.retain(|f| f.frame <= frame);
    }

    /// The kept frame numbered `frame`.
    pub fn get(&self, frame: u64) -> Option<&KeptFrame> {
        self.frames.iter().find(|f| f.frame == frame)
    }

    /// The first and last frame kept.
    pub fn range(&self) -> Option<(u64, u64)> {
        Some((self.frames.front()?.frame, self.frames.back()?.frame))
    }

    /// Frames kept.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no frame is kept.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// Host bytes the kept frames take.
    pub fn bytes(&self) -> u64 {
        self.frames.iter().map(KeptFrame::bytes).sum()
    }

    /// The budget, bytes.
    pub fn budget_bytes(&self) -> u64 {
        self.budget_bytes
    }

    /// Sets the budget, dropping the oldest frames that no longer fit.
    pub fn set_budget_bytes(&mut self, budget: u64) {
        self.budget_bytes = budget;
        while self.frames.len() > 1 && self.bytes() > budget {
            self.frames.pop_front();
        }
    }
}

impl SolverSnapshot {
    /// Host bytes it takes: a particle and its stored stress per particle.
    pub fn bytes(&self) -> u64 {
        (self.particles.len() * size_of::<super::params::GpuParticle>()
            + self.stress.len() * size_of::<super::checkpoint::StoredStress>()) as u64
    }
}

impl Solver {
    /// Puts the solver back in `snapshot`'s state (same grid and parameters; the colliders are
    /// re-sent by the caller, as after any new state): the particles uploaded, their stored stress
    /// restored.
    pub fn restore(&mut self, gpu: &Gpu, snapshot: &SolverSnapshot) -> Result<(), SolverError> {
        self.replace_particles(gpu, &snapshot.particles)?;
        if snapshot.restore_stored(gpu, self).is_none() {
            // Counts differ (a snapshot made by hand): the stress pass recomputes it instead.
            log::warn!("snapshot without one stress per particle: stress recomputed");
        }
        Ok(())
    }
}
