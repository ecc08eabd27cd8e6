//! The position-based MPM integrator (PB-MPM, after Lewin 2024, "A Position Based Material Point
//! Method"): its settings here, its f64 CPU twin in [`cpu`]. `docs/pbmpm.md` describes the method
//! and what each setting and material parameter does in it.
//!
//! A step of PB-MPM solves for each particle's displacement over the step instead of integrating
//! forces: every iteration gathers grid displacements to the particles, moves each particle's
//! affine displacement toward its material's constraint, and scatters back. The step length is
//! limited by how far the snow moves (about a cell per step), not by how fast waves cross a cell,
//! so stiff or hardened snow needs no more steps than soft snow.

pub mod cpu;
pub mod gpu;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::sim::params::MAX_SUBSTEPS_PER_FRAME;

/// Allowed [`PbmpmSettings::iterations`]: one projection at least; past 64 a step costs as much as
/// an explicit frame of stiff snow, which is what the method is for avoiding.
pub const ITERATIONS_RANGE: (u32, u32) = (1, 64);
/// Allowed [`PbmpmSettings::dt`], seconds: `(0, 0.1]`, as a scene's fixed `time.dt`.
pub const DT_MAX: f64 = 0.1;
/// Largest [`PbmpmSettings::motion_cfl`]: a particle may move at most one cell per step, the
/// reach of the one-cell halo around each tile that a fused GPU pass loads.
pub const MOTION_CFL_MAX: f64 = 1.0;
/// Default [`PbmpmSettings::iterations`]: the conjugate-gradient iterations of the default
/// Newton–PCG solve (`docs/pbmpm.md`, "The Newton–PCG solve", says what fewer lose).
pub const DEFAULT_ITERATIONS: u32 = 10;
/// Default [`PbmpmSettings::tolerance`] (`docs/pbmpm.md`, "Stopping and the residual").
pub const DEFAULT_TOLERANCE: f64 = 1e-3;
/// Default [`PbmpmSettings::motion_cfl`], cells per step (`docs/pbmpm.md`, "Step length").
pub const DEFAULT_MOTION_CFL: f64 = 0.3;
/// Default [`PbmpmSettings::yield_time`], seconds (`docs/pbmpm.md`, "Yield relaxation").
pub const DEFAULT_YIELD_TIME: f64 = 0.0015;
/// Largest [`PbmpmSettings::yield_time`], seconds: past it snow pushed beyond its yield limit
/// springs back as if elastic for longer than a frame, which no longer reads as snow.
pub const YIELD_TIME_MAX: f64 = 0.1;
/// Upper end (open) of [`PbmpmSettings::relaxation`]: a relaxed fixed-point iteration of a
/// symmetric problem diverges from a factor of 2 on.
pub const RELAXATION_MAX: f64 = 2.0;

/// Newton steps per time step in a scene with sand, default ([`PbmpmSettings::newton_steps`]).
pub const DEFAULT_NEWTON_STEPS: u32 = 3;
/// Newton steps per time step, allowed range.
pub const NEWTON_STEPS_RANGE: (u32, u32) = (1, 8);

/// How a PB-MPM step is solved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PbSolver {
    /// The constraint iterations: each particle steps toward its material's stress in turn
    /// (`docs/pbmpm.md`, "One step"). Cheap, and softer than the material the finer the grid.
    Constraints,
    /// One Newton step on the grid's displacements, conjugate gradients with a multilevel
    /// preconditioner ([`cpu::newton`]): the backward-Euler answer at any resolution.
    #[default]
    Newton,
}

/// How the PB-MPM integrator steps. Serialized as a JSON object; every field has a default.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PbmpmSettings {
    /// How each step is solved.
    pub solver: PbSolver,
    /// Iterations per step: constraint iterations (each: project, scatter, grid update, gather),
    /// or under [`PbSolver::Newton`] the most conjugate-gradient iterations (fewer where the
    /// [`PbmpmSettings::tolerance`] is met first). Constraint iterations: more look
    /// stiffer: the solution converges to the elastic answer of the material's moduli as this
    /// grows, and fewer iterations leave the snow softer than its moduli say.
    pub iterations: u32,
    /// The longest step, seconds. A frame runs in equal steps no longer than this and no longer
    /// than the motion limit ([`PbmpmSettings::motion_cfl`]).
    pub dt: f64,
    /// The most a particle may move in one step, in cells: a frame takes enough steps that the
    /// fastest particle at its start moves at most this far per step.
    pub motion_cfl: f64,
    /// Relaxation factor of each constraint projection: 1 takes the step the local linearized
    /// problem asks for, below 1 under-relaxes (slower, softer), above 1 over-relaxes.
    pub relaxation: f64,
    /// Yield relaxation time τ, seconds: strain a step leaves beyond the snow's elastic range
    /// `[1 − θc, 1 + θs]` turns plastic at the rate `1/τ` instead of at once, so each step keeps
    /// the fraction `exp(−dt/τ)` of the excess elastic ([`PbmpmSettings::keep`]). 0 turns all of
    /// it plastic at the step's end, the explicit integrator's (and the paper's) rule.
    /// `docs/pbmpm.md` says why the default is not 0.
    pub yield_time: f64,
    /// Under [`PbSolver::Newton`]: a step's CG iterations stop once the preconditioned residual
    /// norm `√(rᵀz)` has fallen to this fraction of its value at the prediction (0: always
    /// `iterations`).
    pub tolerance: f64,
    /// Under [`PbSolver::Newton`], in a scene with sand or a visco-plastic fluid: Newton steps per
    /// time step, each solved with at most [`PbmpmSettings::iterations`] CG iterations. Their
    /// stress is returned to the yield surface inside the solve, which bends the force where they
    /// yield, so the step linearises again at what the last Newton step found; other scenes take
    /// one ([`PbmpmSettings::newton_steps_for`]). `docs/pbmpm.md`, "Yielding inside the Newton solve".
    pub newton_steps: u32,
}

impl Default for PbmpmSettings {
    fn default() -> Self {
        Self {
            solver: PbSolver::Newton,
            iterations: DEFAULT_ITERATIONS,
            dt: 1.0 / 240.0,
            motion_cfl: DEFAULT_MOTION_CFL,
            relaxation: 1.5,
            yield_time: DEFAULT_YIELD_TIME,
            tolerance: DEFAULT_TOLERANCE,
            newton_steps: DEFAULT_NEWTON_STEPS,
        }
    }
}

/// A setting outside its allowed range.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("pbmpm.{field} = {value} is out of range: allowed {allowed}")]
pub struct PbmpmSettingsError {
    /// The field, as in the JSON object (`iterations`, `dt`, `motion_cfl`, `relaxation`).
    pub field: &'static str,
    /// The value found, as text.
    pub value: String,
    /// What would have been accepted, e.g. `(0, 2)`.
    pub allowed: String,
}

impl PbmpmSettings {
    /// Checks every field against its range; the error names the first field out of range.
    pub fn validate(&self) -> Result<(), PbmpmSettingsError> {
        let (lo, hi) = ITERATIONS_RANGE;
        if !(lo..=hi).contains(&self.iterations) {
            return Err(PbmpmSettingsError {
                field: "iterations",
                value: self.iterations.to_string(),
                allowed: format!("an integer in [{lo}, {hi}]"),
            });
        }
        let (lo, hi) = NEWTON_STEPS_RANGE;
        if !(lo..=hi).contains(&self.newton_steps) {
            return Err(PbmpmSettingsError {
                field: "newton_steps",
                value: self.newton_steps.to_string(),
                allowed: format!("an integer in [{lo}, {hi}]"),
            });
        }
        let checks = [
            ("dt", self.dt, self.dt > 0.0 && self.dt <= DT_MAX, format!("(0, {DT_MAX}]")),
            (
                "motion_cfl",
                self.motion_cfl,
                self.motion_cfl > 0.0 && self.motion_cfl <= MOTION_CFL_MAX,
                format!("(0, {MOTION_CFL_MAX}]"),
            ),
            (
                "yield_time",
                self.yield_time,
                (0.0..=YIELD_TIME_MAX).contains(&self.yield_time),
                format!("[0, {YIELD_TIME_MAX}]"),
            ),
            ("tolerance", self.tolerance, (0.0..1.0).contains(&self.tolerance), "[0, 1)".to_string()),
            (
                "relaxation",
                self.relaxation,
                self.relaxation > 0.0 && self.relaxation < RELAXATION_MAX,
                format!("(0, {RELAXATION_MAX})"),
            ),
        ];
        // NaN fails every comparison above, so it is reported like any other value out of range.
        for (field, value, ok, allowed) in checks {
            if !ok {
                return Err(PbmpmSettingsError { field, value: value.to_string(), allowed });
            }
        }
        Ok(())
    }

    /// The Newton steps a time step takes among `params`'s materials:
    /// [`PbmpmSettings::newton_steps`] if one is sand or visco-plastic (their stress is returned
    /// inside the solve), else 1.
    pub fn newton_steps_for(&self, params: &crate::sim::params::SolverParams) -> u32 {
        if params.materials().any(|m| m.kind.yields_in_solve()) { self.newton_steps } else { 1 }
    }

    /// The fraction of a step's excess strain over the elastic range that stays elastic at the
    /// step's end: `exp(−dt/τ)` with τ = [`PbmpmSettings::yield_time`], 0 for τ = 0. Kinds that
    /// yield inside the solve take 0 whatever τ ([`crate::sim::material::MaterialKind::yields_in_solve`]:
    /// the solve's stress already followed their return, and kept, the excess made a honey film
    /// on a slope stiffer, 0.885 of the Nusselt speed at 1/240 s steps and 0.44 at 1 ms).
    pub fn keep(&self, dt: f64) -> f64 {
        if self.yield_time > 0.0 { (-dt / self.yield_time).exp() } else { 0.0 }
    }

    /// The steps of a frame of `duration` seconds: `(steps, dt)` with `steps · dt = duration`,
    /// `dt ≤` [`PbmpmSettings::dt`] and `dt · speed ≤ motion_cfl · cell_size`, where `speed`
    /// (m/s) is the fastest particle's. A speed that is not finite counts as `max_speed`. At most
    /// [`MAX_SUBSTEPS_PER_FRAME`] steps: past that the steps get longer than the motion limit.
    pub fn plan_frame(&self, duration: f64, speed: f64, max_speed: f64, cell_size: f64) -> (u32, f64) {
        let speed = if speed.is_finite() { speed.min(max_speed) } else { max_speed };
        let motion = if speed > 0.0 { self.motion_cfl * cell_size / speed } else { f64::INFINITY };
        let limit = self.dt.min(motion);
        let wanted = (duration / limit).ceil().clamp(1.0, MAX_SUBSTEPS_PER_FRAME as f64);
        let steps = wanted as u32;
        (steps, duration / steps as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_round_trip_through_json() {
        let s = PbmpmSettings::default();
        assert_eq!(s.validate(), Ok(()));
        let json = serde_json::to_string(&s).expect("serializes");
        assert_eq!(serde_json::from_str::<PbmpmSettings>(&json).expect("parses"), s);
        // Missing fields take their defaults; unknown ones are refused.
        let partial: PbmpmSettings = serde_json::from_str(r#"{"iterations": 8}"#).expect("parses");
        assert_eq!(partial, PbmpmSettings { iterations: 8, ..s });
        assert!(serde_json::from_str::<PbmpmSettings>(r#"{"iteration": 8}"#).is_err());
    }

    #[test]
    fn errors_name_the_field_and_its_range() {
        let bad = |s: PbmpmSettings| s.validate().expect_err("out of range").to_string();
        let d = PbmpmSettings::default();
        assert_eq!(
            bad(PbmpmSettings { iterations: 0, ..d }),
            "pbmpm.iterations = 0 is out of range: allowed an integer in [1, 64]"
        );
        assert_eq!(bad(PbmpmSettings { dt: 0.0, ..d }), "pbmpm.dt = 0 is out of range: allowed (0, 0.1]");
        assert_eq!(
            bad(PbmpmSettings { motion_cfl: 1.5, ..d }),
            "pbmpm.motion_cfl = 1.5 is out of range: allowed (0, 1]"
        );
        assert_eq!(
            bad(PbmpmSettings { relaxation: f64::NAN, ..d }),
            "pbmpm.relaxation = NaN is out of range: allowed (0, 2)"
        );
        assert_eq!(bad(PbmpmSettings { relaxation: 2.0, ..d }), "pbmpm.relaxation = 2 is out of range: allowed (0, 2)");
        assert_eq!(bad(PbmpmSettings { tolerance: 1.0, ..d }), "pbmpm.tolerance = 1 is out of range: allowed [0, 1)");
        assert_eq!(
            bad(PbmpmSettings { newton_steps: 0, ..d }),
            "pbmpm.newton_steps = 0 is out of range: allowed an integer in [1, 8]"
        );
        assert_eq!(
            bad(PbmpmSettings { tolerance: -0.1, ..d }),
            "pbmpm.tolerance = -0.1 is out of range: allowed [0, 1)"
        );
    }

    #[test]
    fn frames_split_by_the_step_and_by_motion() {
        let s = PbmpmSettings { dt: 0.01, motion_cfl: 0.5, ..PbmpmSettings::default() };
        // At rest: the fixed step alone, 1/30 s in 4 steps of 1/120 s.
        let (n, dt) = s.plan_frame(1.0 / 30.0, 0.0, 50.0, 0.05);
        assert_eq!(n, 4);
        assert!((dt - 1.0 / 120.0).abs() < 1e-15);
        // 10 m/s on 5 cm cells: at most 2.5 ms per step, so 14 steps (13.33 rounded up).
        let (n, dt) = s.plan_frame(1.0 / 30.0, 10.0, 50.0, 0.05);
        assert_eq!(n, 14);
        assert!(dt * 10.0 <= 0.5 * 0.05);
        // A speed that is not finite counts as max_speed; the step count is capped.
        assert_eq!(s.plan_frame(1.0, f64::NAN, 50.0, 0.05).0, 2000);
        assert_eq!(s.plan_frame(100.0, 50.0, 50.0, 1e-3).0, MAX_SUBSTEPS_PER_FRAME);
    }
}
