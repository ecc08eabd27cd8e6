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

use glam::{DVec3, UVec3, Vec3};
use rayon::iter::Either;
use rayon::prelude::*;

use super::sdf_layer::{LayerOut, Scratch};
use super::topology::MeshTopology;
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

/// A point of a mesh's surface: a triangle and barycentric weights of its corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    /// Index of the triangle in the mesh, or `u32::MAX` for none.
    pub triangle: u32,
    /// Weights of the triangle's corners, in its order.
    pub barycentric: [f32; 3],
}

impl SurfacePoint {
    /// No point: a node beyond the band.
    pub const NONE: Self = Self { triangle: u32::MAX, barycentric: [0.0; 3] };

    /// The point's velocity given one velocity per mesh vertex: its corners' velocities weighted
    /// (zero for [`SurfacePoint::NONE`]).
    pub fn velocity(self, mesh: &TriangleMesh, vertex_velocity: &[Vec3]) -> Vec3 {
        let Some(corners) = mesh.triangles.get(self.triangle as usize) else {
            return Vec3::ZERO;
        };
        let [a, b, c] = corners.map(|i| vertex_velocity[i as usize]);
        let [u, w0, w1] = self.barycentric;
        a * u + b * w0 + c * w1
    }
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

/// A triangle that reaches the grid, with what the hot loop reads.
pub(super) struct BandTriangle {
    /// Index in the mesh.
    pub index: u32,
    /// Index in `SdfContext::components`.
    pub component: u32,
    /// Corners, metres.
    pub corners: [Vec3; 3],
    /// Unit face normal.
    pub normal: Vec3,
    /// Centre and radius of a sphere containing the triangle (centroid, farthest corner).
    pub centre: Vec3,
    /// See `centre`.
    pub radius: f32,
    /// Lowest and highest node index, per axis, within `band` of its bounding box (inclusive).
    pub nodes: NodeRange,
}

/// An inclusive box of node indices.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeRange {
    /// Lowest index per axis.
    pub lo: [usize; 3],
    /// Highest index per axis.
    pub hi: [usize; 3],
}

/// A connected component of the mesh.
pub(super) struct Component {
    /// Nodes within `band` of its bounding box, clipped to the grid; `None` if that is empty.
    pub nodes: Option<NodeRange>,
    /// Whether the unclipped box ran past the grid across x or y (see the module doc).
    pub clipped_xy: bool,
    /// Its triangles (mesh indices), for the winding number fallback.
    pub triangles: std::ops::Range<usize>,
}

/// Everything the layer tasks share, read-only.
pub(super) struct SdfContext<'a> {
    pub mesh: &'a TriangleMesh,
    pub vertex_velocity: Option<&'a [Vec3]>,
    pub topology: MeshTopology,
    /// Node coordinates along x, y and z, metres.
    pub axes: [Vec<f32>; 3],
    pub cell_size: f32,
    pub band: f32,
    pub triangles: Vec<BandTriangle>,
    pub components: Vec<Component>,
    /// Mesh triangles sorted by component (`Component::triangles` indexes this).
    pub by_component: Vec<u32>,
    /// `layer_triangles[layer_offsets[k]..layer_offsets[k + 1]]`: the band triangles reaching
    /// layer k, in component order.
    pub layer_offsets: Vec<usize>,
    pub layer_triangles: Vec<u32>,
}

impl<'a> SdfContext<'a> {
    fn new(mesh: &'a TriangleMesh, vertex_velocity: Option<&'a [Vec3]>, grid: &GridSpec, band: f32) -> Self {
        let topology = MeshTopology::new(mesh);
        let dims = grid.node_dims();
        let origin = grid.grid_origin();
        let h = grid.cell_size;
        // Node coordinates are computed in f64 and rounded once, so they match `GridSpec` exactly.
        let axis = |a: usize| (0..dims[a]).map(|i| (origin[a] + i as f64 * h) as f32).collect::<Vec<_>>();
        let axes = [axis(0), axis(1), axis(2)];

        let count = topology.component_count as usize;
        let mut offsets = vec![0usize; count + 1];
        for &c in &topology.component {
            offsets[c as usize + 1] += 1;
        }
        for c in 0..count {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        let mut by_component = vec![0u32; mesh.triangles.len()];
        for (t, &c) in topology.component.iter().enumerate() {
            by_component[fill[c as usize]] = t as u32;
            fill[c as usize] += 1;
        }

        // Per triangle, in component order and in parallel: the nodes its band reaches (unclipped,
        // for its component's box) and, if it reaches the grid and has an area, its band record.
        let prepared: Vec<(Option<Reach>, Option<BandTriangle>)> = by_component
            .par_iter()
            .map(|&t| {
                let corners = mesh.corners(t as usize);
                if !corners.iter().all(|p| p.is_finite()) {
                    return (None, None);
                }
                let (lo, hi) = reach_of(&corners, origin, h, band);
                let normal = topology.face_normal[t as usize];
                let band_triangle = clip(lo, hi, dims).0.filter(|_| normal != Vec3::ZERO).map(|nodes| {
                    let centre = (corners[0] + corners[1] + corners[2]) / 3.0;
                    let radius = corners.iter().map(|&p| p.distance(centre)).fold(0.0, f32::max);
                    let component = topology.component[t as usize];
                    BandTriangle { index: t, component, corners, normal, centre, radius, nodes }
                });
                (Some((lo, hi)), band_triangle)
            })
            .collect();
        let components = (0..count)
            .map(|c| {
                let reach = prepared[offsets[c]..offsets[c + 1]]
                    .iter()
                    .filter_map(|p| p.0)
                    .reduce(|(a, b), (lo, hi)| (min3(a, lo), max3(b, hi)));
                let (nodes, clipped_xy) = reach.map_or((None, false), |(lo, hi)| clip(lo, hi, dims));
                Component { nodes, clipped_xy, triangles: offsets[c]..offsets[c + 1] }
            })
            .collect();
        let triangles: Vec<BandTriangle> = prepared.into_iter().filter_map(|p| p.1).collect();

        // Band triangles per layer, kept in component order: a counting sort by layer.
        let mut layer_offsets = vec![0usize; dims.z as usize + 1];
        for t in &triangles {
            for k in t.nodes.lo[2]..=t.nodes.hi[2] {
                layer_offsets[k + 1] += 1;
            }
        }
        for k in 0..dims.z as usize {
            layer_offsets[k + 1] += layer_offsets[k];
        }
        let mut fill = layer_offsets.clone();
        let mut layer_triangles = vec![0u32; layer_offsets[dims.z as usize]];
        for (i, t) in triangles.iter().enumerate() {
            for k in t.nodes.lo[2]..=t.nodes.hi[2] {
                layer_triangles[fill[k]] = i as u32;
                fill[k] += 1;
            }
        }
        Self {
            mesh,
            vertex_velocity,
            topology,
            axes,
            cell_size: h as f32,
            band,
            triangles,
            components,
            by_component,
            layer_offsets,
            layer_triangles,
        }
    }
}

/// Lowest and highest node index per axis, not yet clipped to the grid.
type Reach = ([i64; 3], [i64; 3]);

/// Node indices (unclipped) of the box around `corners` grown by `band`.
fn reach_of(corners: &[Vec3; 3], origin: DVec3, h: f64, band: f32) -> Reach {
    let lo = corners[0].min(corners[1]).min(corners[2]).as_dvec3() - band as f64;
    let hi = corners[0].max(corners[1]).max(corners[2]).as_dvec3() + band as f64;
    let first = ((lo - origin) / h).ceil().as_i64vec3().to_array();
    let last = ((hi - origin) / h).floor().as_i64vec3().to_array();
    (first, last)
}

/// `lo..=hi` clipped to the grid (`None` if nothing is left), and whether x or y was clipped.
fn clip(lo: [i64; 3], hi: [i64; 3], dims: UVec3) -> (Option<NodeRange>, bool) {
    let max = dims.as_i64vec3().to_array().map(|d| d - 1);
    let clipped_xy = (0..2).any(|a| lo[a] < 0 || hi[a] > max[a]);
    if (0..3).any(|a| lo[a] > max[a] || hi[a] < 0 || lo[a] > hi[a]) {
        return (None, clipped_xy);
    }
    let lo = [0, 1, 2].map(|a| lo[a].max(0) as usize);
    let hi = [0, 1, 2].map(|a| hi[a].min(max[a]) as usize);
    (Some(NodeRange { lo, hi }), clipped_xy)
}

fn min3(a: [i64; 3], b: [i64; 3]) -> [i64; 3] {
    [0, 1, 2].map(|i| a[i].min(b[i]))
}

fn max3(a: [i64; 3], b: [i64; 3]) -> [i64; 3] {
    [0, 1, 2].map(|i| a[i].max(b[i]))
}
