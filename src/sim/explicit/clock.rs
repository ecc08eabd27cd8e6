//! The substep clock: each substep's dt chosen on the GPU from the state it steps, without a
//! round trip to the host per substep.
//!
//! Every substep begins with three small passes: `clock_stats` (the largest particle speed and
//! hardening factor, over every page), `clock_advance` (one thread: the stable dt of that state,
//! the substep's dt, the frame's time so far, whether the substep runs) and `clock_gate` (one
//! thread per page: the page's indirect dispatch arguments on or off). All other dispatches of a
//! substep are indirect ([`super::substep::record_substep`]), so the host can record more substeps
//! than a frame turns out to need: those past its end are empty dispatches. The host reads the
//! clock once per batch of substeps ([`crate::sim::Solver::step_frame`]) and records another batch only
//! if the frame has not ended.
//!
//! A frame either covers a span of time in substeps of the stable dt ([`FrameStep::Auto`]) or is a
//! planned number of substeps of a fixed dt ([`FrameStep::Fixed`]); either way each substep's dt /
//! stable dt is measured and the frame's largest reported ([`FrameReport::max_ratio`]). The CPU twin
//! chooses the same way ([`choose_dt`], [`crate::sim::cpu::CpuSolver::step_span`]).

use bytemuck::{Pod, Zeroable};

use crate::sim::params::SolverParams;

/// How the substeps of a frame get their dt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameStep {
    /// `substeps` substeps of `dt` seconds each, whatever the stable dt (which is still measured).
    Fixed {
        /// Seconds per substep.
        dt: f64,
        /// Substeps in the frame.
        substeps: u32,
    },
    /// Substeps no longer than the stable dt of the state each one steps (Courant number
    /// [`SolverParams::cfl`]), as equal as the remaining time allows, until the frame's span is
    /// covered; past `max_substeps` they stretch (past the stable dt) so that the frame ends
    /// within that many.
    Auto {
        /// Most substeps the frame may take.
        max_substeps: u32,
    },
}

/// The substep clock, shared by the host and the GPU. Mirrors `SubstepClock` in
/// `shaders/mpm/types.wgsl`, which says what each field holds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSubstepClock {
    /// Seconds the frame covers.
    pub span: f32,
    /// Seconds per substep of a planned frame.
    pub fixed_dt: f32,
    /// Substeps of a planned frame; 0: the frame covers `span` in substeps of the stable dt.
    pub planned: u32,
    /// Most substeps of an unplanned frame.
    pub max_substeps: u32,
    /// Courant number.
    pub cfl: f32,
    /// The largest `(λ₀ + 2μ₀)/ρ` of the materials present, m²/s² (the bound when a state is
    /// not finite).
    pub wave_speed_squared: f32,
    /// The explicit step's viscous limit, seconds ([`SolverParams::viscous_dt`]; +∞ without a
    /// viscous liquid).
    pub viscous_dt: f32,
    /// PB-MPM: the length of the step before the frame's first, seconds (0 if none); `pb_clock`
    /// replaces it with each step's.
    pub pb_prev_dt: f32,
    /// PB-MPM: how long gravity acts on the velocity before the current step, seconds
    /// (`(previous dt + dt)/2`, set by `pb_clock`).
    pub pb_kick: f32,
    /// Simulated seconds of the frame so far.
    pub time: f32,
    /// The current (last) substep's dt, seconds.
    pub dt: f32,
    /// The current substep's collider blend.
    pub blend: f32,
    /// Substeps run in the frame so far.
    pub substeps: u32,
    /// 1 if the current substep runs.
    pub running: u32,
    /// 1 once the frame has ended.
    pub finished: u32,
    /// Largest dt / stable dt of the frame's substeps.
    pub max_ratio: f32,
    /// Stable dt of the last substep's state, seconds.
    pub stable_dt: f32,
    /// Smallest stable dt of the frame's substeps, seconds.
    pub min_stable_dt: f32,
    /// `clock_stats`'s largest speed, as f32 bits.
    pub max_speed_bits: u32,
    /// `clock_stats`'s largest squared P-wave speed `(λ₀ + 2μ₀) hc / ρ` of a particle, m²/s², as
    /// f32 bits.
    pub max_wave_speed_squared_bits: u32,
    /// PB-MPM: 1 once a step's first iteration has updated the grid, so that its later iterations
    /// gather from it (`pb_clock` sets 0, `pb_grid` and `pb_grid_blocks` set 1).
    pub pb_gathering: u32,
}

impl GpuSubstepClock {
    /// The clock at the start of a frame of `span` seconds stepped as `step` says, for `params`.
    pub fn for_frame(params: &SolverParams, span: f64, step: FrameStep) -> Self {
        let (fixed_dt, planned, max_substeps) = match step {
            FrameStep::Fixed { dt, substeps } => (dt, substeps, substeps),
            FrameStep::Auto { max_substeps } => (0.0, 0, max_substeps.max(1)),
        };
        Self {
            span: span as f32,
            fixed_dt: fixed_dt as f32,
            planned,
            max_substeps,
            cfl: params.cfl as f32,
            wave_speed_squared: params.fastest_wave_squared() as f32,
            viscous_dt: params.viscous_dt() as f32,
            dt: fixed_dt as f32,
            min_stable_dt: f32::INFINITY,
            ..Self::default()
        }
    }
}

/// What a frame's substeps did, read from the clock at its end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameReport {
    /// Substeps run.
    pub substeps: u32,
    /// Simulated seconds they covered.
    pub time: f64,
    /// The largest ratio of a substep's dt to the stable dt of the state it stepped
    /// (`cfl · h / (v_max + c)` of that state, see `docs/algorithm.md`). At most 1 under
    /// [`FrameStep::Auto`] unless the frame hit its substep limit.
    pub max_ratio: f64,
    /// The smallest stable dt of the states the frame stepped, seconds.
    pub min_stable_dt: f64,
    /// The last substep's dt, seconds.
    pub last_dt: f64,
    /// Whether an [`FrameStep::Auto`] frame needed its `max_substeps` (its substeps stretched).
    pub capped: bool,
}

impl FrameReport {
    /// The report of a frame of `steps` steps of `dt` seconds planned on the host (PB-MPM's and
    /// water's): no clock measured them against a stable dt.
    pub fn planned(steps: u32, dt: f64) -> Self {
        Self {
            substeps: steps,
            time: steps as f64 * dt,
            max_ratio: 0.0,
            min_stable_dt: f64::INFINITY,
            last_dt: dt,
            capped: false,
        }
    }

    /// The report a clock read back at the end of a frame gives.
    pub fn from_clock(clock: &GpuSubstepClock) -> Self {
        let stretched = clock.planned == 0 && clock.substeps >= clock.max_substeps && clock.max_ratio > 1.0;
        Self {
            substeps: clock.substeps,
            time: clock.time as f64,
            max_ratio: clock.max_ratio as f64,
            min_stable_dt: clock.min_stable_dt as f64,
            last_dt: clock.dt as f64,
            capped: stretched,
        }
    }

    /// This frame and `next` as one: what a caller that splits a frame into several (a collider
    /// frame each) reports for the whole.
    pub fn merged(self, next: FrameReport) -> FrameReport {
        FrameReport {
            substeps: self.substeps + next.substeps,
            time: self.time + next.time,
            max_ratio: self.max_ratio.max(next.max_ratio),
            min_stable_dt: self.min_stable_dt.min(next.min_stable_dt),
            last_dt: next.last_dt,
            capped: self.capped || next.capped,
        }
    }
}

/// The fraction of an unplanned frame's span below which what is left counts as covered
/// (`TIME_TOLERANCE` in `clock_advance.wgsl`): the GPU sums the frame's time in f32.
pub const TIME_TOLERANCE: f64 = 1e-5;

/// The dt `clock_advance.wgsl` chooses for the next substep of an unplanned frame with
/// `remaining` seconds left, `left` substeps allowed and the state's `stable` dt: the remaining
/// time in equal substeps no longer than `stable`, or stretched over `left` substeps where more
/// would be needed. The CPU twin steps by it; the GPU computes the same in f32.
pub fn choose_dt(remaining: f64, stable: f64, left: u32) -> f64 {
    let wanted = (remaining / stable).ceil().max(1.0);
    if wanted <= left as f64 { (remaining / wanted).min(stable) } else { remaining / left as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remaining_time_splits_into_equal_stable_substeps() {
        // 1/60 s at a stable 4e-4 s: 42 substeps of 1/2520 s (≤ 4e-4), none a sliver.
        let dt = choose_dt(1.0 / 60.0, 4e-4, 1000);
        assert!((dt - 1.0 / 60.0 / 42.0).abs() < 1e-18, "{dt}");
        // Exactly a whole number of stable steps: that many, each exactly stable.
        assert_eq!(choose_dt(1e-3, 2.5e-4, 1000), 2.5e-4);
        // Less than one stable step left: all of it.
        assert_eq!(choose_dt(1e-4, 4e-4, 1000), 1e-4);
        // No stiffness and no motion (no particles): the whole frame in one substep.
        assert_eq!(choose_dt(1.0 / 60.0, f64::INFINITY, 1000), 1.0 / 60.0);
        // Past the limit the substeps stretch to end the frame in `left` of them.
        assert_eq!(choose_dt(1.0, 1e-3, 10), 0.1);
    }
}
