//! The pressure Poisson operator on the liquid cells: for liquid cell c,
//!
//! `(A p)_c = s Σ_faces θ_f (p_c − p_n)`,
//!
//! the sum over the cell's six faces with open fraction θ_f ([`PressureCells::open`]), `p_n` the
//! neighbour's pressure where it is liquid and 0 where it is air (the free surface), and no term
//! where the neighbour is solid or outside (its face is closed, or the wall carries no flow). `s`
//! scales the whole operator (1 on the grid itself; a multigrid level k takes 4⁻ᵏ, the
//! rediscretised operator of cells 2ᵏ times as large in the fine grid's units).
//!
//! `A` is symmetric and positive semi-definite, and definite on every group of connected liquid
//! cells that touches air. Vectors span every cell (x fastest) and are zero off the liquid.

use crate::sim::pressure::cells::{CellKind, PressureCells};

/// The operator's entries: the diagonal, and per axis the coupling to the next cell up that axis
/// (the matrix's upper part; symmetric, so the lower part is the same entries one cell down).
#[derive(Clone, Debug)]
pub struct Poisson {
    /// The cells it is built on.
    pub cells: PressureCells,
    /// `A_cc` per cell, 0 off the liquid.
    pub diag: Vec<f64>,
    /// `A_{c, c + stride_a}` per cell and axis a: `−s θ` between two liquid cells, else 0.
    pub upper: [Vec<f64>; 3],
}

impl Poisson {
    /// The operator of `cells`, every entry scaled by `scale`.
    pub fn new(cells: PressureCells, scale: f64) -> Self {
        let n = cells.len();
        let mut diag = vec![0.0; n];
        let mut upper: [Vec<f64>; 3] = std::array::from_fn(|_| vec![0.0; n]);
        let [nx, ny, nz] = cells.dims;
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    let c = cells.cell(i, j, k);
                    if cells.kind[c] != CellKind::Liquid {
                        continue;
                    }
                    let at = [i, j, k];
                    for a in 0..3 {
                        for up in [false, true] {
                            let mut f = at;
                            if up {
                                f[a] += 1;
                            }
                            let theta = cells.open[a][cells.face(a, f[0], f[1], f[2])];
                            if theta <= 0.0 {
                                continue;
                            }
                            // The neighbour across the face (inside the grid: boundary faces are
                            // closed).
                            let nb = if up { c + cells.stride(a) } else { c - cells.stride(a) };
                            match cells.kind[nb] {
                                CellKind::Liquid => {
                                    diag[c] += scale * theta;
                                    if up {
                                        upper[a][c] = -scale * theta;
                                    }
                                }
                                CellKind::Air => diag[c] += scale * theta,
                                CellKind::Solid => {}
                            }
                        }
                    }
                }
            }
        }
        Self { cells, diag, upper }
    }

    /// Whether cell `c` carries an unknown: liquid and coupled to something (a liquid cell closed
    /// on every side has a zero row and keeps zero pressure).
    pub fn active(&self, c: usize) -> bool {
        self.diag[c] > 0.0
    }

    /// `out = A x`.
    pub fn apply(&self, x: &[f64], out: &mut [f64]) {
        let n = self.diag.len();
        for c in 0..n {
            if !self.active(c) {
                out[c] = 0.0;
                continue;
            }
            let mut sum = self.diag[c] * x[c];
            for a in 0..3 {
                let s = self.cells.stride(a);
                if c + s < n {
                    sum += self.upper[a][c] * x[c + s];
                }
                if c >= s {
                    sum += self.upper[a][c - s] * x[c - s];
                }
            }
            out[c] = sum;
        }
    }

    /// `b − A x`.
    pub fn residual(&self, b: &[f64], x: &[f64]) -> Vec<f64> {
        let mut ax = vec![0.0; x.len()];
        self.apply(x, &mut ax);
        b.iter().zip(&ax).map(|(b, ax)| b - ax).collect()
    }
}

/// `Σ a_i b_i`.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(a, b)| a * b).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operator_is_symmetric_and_counts_open_faces() {
        // A 3×3×3 box, liquid below the top layer, one face partly closed.
        let mut cells =
            PressureCells::walled([3, 3, 3], |_, _, k| if k == 2 { CellKind::Air } else { CellKind::Liquid });
        let f = cells.face(0, 1, 1, 0);
        cells.open[0][f] = 0.25;
        let a = Poisson::new(cells, 1.0);
        // Centre of the bottom layer: 4 sideways faces (one at 0.25) and the one up, floor closed.
        let c = a.cells.cell(1, 1, 0);
        assert!((a.diag[c] - 4.25).abs() < 1e-12);
        // Middle layer, a corner: 2 sideways, down and up (air).
        assert_eq!(a.diag[a.cells.cell(0, 0, 1)], 4.0);
        let n = a.diag.len();
        // The first 18 columns of A (the two liquid layers).
        let columns: Vec<Vec<f64>> = (0..18)
            .map(|i| {
                let unit: Vec<f64> = (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect();
                let mut column = vec![0.0; n];
                a.apply(&unit, &mut column);
                column
            })
            .collect();
        for (i, ci) in columns.iter().enumerate() {
            for (j, cj) in columns.iter().enumerate() {
                assert!((ci[j] - cj[i]).abs() < 1e-12, "A[{j}][{i}] {} != A[{i}][{j}] {}", ci[j], cj[i]);
            }
        }
    }
}
