//! A geometric multigrid V-cycle as the conjugate gradients' preconditioner, after McAdams,
//! Sifakis and Teran 2010 ("A parallel multigrid Poisson solver for fluids simulation on large
//! grids"): the cells coarsened by two per axis ([`PressureCells::coarsen`]), the operator
//! rediscretised on each level, damped Jacobi smoothing, trilinear prolongation of the coarse
//! correction to the cell centres and its transpose (over 8) as restriction.
//!
//! Conjugate gradients needs the preconditioner to be a fixed symmetric positive definite
//! operator, so the cycle starts from zero, smooths as often after the coarse correction as
//! before with a symmetric smoother, restricts with the prolongation's transpose and ends on the
//! coarsest level with a fixed number of smoothing sweeps.

use super::operator::Poisson;
use crate::sim::pressure::cells::CellKind;

/// Damped Jacobi's weight: 2/3 damps the upper half of the 3D Laplacian's spectrum best.
pub const JACOBI_WEIGHT: f64 = 2.0 / 3.0;
/// Smoothing sweeps before and after each coarse correction.
pub const SMOOTHING_SWEEPS: usize = 2;
/// Sweeps on the coarsest level (at most 4 cells a side, where 32 Jacobi sweeps reach across).
pub const COARSEST_SWEEPS: usize = 32;
/// The coarsening stops once a level is at most this many cells along its longest axis.
pub const COARSEST_CELLS: usize = 4;

/// The levels of a V-cycle, finest first.
#[derive(Clone, Debug)]
pub struct Multigrid {
    /// Level 0 is the operator being preconditioned; level k has cells 2ᵏ times as large and its
    /// operator scaled by 4⁻ᵏ (the fine grid's units).
    pub levels: Vec<Poisson>,
}

impl Multigrid {
    /// The levels of `op`'s cells, coarsened until [`COARSEST_CELLS`].
    pub fn new(op: &Poisson) -> Self {
        let mut levels = vec![op.clone()];
        let mut scale = 1.0;
        while levels.last().map(|l| l.cells.dims.iter().copied().max().unwrap_or(0) > COARSEST_CELLS) == Some(true) {
            scale *= 0.25;
            let cells = levels.last().map(|l| l.cells.coarsen()).unwrap_or_else(|| op.cells.clone());
            levels.push(Poisson::new(cells, scale));
        }
        Self { levels }
    }

    /// `z = M⁻¹ r`: one V-cycle from zero.
    pub fn v_cycle(&self, r: &[f64], z: &mut [f64]) {
        let out = self.cycle(0, r);
        z.copy_from_slice(&out);
    }

    fn cycle(&self, level: usize, b: &[f64]) -> Vec<f64> {
        let op = &self.levels[level];
        let mut x = vec![0.0; b.len()];
        if level + 1 == self.levels.len() {
            smooth(op, b, &mut x, COARSEST_SWEEPS);
            return x;
        }
        smooth(op, b, &mut x, SMOOTHING_SWEEPS);
        let r = op.residual(b, &x);
        let coarse = &self.levels[level + 1];
        let mut bc = vec![0.0; coarse.diag.len()];
        for_each_weight(op, coarse, |fine, c, w| bc[c] += w * r[fine] / 8.0);
        let xc = self.cycle(level + 1, &bc);
        for_each_weight(op, coarse, |fine, c, w| x[fine] += w * xc[c]);
        smooth(op, b, &mut x, SMOOTHING_SWEEPS);
        x
    }
}

/// `sweeps` damped Jacobi sweeps on `A x = b`, over the active cells.
fn smooth(op: &Poisson, b: &[f64], x: &mut [f64], sweeps: usize) {
    for _ in 0..sweeps {
        let r = op.residual(b, x);
        for c in 0..x.len() {
            if op.active(c) {
                x[c] += JACOBI_WEIGHT * r[c] / op.diag[c];
            }
        }
    }
}

/// Calls `f(fine cell, coarse cell, weight)` for each weight of the trilinear prolongation from
/// `coarse` to the fine cells that carry an unknown: a fine cell's centre lies a quarter of a coarse cell from its
/// parent's, so along each axis it takes 3/4 of its parent and 1/4 of the parent's neighbour on its
/// side. A neighbour that is air contributes its zero (the free surface); one that is solid or
/// past the grid carries no value, and its weight goes to the parent (a zero-gradient wall).
/// Restriction uses the same weights, so it is the prolongation's transpose.
fn for_each_weight(fine: &Poisson, coarse: &Poisson, mut f: impl FnMut(usize, usize, f64)) {
    let [nx, ny, nz] = fine.cells.dims;
    let cd = coarse.cells.dims;
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let cell = fine.cells.cell(i, j, k);
                if !fine.active(cell) {
                    continue;
                }
                let at = [i, j, k];
                let parent = at.map(|n| n / 2);
                // Per axis: the neighbour's coarse index along it, if it carries a value.
                let side: [Option<usize>; 3] = std::array::from_fn(|a| {
                    let n = if at[a] % 2 == 0 { parent[a].checked_sub(1) } else { Some(parent[a] + 1) };
                    n.filter(|&n| n < cd[a]).filter(|&n| {
                        let mut q = parent;
                        q[a] = n;
                        coarse.cells.kind[coarse.cells.cell(q[0], q[1], q[2])] != CellKind::Solid
                    })
                });
                for corner in 0..8 {
                    let mut q = parent;
                    let mut w = 1.0;
                    let mut valid = true;
                    for a in 0..3 {
                        let far = (corner >> a) & 1 == 1;
                        match (far, side[a]) {
                            (false, Some(_)) => w *= 0.75,
                            (false, None) => {}
                            (true, Some(n)) => {
                                q[a] = n;
                                w *= 0.25;
                            }
                            (true, None) => valid = false,
                        }
                    }
                    if !valid {
                        continue;
                    }
                    let c = coarse.cells.cell(q[0], q[1], q[2]);
                    if coarse.active(c) {
                        f(cell, c, w);
                    }
                }
            }
        }
    }
}
