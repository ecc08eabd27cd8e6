//! The water's grid cells with the colliders in it: cells whose centre lies inside a collider are
//! solid, and each face between two cells is open by the share of its area outside every
//! collider (Batty, Bertails and Bridson 2007), so water flows along a slanted or curved collider
//! rather than down steps of whole cells. The colliders come as their signed distance at the
//! cells' corners; the box's walls are the solid layer around the domain either way.

use crate::sim::pressure::cells::{CellKind, PressureCells, face_dims, face_index};

/// Samples per side of a face for its open share (4 × 4 points, bilinear in the corners'
/// distances).
const FACE_SAMPLES: usize = 4;

/// The cells of a domain of `cells` cells (the solid layer around it added), solid where
/// `distance` says a collider is. `distance(corner)` is the signed distance (negative inside) at
/// corner `corner` of the grid, corner n along an axis lying at `(n − 1) h` from the domain's
/// lowest corner (so grid cell g spans corners g and g + 1). Without colliders the cells are the
/// walled box. Every fluid cell is marked liquid (the step classifies liquid and air itself).
pub fn cells_with_solids(cells: [usize; 3], distance: Option<&dyn Fn([usize; 3]) -> f64>) -> PressureCells {
    let dims = cells.map(|c| c + 2);
    let solid_inside = |at: [usize; 3]| -> bool {
        distance.is_some_and(|d| {
            let sum: f64 = (0..8).map(|c| d([at[0] + (c & 1), at[1] + ((c >> 1) & 1), at[2] + (c >> 2)])).sum();
            sum < 0.0
        })
    };
    let mut out = PressureCells::walled(dims, |i, j, k| {
        let inside = [i, j, k].iter().zip(&dims).all(|(&n, &d)| n >= 1 && n + 1 < d);
        if inside && !solid_inside([i, j, k]) { CellKind::Liquid } else { CellKind::Solid }
    });
    let Some(d) = distance else { return out };
    for a in 0..3 {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let fd = face_dims(dims, a);
        for k in 0..fd[2] {
            for j in 0..fd[1] {
                for i in 0..fd[0] {
                    let f = face_index(dims, a, [i, j, k]);
                    if out.open[a][f] == 0.0 {
                        continue;
                    }
                    // The face's four corners: along a at the face's own corner index, across at
                    // the cell's two.
                    let corner = |sb: usize, sc: usize| {
                        let mut at = [i, j, k];
                        at[b] += sb;
                        at[c] += sc;
                        d(at)
                    };
                    let phi = [[corner(0, 0), corner(0, 1)], [corner(1, 0), corner(1, 1)]];
                    let mut outside = 0;
                    for s in 0..FACE_SAMPLES * FACE_SAMPLES {
                        let u = ((s % FACE_SAMPLES) as f64 + 0.5) / FACE_SAMPLES as f64;
                        let v = ((s / FACE_SAMPLES) as f64 + 0.5) / FACE_SAMPLES as f64;
                        let value = (1.0 - u) * ((1.0 - v) * phi[0][0] + v * phi[0][1])
                            + u * ((1.0 - v) * phi[1][0] + v * phi[1][1]);
                        outside += usize::from(value >= 0.0);
                    }
                    out.open[a][f] = outside as f64 / (FACE_SAMPLES * FACE_SAMPLES) as f64;
                }
            }
        }
    }
    out
}

/// The colliders' velocity on the faces of `cells` ([`cells_with_solids`]'s), each face's own
/// component, m/s: the mean of its four corners' `velocity(corner)` (corners as
/// [`cells_with_solids`] numbers them) on every face a collider covers in part or touches (open
/// below 1, or beside a collider's solid cell), zero elsewhere and on the box's walls. The water
/// step gives a face beside a collider this velocity and counts the covered share of a face as
/// carrying it (Batty et al. 2007), so a moving collider pushes water.
pub fn face_velocities(cells: &PressureCells, velocity: &dyn Fn([usize; 3]) -> [f64; 3]) -> [Vec<f64>; 3] {
    let dims = cells.dims;
    let in_box_wall = |at: [usize; 3]| (0..3).any(|a| at[a] == 0 || at[a] + 1 >= dims[a]);
    std::array::from_fn(|a| {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let fd = face_dims(dims, a);
        let mut out = vec![0.0; fd.iter().product()];
        for k in 0..fd[2] {
            for j in 0..fd[1] {
                for i in 0..fd[0] {
                    let node = [i, j, k];
                    if node[a] == 0 || node[a] >= dims[a] {
                        continue;
                    }
                    let high = node;
                    let mut low = node;
                    low[a] -= 1;
                    if in_box_wall(high) || in_box_wall(low) {
                        continue;
                    }
                    let f = face_index(dims, a, node);
                    let solid = |at: [usize; 3]| cells.kind[cells.cell(at[0], at[1], at[2])] == CellKind::Solid;
                    if cells.open[a][f] >= 1.0 && !solid(high) && !solid(low) {
                        continue;
                    }
                    let mut sum = 0.0;
                    for (sb, sc) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        let mut at = node;
                        at[b] += sb;
                        at[c] += sc;
                        sum += velocity(at)[a];
                    }
                    out[f] = 0.25 * sum;
                }
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane at height z = 1.6 h (corner n at (n − 1) h): grid cells 1 (z from 0 to h) and 2
    /// (h to 2h, its corners' mean distance −0.1 h) are solid, cell 3 fluid; a vertical face in
    /// layer 2 is cut by the plane, open by the share of its samples above it.
    #[test]
    fn a_plane_makes_the_cells_below_solid_and_cuts_the_faces_it_crosses() {
        let h = 1.0;
        let plane = |c: [usize; 3]| (c[2] as f64 - 1.0) * h - 1.6 * h;
        let cells = cells_with_solids([4, 4, 4], Some(&plane));
        let kind = |k| cells.kind[cells.cell(2, 2, k)];
        assert_eq!([kind(1), kind(2), kind(3)], [CellKind::Solid, CellKind::Solid, CellKind::Liquid]);
        // A vertical (x) face in layer 2: distances −0.6 h and 0.4 h at its lower and upper
        // corners, so the samples at 0.625 and 0.875 of its height are outside: open 0.5.
        let f = cells.face(0, 2, 2, 2);
        assert!((cells.open[0][f] - 0.5).abs() < 1e-12, "{}", cells.open[0][f]);
        // Fully above: open; fully below: closed.
        assert_eq!(cells.open[0][cells.face(0, 2, 2, 3)], 1.0);
        assert_eq!(cells.open[0][cells.face(0, 2, 2, 1)], 0.0);
        // Without colliders: the walled box.
        assert_eq!(
            cells_with_solids([4, 4, 4], None),
            PressureCells::walled([6, 6, 6], |i, j, k| {
                if [i, j, k].iter().all(|&n| (1..5).contains(&n)) { CellKind::Liquid } else { CellKind::Solid }
            })
        );
    }
}
