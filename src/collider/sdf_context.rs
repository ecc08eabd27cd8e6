//! What the layer tasks of the mesh SDF build ([`super::sdf`]) share, read-only: the band
//! triangles with the nodes each reaches, the mesh's connected components, and which triangles
//! reach each z layer; and [`SurfacePoint`], the closest point a band node records.

use glam::{DVec3, UVec3, Vec3};
use rayon::prelude::*;

use super::topology::MeshTopology;
use crate::grid::GridSpec;
use crate::mesh::TriangleMesh;

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

/// A triangle that reaches the grid, with what the hot loop reads.
pub(crate) struct BandTriangle {
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
pub(crate) struct NodeRange {
    /// Lowest index per axis.
    pub lo: [usize; 3],
    /// Highest index per axis.
    pub hi: [usize; 3],
}

/// A connected component of the mesh.
pub(crate) struct Component {
    /// Nodes within `band` of its bounding box, clipped to the grid; `None` if that is empty.
    pub nodes: Option<NodeRange>,
    /// Whether the unclipped box ran past the grid across x or y (see the module doc).
    pub clipped_xy: bool,
    /// Its triangles (mesh indices), for the winding number fallback.
    pub triangles: std::ops::Range<usize>,
}

/// Everything the layer tasks share, read-only.
pub(crate) struct SdfContext<'a> {
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
    pub(crate) fn new(mesh: &'a TriangleMesh, vertex_velocity: Option<&'a [Vec3]>, grid: &GridSpec, band: f32) -> Self {
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
