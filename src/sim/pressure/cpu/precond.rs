//! The preconditioners of the pressure solve, each an approximation `M⁻¹ ≈ A⁻¹` applied once per
//! conjugate-gradient iteration: `z = M⁻¹ r`. Every one is symmetric positive definite on the
//! active cells, as conjugate gradients needs.

use super::multigrid::Multigrid;
use super::operator::Poisson;
use crate::sim::pressure::Preconditioner;

/// MIC(0)'s modification weight τ: the share of the dropped fill-in moved to the diagonal (Bridson
/// 2015, §5.2; 1 is full MIC, whose diagonal can vanish on a uniform grid).
pub const MIC_TAU: f64 = 0.97;
/// MIC(0)'s safety σ: where the modified diagonal falls below σ A_cc (a cell whose neighbours took
/// nearly all of it), the plain diagonal is used instead (Bridson 2015).
pub const MIC_SIGMA: f64 = 0.25;

/// A preconditioner built for one operator.
#[derive(Clone, Debug)]
pub enum Precond {
    /// `z = r`.
    None,
    /// `z = D⁻¹ r`.
    Jacobi,
    /// `z = (I − L D⁻¹)(I − D⁻¹ Lᵀ) r`.
    IncompletePoisson,
    /// `z = (L Lᵀ)⁻¹ r` with `L`'s diagonal `1/precon` and its off-diagonal `A`'s lower part
    /// scaled by the column's `precon`.
    Mic0 {
        /// Per cell, `1/e` where `e` is MIC(0)'s modified pivot, squared-rooted (0 off the
        /// unknowns).
        precon: Vec<f64>,
    },
    /// One V-cycle.
    Multigrid(Box<Multigrid>),
}

impl Precond {
    /// Builds `kind` for `op`.
    pub fn new(kind: Preconditioner, op: &Poisson) -> Self {
        match kind {
            Preconditioner::None => Precond::None,
            Preconditioner::Jacobi => Precond::Jacobi,
            Preconditioner::IncompletePoisson => Precond::IncompletePoisson,
            Preconditioner::Mic0 => Precond::Mic0 { precon: mic0_factor(op) },
            Preconditioner::Multigrid => Precond::Multigrid(Box::new(Multigrid::new(op))),
        }
    }

    /// `z = M⁻¹ r` (zero off the unknowns).
    pub fn apply(&self, op: &Poisson, r: &[f64], z: &mut [f64]) {
        let n = r.len();
        match self {
            Precond::None => {
                for c in 0..n {
                    z[c] = if op.active(c) { r[c] } else { 0.0 };
                }
            }
            Precond::Jacobi => {
                for c in 0..n {
                    z[c] = if op.active(c) { r[c] / op.diag[c] } else { 0.0 };
                }
            }
            Precond::IncompletePoisson => incomplete_poisson(op, r, z),
            Precond::Mic0 { precon } => mic0_apply(op, precon, r, z),
            Precond::Multigrid(mg) => mg.v_cycle(r, z),
        }
    }
}

/// The incomplete Poisson preconditioner in two passes, each reading only the previous one's
/// output, so each is one parallel pass on the GPU: `y = r − D⁻¹ Lᵀ r`, then `z = y − L D⁻¹ y`.
fn incomplete_poisson(op: &Poisson, r: &[f64], z: &mut [f64]) {
    let n = r.len();
    let mut y = vec![0.0; n];
    for c in 0..n {
        if op.active(c) {
            // Lᵀ's row c: the couplings to the cells above c along each axis.
            let up: f64 = (0..3).map(|a| op.upper[a][c] * r.get(c + op.cells.stride(a)).copied().unwrap_or(0.0)).sum();
            y[c] = r[c] - up / op.diag[c];
        }
    }
    for c in 0..n {
        if !op.active(c) {
            z[c] = 0.0;
            continue;
        }
        // L's row c: the couplings to the cells below c, each over that cell's diagonal.
        let mut down = 0.0;
        for a in 0..3 {
            let s = op.cells.stride(a);
            if c >= s && op.active(c - s) {
                down += op.upper[a][c - s] * y[c - s] / op.diag[c - s];
            }
        }
        z[c] = y[c] - down;
    }
}

/// MIC(0)'s factor in lexicographic order (Bridson 2015, Fig. 5.8, in 3D): each cell's pivot from
/// the three cells below it along x, y and z, so a plane `i + j + k = s` needs only plane `s − 1`.
fn mic0_factor(op: &Poisson) -> Vec<f64> {
    let n = op.diag.len();
    let mut precon = vec![0.0; n];
    for c in 0..n {
        if !op.active(c) {
            continue;
        }
        let mut e = op.diag[c];
        for a in 0..3 {
            let s = op.cells.stride(a);
            if c < s || precon[c - s] == 0.0 {
                continue;
            }
            let below = c - s;
            let coupling = op.upper[a][below];
            let others: f64 = (0..3).filter(|&b| b != a).map(|b| op.upper[b][below]).sum();
            let p2 = precon[below] * precon[below];
            e -= coupling * coupling * p2 + MIC_TAU * coupling * others * p2;
        }
        if e < MIC_SIGMA * op.diag[c] {
            e = op.diag[c];
        }
        precon[c] = 1.0 / e.sqrt();
    }
    precon
}

/// Solves `L q = r` forward then `Lᵀ z = q` backward (Bridson 2015, Fig. 5.9, in 3D).
fn mic0_apply(op: &Poisson, precon: &[f64], r: &[f64], z: &mut [f64]) {
    let n = r.len();
    let mut q = vec![0.0; n];
    for c in 0..n {
        if precon[c] == 0.0 {
            continue;
        }
        let mut t = r[c];
        for a in 0..3 {
            let s = op.cells.stride(a);
            if c >= s {
                t -= op.upper[a][c - s] * precon[c - s] * q[c - s];
            }
        }
        q[c] = t * precon[c];
    }
    for c in (0..n).rev() {
        if precon[c] == 0.0 {
            z[c] = 0.0;
            continue;
        }
        let mut t = q[c];
        for a in 0..3 {
            let s = op.cells.stride(a);
            if c + s < n {
                t -= op.upper[a][c] * precon[c] * z[c + s];
            }
        }
        z[c] = t * precon[c];
    }
}
