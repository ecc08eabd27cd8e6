//! The pressure projection that makes liquid incompressible: the cells of the grid classified as
//! liquid, air or solid ([`cells`]), the Poisson problem for the pressure on them, and its
//! preconditioned conjugate-gradient solve, with an f64 CPU twin in [`cpu`]. `docs/water.md`
//! describes the method, the preconditioners and what each was measured to do.
//!
//! The settings here (preconditioner, tolerance, iteration cap) are what a scene and the panel
//! set; the solve reports what it did in [`cpu::pcg::PcgReport`].

pub mod cells;
pub mod cpu;
pub mod gpu;
pub mod problem;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Allowed [`PressureSettings::max_iterations`]: at least one; past 1000 a projection of a 128³
/// grid without a preconditioner is still not converged and costs seconds, which no setting
/// should allow silently.
pub const MAX_ITERATIONS_RANGE: (u32, u32) = (1, 1000);
/// Allowed [`PressureSettings::tolerance`] (relative residual `‖b − A p‖ / ‖b‖`): `[1e-12, 1]`.
/// Below 1e-12 f32 sums on the GPU cannot follow; 1 stops before the first iteration.
pub const TOLERANCE_RANGE: (f64, f64) = (1e-12, 1.0);

/// The preconditioner of the pressure solve's conjugate gradients: each is an approximate inverse
/// of the Poisson matrix `A`, applied once per iteration ([`cpu::precond`], [`cpu::multigrid`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preconditioner {
    /// Plain conjugate gradients.
    None,
    /// The diagonal of `A`.
    Jacobi,
    /// Incomplete Poisson (Ament et al. 2010): `(I − L D⁻¹)(I − D⁻¹ Lᵀ)` with `L` the strictly
    /// lower part of `A` and `D` its diagonal, two stencil passes with no recurrence.
    IncompletePoisson,
    /// Modified incomplete Cholesky MIC(0) (Bridson 2015, §5.2) in lexicographic order, whose
    /// triangular solves run as wavefronts: every cell of a plane `i + j + k = s` depends only on
    /// plane `s − 1`, so each plane is one parallel pass.
    Mic0,
    /// One multigrid V-cycle (McAdams, Sifakis and Teran 2010): damped Jacobi smoothing, trilinear
    /// prolongation and its transpose as restriction, the operator rediscretised on each coarser
    /// grid.
    #[default]
    Multigrid,
}

impl Preconditioner {
    /// Every preconditioner, in the order the panel and the benchmark list them.
    pub const ALL: [Preconditioner; 5] = [
        Preconditioner::None,
        Preconditioner::Jacobi,
        Preconditioner::IncompletePoisson,
        Preconditioner::Mic0,
        Preconditioner::Multigrid,
    ];

    /// The preconditioner called `name` ([`Preconditioner::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The name a scene file and the command line use.
    pub fn name(self) -> &'static str {
        match self {
            Preconditioner::None => "none",
            Preconditioner::Jacobi => "jacobi",
            Preconditioner::IncompletePoisson => "incomplete_poisson",
            Preconditioner::Mic0 => "mic0",
            Preconditioner::Multigrid => "multigrid",
        }
    }
}

/// How the pressure is solved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PressureSettings {
    /// The conjugate gradients' preconditioner.
    pub preconditioner: Preconditioner,
    /// The solve stops once `‖b − A p‖ / ‖b‖` is at most this.
    pub tolerance: f64,
    /// The solve stops after this many iterations, converged or not.
    pub max_iterations: u32,
}

impl Default for PressureSettings {
    fn default() -> Self {
        Self { preconditioner: Preconditioner::default(), tolerance: 1e-5, max_iterations: 100 }
    }
}

/// A pressure setting out of its range: which, its value and what is allowed.
#[derive(Debug, Error, PartialEq)]
#[error("pressure.{field} is {value}; allowed: {allowed}")]
pub struct PressureSettingsError {
    /// The setting's name in the scene format.
    pub field: &'static str,
    /// What it was.
    pub value: String,
    /// What it may be.
    pub allowed: String,
}

impl PressureSettings {
    /// Checks every setting against its range.
    pub fn validate(&self) -> Result<(), PressureSettingsError> {
        let (lo, hi) = TOLERANCE_RANGE;
        if !(self.tolerance >= lo && self.tolerance <= hi) {
            return Err(PressureSettingsError {
                field: "tolerance",
                value: self.tolerance.to_string(),
                allowed: format!("[{lo:e}, {hi}]"),
            });
        }
        let (lo, hi) = MAX_ITERATIONS_RANGE;
        if !(lo..=hi).contains(&self.max_iterations) {
            return Err(PressureSettingsError {
                field: "max_iterations",
                value: self.max_iterations.to_string(),
                allowed: format!("[{lo}, {hi}]"),
            });
        }
        Ok(())
    }
}
