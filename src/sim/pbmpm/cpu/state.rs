//! What PB-MPM's CPU twin keeps besides the particles: each particle's in-step state
//! ([`StepState`]), the grid of displacements ([`PbmpmGrid`]) and what a step did ([`StepReport`]).

use nalgebra::{Matrix3, Vector3};

use crate::sim::params::GridSpec;

/// A particle's state within one step: its displacement over the step, its affine displacement
/// and the constraint impulse it has applied so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepState {
    /// Displacement d over this step, metres (the particle moves by it at the end of the step).
    pub displacement: Vector3<f64>,
    /// Affine displacement D (dimensionless): the displacement field near the particle is
    /// `d + D·(x − x_p)`, and the step changes the elastic deformation by `I + D`.
    pub affine: Matrix3<f64>,
    /// Constraint impulse Λ applied so far this step, kg·m² (the XPBD multiplier, a matrix): at
    /// convergence `Λ = dt² · V⁰ · τ(F')`, the stress term of an implicit step.
    pub impulse: Matrix3<f64>,
}

impl Default for StepState {
    fn default() -> Self {
        Self { displacement: Vector3::zeros(), affine: Matrix3::zeros(), impulse: Matrix3::zeros() }
    }
}

/// The grid of PB-MPM in f64: node mass and displacement (the reference keeps displacements on
/// the grid, not velocities). One entry per node, indexed by [`GridSpec::node_index`].
#[derive(Clone, Debug, PartialEq)]
pub struct PbmpmGrid {
    /// Node mass, kg (written by [`super::transfer::p2g`]).
    pub mass: Vec<f64>,
    /// Mass-weighted displacement sum, kg·m (written by [`super::transfer::p2g`]).
    pub displacement_sum: Vec<Vector3<f64>>,
    /// Node displacement after colliders and walls, metres (written by [`super::grid::grid_update`]).
    pub displacement: Vec<Vector3<f64>>,
}

impl PbmpmGrid {
    /// An all-zero grid for `spec`.
    pub fn new(spec: &GridSpec) -> Self {
        let n = spec.node_count() as usize;
        Self {
            mass: vec![0.0; n],
            displacement_sum: vec![Vector3::zeros(); n],
            displacement: vec![Vector3::zeros(); n],
        }
    }

    /// Zeroes mass and displacement sums (before a scatter).
    pub fn clear(&mut self) {
        self.mass.fill(0.0);
        self.displacement_sum.fill(Vector3::zeros());
    }
}

/// What one step did, for tests and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Particles whose new position lay outside the domain box and was clamped back into it.
    /// Walls stop the snow before that in any sane run, so this stays 0.
    pub clamped: usize,
    /// The largest particle displacement of the step, in cells.
    pub max_displacement_cells: f64,
}

/// What a Newton–PCG step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveReport {
    /// Conjugate-gradient iterations run.
    pub iterations: u32,
    /// The preconditioned residual norm `√(rᵀz)` at the prediction, kg·m.
    pub initial_residual: f64,
    /// The same at the end, over its initial value (0 when it started at 0).
    pub relative_residual: f64,
    /// The residual at the end over the one at the prediction in the norm `‖r‖² = Σ |r_i|²/m_i`:
    /// what the GPU reports, which has no preconditioned residual after its last iteration. 0
    /// when the prediction's residual, as an rms speed `‖r₀‖/(dt √Σm)`, is under
    /// [`super::newton::RESIDUAL_FLOOR`].
    pub mass_residual: f64,
}
