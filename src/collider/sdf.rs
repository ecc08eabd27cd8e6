//! A triangle mesh's signed distance field on the simulation grid, with the outward normal and
//! the surface velocity at every node near the surface.
//!
//! **Distance.** A narrow-band build: each triangle visits only the nodes within `band` of its
//! bounding sphere (rows clipped to the sphere, then skipped when the plane distance or the
//! sphere bound already exceeds the node's best), and keeps the closest. The work is split by z
//! layer of nodes: each rayon task owns one layer of the output and loops over the triangles that
//! reach it, so no two tasks write the same node and the hot loop has no locks or atomics.
//!
//! **Sign near the surface.** Angle-weighted pseudo-normals (Bærentzen and Aanæs 2005): the sign
//! of `(node − closest point) · n` with `n` the pseudo-normal of the face, edge or vertex the
//! closest point lies on. It is exact for a closed, consistently wound mesh, needs no ray casting,
//! and degrades gracefully at a small hole (the rim's edges take their one face's normal, so nodes
//! whose closest point is near the rim still get the side they are on). Vertices are welded by
//! position first (`collider::topology`), because glTF splits them along hard edges.
//!
//! **Unions of parts.** A character built of overlapping closed boxes and capsules has surfaces
//! inside other parts, where one global pseudo-normal test would call nodes "outside". So the
//! field is built per connected component (triangles sharing welded vertices) and the union is the
//! minimum over components. That is exact outside the union; inside, its magnitude is the depth
//! inside the deepest part, a lower bound of the depth inside the union.
//!
//! **Sign beyond the band.** Per component and layer, the band nodes' signs are carried along
//! x rows and then y columns to the nodes beyond the band: two neighbouring nodes of which one is
//! at least a cell from the surface cannot be on opposite sides of it, so a run of such nodes
//! takes the sign of the band node that ends it. This needs no assumption that the grid boundary
//! is outside (a ground block may run past the domain), and holes narrower than the band are
//! sealed by it. A layer in which a component has no band node at all is entirely on one side of
//! it: outside if the component's bounding box fits in the grid across x and y, otherwise decided
//! by the component's winding number at one node ([`super::winding`]).
//!
//! **Cost.** About (band + triangle size)³ node visits per triangle, a few closest-point queries
//! each, plus serial work linear in the mesh (welding, union–find). `powder::bench::sdf` measures
//! it (docs/performance.md has the build times).

use glam::Vec3;
use rayon::iter::Either;
use rayon::prelude::*;

use super::sdf_context::SdfContext;
pub use super::sdf_context::SurfacePoint;
use super::sdf_layer::{LayerOut, Scratch};
use crate::grid::GridSpec;
use crate::mesh::TriangleMesh;

/// A mesh's signed distance field sampled at every grid node, in [`GridSpec::node_index`] order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshSdf {
    /// Signed distance to the mesh, metres: negative inside. Exact within the band; clamped to
    /// ±band beyond it, with the sign still right.
    pub distance: Vec<f32>,
    /// Unit direction away from the solid (the distance gradient) at band nodes: from the closest
    /// point to the node outside, from the node to the closest point inside. At a node on the
    /// surface it is the pseudo-normal there. Zero beyond the band.
    pub normal: Vec<Vec3>,
    /// Velocity of the closest surface point, interpolated from its triangle's corners, m/s. Zero
    /// beyond the band or when no vertex velocities were given.
    pub velocity: Vec<Vec3>,
    /// The closest surface point of each band node ([`SurfacePoint::NONE`] beyond the band), from
    /// which [`MeshSdf::with_velocity`] gives the field of the same surface moving otherwise. Kept
    /// only by a build given vertex velocities; empty otherwise, and for an analytic shape's field
    /// (`super::shapes`), whose velocity is its pose's.
    pub closest: Vec<SurfacePoint>,
}

impl MeshSdf {
    /// The field of `mesh`, the surface this field was built from, moving with `vertex_velocity`:
    /// the same distances and normals, and each band node's velocity from its closest point. A
    /// moving collider's field at the end of one frame is thus its field at the start of the next
    /// with the next frame's velocities, without a second build ([`super::set`]). Equal, bit for
    /// bit, to `mesh_sdf(mesh, Some(vertex_velocity), ..)` on the same grid.
    ///
    /// # Panics
    /// If the field kept no closest points (it was built without velocities, or is an analytic
    /// shape's), or `vertex_velocity` does not have one entry per mesh vertex.
    pub fn with_velocity(self, mesh: &TriangleMesh, vertex_velocity: &[Vec3]) -> MeshSdf {
        assert_eq!(self.closest.len(), self.distance.len(), "a field built with vertex velocities");
        assert_eq!(vertex_velocity.len(), mesh.positions.len(), "one vertex velocity per mesh vertex");
        let velocity = self.closest.par_iter().map(|p| p.velocity(mesh, vertex_velocity)).collect();
        MeshSdf { velocity, ..self }
    }
}

/// The signed distance field of `mesh` on `grid`, exact within `band_cells` cells of the surface.
/// `vertex_velocity`, one per mesh vertex, gives the surface velocity field.
///
/// `band_cells` below 1 is raised to 1: the sign beyond the band relies on a node a cell away from
/// the surface being unable to have a neighbour on the other side. Triangles with zero area or a
/// non-finite corner are skipped (a degenerate triangle's edges are its neighbours' edges).
///
/// # Panics
/// If `vertex_velocity` is given with a length other than the mesh's vertex count, or a triangle
/// indexes a vertex that does not exist.
pub fn mesh_sdf(mesh: &TriangleMesh, vertex_velocity: Option<&[Vec3]>, grid: &GridSpec, band_cells: f32) -> MeshSdf {
    if let Some(v) = vertex_velocity {
        assert_eq!(v.len(), mesh.positions.len(), "one vertex velocity per mesh vertex");
    }
    let band = band_cells.max(1.0) * grid.cell_size as f32;
    let context = SdfContext::new(mesh, vertex_velocity, grid, band);
    let dims = grid.node_dims();
    let layer = dims.x as usize * dims.y as usize;
    let nodes = layer * dims.z as usize;
    // Zero-filled in parallel: a serial fill of the two Vec3 arrays (56 MB at 128³) would take
    // longer than everything else that is not parallel. Distances are set per layer.
    let zeros = || (0..nodes).into_par_iter().map(|_| Vec3::ZERO).collect::<Vec<_>>();
    // The closest points are kept only where velocities are given (a moving collider, whose field
    // may serve again with other velocities); a static build writes them to a scratch layer.
    let kept = if vertex_velocity.is_some() { nodes } else { 0 };
    let mut sdf = MeshSdf {
        distance: vec![0.0; nodes],
        normal: zeros(),
        velocity: zeros(),
        closest: (0..kept).into_par_iter().map(|_| SurfacePoint::NONE).collect(),
    };
    let closest = if kept > 0 {
        Either::Left(sdf.closest.par_chunks_mut(layer).map(Some))
    } else {
        Either::Right((0..dims.z as usize).into_par_iter().map(|_| None))
    };
    sdf.distance
        .par_chunks_mut(layer)
        .zip(sdf.normal.par_chunks_mut(layer))
        .zip(sdf.velocity.par_chunks_mut(layer))
        .zip(closest)
        .enumerate()
        .for_each_init(
            || (Scratch::new(dims, band), Vec::new()),
            |(scratch, unkept), (k, (((distance, normal), velocity), closest))| {
                distance.fill(band);
                let closest = closest.unwrap_or_else(|| {
                    unkept.resize(layer, SurfacePoint::NONE);
                    &mut unkept[..]
                });
                context.layer(k, scratch, LayerOut { distance, normal, velocity, closest });
            },
        );
    sdf
}
