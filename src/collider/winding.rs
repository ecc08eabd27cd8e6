//! Generalised winding numbers (Jacobson, Kavan and Sorkine-Hornung 2013), for mesh emitters
//! that fill a mesh's inside with snow.
//!
//! The winding number of a closed, consistently wound mesh is 1 inside and 0 outside. For a mesh
//! with holes or cracks it varies smoothly instead of jumping, so thresholding at ½ still gives a
//! sensible inside: a missing triangle shifts the value only by the solid angle the hole subtends,
//! which is small except right at the hole.
//!
//! [`winding_number`] is the brute-force sum, one solid angle per triangle: the reference. The
//! inside tests ([`points_inside`], [`lattice_inside`]) use the hierarchy of
//! [`super::winding_tree`] instead, O(log triangles) a point, and on a lattice of points near a
//! closed mesh they classify a whole box of points with one query when no triangle comes near the
//! box (a closed mesh's winding number is constant between its sheets).

use glam::Vec3;
use rayon::prelude::*;

use super::geometry::solid_angle;
use super::winding_tree::WindingTree;
use crate::mesh::TriangleMesh;

/// The generalised winding number of `mesh` at `p`: the sum of the signed solid angles of its
/// triangles seen from `p`, over 4π. About 1 inside a closed counter-clockwise mesh, 0 outside,
/// and in between near holes. Summed in f64 so that many small terms do not lose precision.
pub fn winding_number(mesh: &TriangleMesh, p: Vec3) -> f32 {
    winding_number_of(mesh, (0..mesh.triangles.len()).map(|t| t as u32), p)
}

/// The winding number at `p` of only the listed triangles of `mesh` (one component of it, say).
pub(crate) fn winding_number_of(mesh: &TriangleMesh, triangles: impl IntoIterator<Item = u32>, p: Vec3) -> f32 {
    let total: f64 = triangles.into_iter().map(|t| solid_angle(p, mesh.corners(t as usize)) as f64).sum();
    (total / (4.0 * std::f64::consts::PI)) as f32
}

/// For each candidate point, whether it lies inside `mesh`: winding number ≥ ½. Points outside
/// the mesh's bounding box are outside without evaluating anything. Parallel over candidates.
pub fn points_inside(mesh: &TriangleMesh, candidates: &[Vec3]) -> Vec<bool> {
    let tree = WindingTree::new(mesh);
    candidates.par_iter().map(|&p| point_inside(&tree, p)).collect()
}

/// Whether `p` is within the tree's bounds and its winding number is at least ½.
fn point_inside(tree: &WindingTree, p: Vec3) -> bool {
    tree.bounds().is_some_and(|(lo, hi)| p.cmpge(lo).all() && p.cmple(hi).all()) && tree.winding_number(p) >= 0.5
}

/// Points per axis of the bricks a lattice is split into for the threads.
const BRICK: usize = 16;

/// [`points_inside`] for points near a regular lattice: `points` holds `dims[0] × dims[1] ×
/// dims[2]` points, x fastest, so that neighbours in the index are neighbours in space (each
/// within a fraction of the spacing of its lattice site). Same answers as testing each point, up
/// to the hierarchy's truncation error; on a closed mesh a box of points that no triangle's
/// bounding box meets is classified by one of its points. Parallel over bricks of 16³ points;
/// deterministic.
pub fn lattice_inside(tree: &WindingTree, points: &[Vec3], dims: [usize; 3]) -> Vec<bool> {
    if dims.iter().product::<usize>() != points.len() {
        return points.par_iter().map(|&p| point_inside(tree, p)).collect();
    }
    let tiles = dims.map(|n| n.div_ceil(BRICK));
    let bricks: Vec<[usize; 3]> = (0..tiles[2])
        .flat_map(|k| (0..tiles[1]).flat_map(move |j| (0..tiles[0]).map(move |i| [i * BRICK, j * BRICK, k * BRICK])))
        .collect();
    let lattice = Lattice { points, dims };
    let results: Vec<Vec<(usize, bool)>> = bricks
        .par_iter()
        .map(|&start| {
            let end = [0, 1, 2].map(|a| (start[a] + BRICK).min(dims[a]));
            let mut out = Vec::with_capacity(BRICK * BRICK * BRICK);
            lattice.classify(tree, start, end, &mut out);
            out
        })
        .collect();
    let mut inside = vec![false; points.len()];
    for (index, value) in results.into_iter().flatten() {
        inside[index] = value;
    }
    inside
}

struct Lattice<'a> {
    points: &'a [Vec3],
    dims: [usize; 3],
}

impl Lattice<'_> {
    /// Indices of the points of the index box `[start, end)`.
    fn indices(&self, start: [usize; 3], end: [usize; 3]) -> impl Iterator<Item = usize> + '_ {
        let [nx, ny, _] = self.dims;
        (start[2]..end[2]).flat_map(move |k| {
            (start[1]..end[1]).flat_map(move |j| (start[0]..end[0]).map(move |i| i + nx * (j + ny * k)))
        })
    }

    /// Appends `(index, inside)` for every point of the index box `[start, end)`.
    fn classify(&self, tree: &WindingTree, start: [usize; 3], end: [usize; 3], out: &mut Vec<(usize, bool)>) {
        let Some((mesh_lo, mesh_hi)) = tree.bounds() else {
            out.extend(self.indices(start, end).map(|i| (i, false)));
            return;
        };
        let (lo, hi) = self
            .indices(start, end)
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), i| (lo.min(self.points[i]), hi.max(self.points[i])));
        let in_bounds = |p: Vec3| p.cmpge(mesh_lo).all() && p.cmple(mesh_hi).all();
        // Wholly outside the mesh's box: outside, as point by point.
        if hi.cmplt(mesh_lo).any() || lo.cmpgt(mesh_hi).any() {
            out.extend(self.indices(start, end).map(|i| (i, false)));
            return;
        }
        let count: usize = (0..3).map(|a| end[a] - start[a]).product();
        if count > 1 && tree.is_closed() && !tree.touches_box(lo, hi) {
            // No sheet crosses the box, so the integer winding number is the same at all its points.
            let first = self.points[self.indices(start, end).next().unwrap_or(0)];
            let inside = tree.winding_number(first) >= 0.5;
            out.extend(self.indices(start, end).map(|i| (i, inside && in_bounds(self.points[i]))));
            return;
        }
        if count <= 1 || !tree.is_closed() {
            out.extend(self.indices(start, end).map(|i| (i, point_inside(tree, self.points[i]))));
            return;
        }
        let axis = (0..3).max_by_key(|&a| (end[a] - start[a], 3 - a)).unwrap_or(0);
        let mid = (start[axis] + end[axis]) / 2;
        let (mut left_end, mut right_start) = (end, start);
        left_end[axis] = mid;
        right_start[axis] = mid;
        self.classify(tree, start, left_end, out);
        self.classify(tree, right_start, end, out);
    }
}
