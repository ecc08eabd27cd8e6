//! Generalised winding numbers (Jacobson, Kavan and Sorkine-Hornung 2013), for mesh emitters
//! that fill a mesh's inside with snow.
//!
//! The winding number of a closed, consistently wound mesh is 1 inside and 0 outside. For a mesh
//! with holes or cracks it varies smoothly instead of jumping, so thresholding at ½ still gives a
//! sensible inside: a missing triangle shifts the value only by the solid angle the hole subtends,
//! which is small except right at the hole.
//!
//! Cost: `winding_number` is one solid angle per triangle, O(triangles); `points_inside` is
//! O(candidates inside the mesh's bounding box × triangles), spread over rayon's threads. One
//! point–triangle pair costs about 12 ns on one core of the 2-core build machine (release build,
//! 5k-triangle mesh) and 1.4 ns per pair spread over 16 cores, so a 10k-triangle mesh filled from 100k
//! candidates takes about 6 s on 2 cores and 1.4 s on 16. That is acceptable for emitters filled
//! once at scene load from meshes of a few thousand triangles; bigger meshes would want the
//! hierarchical evaluation of Barill et al. 2018 (far clusters of triangles replaced by their
//! dipole).

use glam::Vec3;
use rayon::prelude::*;

use super::geometry::solid_angle;
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
    let Some((lo, hi)) = mesh.bounds() else {
        return vec![false; candidates.len()];
    };
    candidates.par_iter().map(|&p| p.cmpge(lo).all() && p.cmple(hi).all() && winding_number(mesh, p) >= 0.5).collect()
}
