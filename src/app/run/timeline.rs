//! The app's timeline: recent frames of the simulation kept within a memory budget
//! ([`powder::sim::timeline`]), and a slider that goes back to one of them. Play goes on from the
//! frame gone back to, and gives the same frames again unless something changes; a change at a
//! past frame (material, gravity, dt, the tool, ...) drops the frames kept after it. The
//! Timeline section draws it (`panels/timeline.rs`).

use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::checkpoint::SolverSnapshot;
use powder::sim::timeline::{KeptFrame, Timeline};

use crate::app::events::AppEvent;
use crate::app::run::stepping::stepper::Stepper;

/// Bytes in a MiB.
pub const MIB: u64 = 1 << 20;

/// The app's kept frames, numbered from the last reset or scene load: frame n is the state at
/// the start of the n-th frame stepped since (frame 0 the initial state), which is the state at
/// the end of the frame before it.
#[derive(Default)]
pub struct AppTimeline {
    timeline: Timeline,
    /// The number the next frame's start gets.
    next: u64,
}

impl AppTimeline {
    /// Keeps nothing until a budget is set.
    pub fn new() -> Self {
        AppTimeline::default()
    }

    /// The frame the simulation last started from (or was sent back to).
    pub fn frame(&self) -> u64 {
        self.next.saturating_sub(1)
    }

    /// The kept frames.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Keeps the state a frame starts from, `sim_time` seconds into the simulation: the stepper
    /// asks for a frame's colliders before any of its substeps, so the particles are exactly the
    /// last frame's end.
    pub fn frame_starts(&mut self, gpu: &Gpu, solver: &Solver, sim_time: f64) -> Result<(), String> {
        let frame = self.next;
        self.next += 1;
        log::debug!("frame {frame} starts at {sim_time} s; keeping up to {} bytes", self.timeline.budget_bytes());
        if self.timeline.budget_bytes() == 0 {
            return Ok(());
        }
        let state = SolverSnapshot::capture(gpu, solver)
            .map_err(|e| format!("the timeline could not keep frame {frame}: {e}"))?;
        self.timeline.keep(KeptFrame { frame, sim_time, state });
        Ok(())
    }

    /// What `event` does to the kept frames: a new state (reset, scene, grid) drops them all and
    /// numbers frames from zero again; a change to how the snow moves on drops those after the
    /// current frame. The timeline's own events are applied by [`AppTimeline::go_to`] and
    /// [`AppTimeline::set_budget`].
    pub fn note(&mut self, event: &AppEvent) {
        match event {
            AppEvent::Reset | AppEvent::LoadScene(_) | AppEvent::ReloadScene | AppEvent::SetGridResolution(_) => {
                let budget = self.timeline.budget_bytes();
                *self = AppTimeline::new();
                self.timeline.set_budget_bytes(budget);
            }
            AppEvent::SetMaterial(_)
            | AppEvent::ResetMaterial
            | AppEvent::SetGravity(_)
            | AppEvent::SetIntegrator(_)
            | AppEvent::SetDt(_)
            | AppEvent::SetAutoDt(_)
            | AppEvent::SetSubsteps(_)
            | AppEvent::SetStepMode(_)
            | AppEvent::SetAnimationTime(_)
            | AppEvent::SetAnimationPlaying(_)
            | AppEvent::ToolStart { .. }
            | AppEvent::DropBlob { .. } => self.timeline.branch_at(self.frame()),
            _ => {}
        }
    }

    /// Restores kept frame `frame` into `solver` and sets the clock to its time.
    pub fn go_to(&mut self, gpu: &Gpu, solver: &mut Solver, stepper: &mut Stepper, frame: u64) -> Result<(), String> {
        let kept = self.timeline.get(frame).ok_or_else(|| format!("frame {frame} is not kept"))?;
        solver.restore(gpu, &kept.state).map_err(|e| format!("going back to frame {frame} failed: {e}"))?;
        stepper.go_to(kept.sim_time);
        // The next frame starts from this state: it is kept again under its number.
        self.next = frame;
        Ok(())
    }

    /// Keeps at most `mib` MiB of frames (0: none).
    pub fn set_budget(&mut self, mib: u64) {
        self.timeline.set_budget_bytes(mib * MIB);
        if mib == 0 {
            self.timeline.branch_at(0);
            self.timeline.set_budget_bytes(0);
        }
    }
}
