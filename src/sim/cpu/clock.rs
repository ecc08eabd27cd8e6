//! The twin of the substep clock ([`crate::sim::explicit::clock`]): each substep's dt chosen from the state
//! it steps, as `clock_advance.wgsl` chooses it, in f64.

use super::solver::CpuSolver;
use crate::sim::explicit::clock::{FrameReport, FrameStep, TIME_TOLERANCE, choose_dt};

impl CpuSolver {
    /// The stable dt of the current state, `cfl · h / (v_max + c)` with `c` the fastest P-wave
    /// speed of any particle, its material's hardened by its Jp (as the GPU's `clock_stats` and
    /// `clock_advance` compute it), capped by the viscous limit ([`crate::sim::params::SolverParams::viscous_dt`]).
    pub fn stable_dt(&self) -> f64 {
        let (speed, wave) = self.particles.iter().fold((0.0f64, 0.0f64), |(v, c), p| {
            let material = self.params.material_of(p.material);
            (v.max(p.velocity.norm()), c.max(material.wave_speed(material.hardening_factor(p.plastic_jacobian))))
        });
        crate::sim::solver::stable_dt_at(&self.params, speed, wave, self.params.cfl)
    }

    /// A frame of `span` seconds stepped as `step` says, as [`crate::sim::Solver::step_frame`]
    /// runs it: a fixed frame is its planned substeps of `dt` (substep k blending the colliders
    /// `(k + 1) / substeps` of the way), an auto frame substeps of [`choose_dt`] until less than
    /// [`TIME_TOLERANCE`] of the span is left (blending by the time reached). Each substep's dt is
    /// measured against the stable dt of the state it steps.
    pub fn step_span(&mut self, span: f64, step: FrameStep) -> FrameReport {
        let mut report = FrameReport { min_stable_dt: f64::INFINITY, ..FrameReport::default() };
        loop {
            let (finished, planned) = match step {
                FrameStep::Fixed { substeps, .. } => (report.substeps >= substeps, Some(substeps)),
                FrameStep::Auto { max_substeps } => {
                    let out_of_time = span - report.time <= TIME_TOLERANCE * span;
                    (out_of_time || report.substeps >= max_substeps.max(1), None)
                }
            };
            if finished {
                // As FrameReport::from_clock: an auto frame that needed its last allowed substep
                // and went past the stable dt.
                let limit = if let FrameStep::Auto { max_substeps } = step { max_substeps.max(1) } else { u32::MAX };
                report.capped = report.substeps >= limit && report.max_ratio > 1.0;
                return report;
            }
            let stable = self.stable_dt();
            let dt = match step {
                FrameStep::Fixed { dt, .. } => dt,
                FrameStep::Auto { max_substeps } => {
                    let left = max_substeps.max(1) - report.substeps;
                    choose_dt(span - report.time, stable, left)
                }
            };
            report.substeps += 1;
            report.time += dt;
            report.max_ratio = report.max_ratio.max(dt / stable);
            report.min_stable_dt = report.min_stable_dt.min(stable);
            report.last_dt = dt;
            self.collider_blend = match planned {
                Some(n) => report.substeps as f64 / n as f64,
                None => (report.time / span).min(1.0),
            };
            self.params.dt = dt;
            self.substep();
        }
    }
}
