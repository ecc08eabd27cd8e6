//! The cells of the pressure solve: what each holds (liquid, air or solid) and how open each face
//! between two cells is to flow.
//!
//! A face's open fraction θ ∈ [0, 1] is the share of its area not inside a solid (Batty, Bertails
//! and Bridson 2007): water then flows along a curved wall of a collider rather than in steps of
//! whole cells. The faces on the domain's boundary are closed (θ = 0): its walls are solid.

/// What a cell holds for the pressure solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// No liquid: the pressure there is zero (the free surface's condition).
    Air,
    /// Liquid: one unknown pressure.
    Liquid,
    /// Inside a solid: no unknown, and its faces carry no flow.
    Solid,
}

/// The cells of a box `dims` cells wide, their kinds and their faces' open fractions.
#[derive(Clone, Debug, PartialEq)]
pub struct PressureCells {
    /// Cells along x, y and z.
    pub dims: [usize; 3],
    /// Per cell, x fastest.
    pub kind: Vec<CellKind>,
    /// Per axis a, per face: the face with index `(i, j, k)` along a lies between the cell one
    /// below along a and cell `(i, j, k)`; the array has `dims[a] + 1` faces along a.
    pub open: [Vec<f64>; 3],
}

impl PressureCells {
    /// The box with every interior face fully open and the boundary's closed, each cell's kind
    /// from `kind(i, j, k)`.
    pub fn walled(dims: [usize; 3], kind: impl Fn(usize, usize, usize) -> CellKind) -> Self {
        let mut cells = Self {
            dims,
            kind: Vec::with_capacity(dims[0] * dims[1] * dims[2]),
            open: std::array::from_fn(|a| vec![0.0; face_count(dims, a)]),
        };
        for k in 0..dims[2] {
            for j in 0..dims[1] {
                for i in 0..dims[0] {
                    cells.kind.push(kind(i, j, k));
                }
            }
        }
        for a in 0..3 {
            let fd = face_dims(dims, a);
            for k in 0..fd[2] {
                for j in 0..fd[1] {
                    for i in 0..fd[0] {
                        let n = [i, j, k][a];
                        if n > 0 && n < dims[a] {
                            cells.open[a][face_index(dims, a, [i, j, k])] = 1.0;
                        }
                    }
                }
            }
        }
        cells
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// The index of cell `(i, j, k)`.
    pub fn cell(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.dims[0] * (j + self.dims[1] * k)
    }

    /// The index of the face along `axis` on the low side of cell `(i, j, k)` (`(i, j, k)` may
    /// be one past the last cell along `axis`: the boundary's high face).
    pub fn face(&self, axis: usize, i: usize, j: usize, k: usize) -> usize {
        face_index(self.dims, axis, [i, j, k])
    }

    /// The index step between neighbouring cells along `axis`.
    pub fn stride(&self, axis: usize) -> usize {
        [1, self.dims[0], self.dims[0] * self.dims[1]][axis]
    }

    /// The coarser cells of a multigrid level: half as many along each axis (rounded up). A
    /// coarse cell is air if any of its cells is (the free surface's zero pressure must reach
    /// the coarse grids, McAdams et al. 2010), else liquid if any is, else solid; a coarse face's
    /// open fraction is the mean of the four fine faces it covers (those past the grid count as
    /// closed).
    pub fn coarsen(&self) -> Self {
        let dims = self.dims.map(|d| d.div_ceil(2));
        let fine = |i: usize, j: usize, k: usize| -> Option<CellKind> {
            (i < self.dims[0] && j < self.dims[1] && k < self.dims[2]).then(|| self.kind[self.cell(i, j, k)])
        };
        let mut coarse = Self::walled(dims, |i, j, k| {
            let children: Vec<CellKind> =
                (0..8).filter_map(|c| fine(2 * i + (c & 1), 2 * j + ((c >> 1) & 1), 2 * k + (c >> 2))).collect();
            if children.contains(&CellKind::Air) {
                CellKind::Air
            } else if children.contains(&CellKind::Liquid) {
                CellKind::Liquid
            } else {
                CellKind::Solid
            }
        });
        for a in 0..3 {
            let (fd, cd) = (face_dims(self.dims, a), face_dims(dims, a));
            let (b, c) = ((a + 1) % 3, (a + 2) % 3);
            for k in 0..cd[2] {
                for j in 0..cd[1] {
                    for i in 0..cd[0] {
                        let at = [i, j, k];
                        let mut sum = 0.0;
                        for s in 0..4 {
                            let mut f = [0; 3];
                            f[a] = 2 * at[a];
                            f[b] = 2 * at[b] + (s & 1);
                            f[c] = 2 * at[c] + (s >> 1);
                            if f[0] < fd[0] && f[1] < fd[1] && f[2] < fd[2] {
                                sum += self.open[a][face_index(self.dims, a, f)];
                            }
                        }
                        coarse.open[a][i + cd[0] * (j + cd[1] * k)] = 0.25 * sum;
                    }
                }
            }
        }
        coarse
    }
}

/// Faces along `axis` of a box of `dims` cells, per axis.
pub fn face_dims(dims: [usize; 3], axis: usize) -> [usize; 3] {
    let mut d = dims;
    d[axis] += 1;
    d
}

/// The index of face `node` along `axis` of a box of `dims` cells, x fastest.
pub fn face_index(dims: [usize; 3], axis: usize, node: [usize; 3]) -> usize {
    let fd = face_dims(dims, axis);
    node[0] + fd[0] * (node[1] + fd[1] * node[2])
}

fn face_count(dims: [usize; 3], axis: usize) -> usize {
    face_dims(dims, axis).iter().product()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walled_box_closes_its_boundary_faces_only() {
        let cells = PressureCells::walled([3, 2, 2], |_, _, _| CellKind::Liquid);
        // Along x: 4 faces per row, the first and last closed.
        let open: Vec<f64> = (0..4).map(|i| cells.open[0][cells.face(0, i, 1, 1)]).collect();
        assert_eq!(open, vec![0.0, 1.0, 1.0, 0.0]);
        assert_eq!(cells.open[2].iter().sum::<f64>(), 6.0, "one interior z face per column of 6");
    }

    #[test]
    fn coarsening_keeps_air_then_liquid_and_averages_faces() {
        // 4×2×2: the right half's top-right fine cell is air.
        let mut cells =
            PressureCells::walled(
                [4, 2, 2],
                |i, j, k| {
                    if (i, j, k) == (3, 1, 1) { CellKind::Air } else { CellKind::Liquid }
                },
            );
        let f = cells.face(0, 2, 0, 0);
        cells.open[0][f] = 0.2;
        let coarse = cells.coarsen();
        assert_eq!(coarse.dims, [2, 1, 1]);
        assert_eq!(coarse.kind, vec![CellKind::Liquid, CellKind::Air]);
        // The coarse face between the two covers fine faces (2, 0..2, 0..2): 0.2, 1, 1, 1.
        assert!((coarse.open[0][coarse.face(0, 1, 0, 0)] - 0.8).abs() < 1e-12);
        assert_eq!(coarse.open[0][coarse.face(0, 0, 0, 0)], 0.0);
    }
}
