//! What the SDF's sign needs from a triangle soup: vertices welded by position, connected
//! components, and the angle-weighted pseudo-normals of every face, edge and vertex (Bærentzen and
//! Aanæs 2005).
//!
//! Welding comes first because glTF exporters duplicate vertices along hard edges (one copy per
//! face normal): without it a box would be six separate faces, each its own "component", and the
//! edges and corners would have no pseudo-normals spanning both faces.
//!
//! Components are triangles connected through shared welded vertices. Sharing an edge would be the
//! stricter test (parts touching at a single vertex would stay apart), but a mesh with
//! T-junctions, common in kit-bashed and CAD exports, would then fall apart into open pieces whose
//! insides are undefined; connectivity through vertices keeps such a mesh whole. The cost is that
//! overlapping parts which happen to share a vertex position count as one, and near that part's
//! surface inside the other the sign can be wrong.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use glam::Vec3;
use rayon::prelude::*;

use crate::mesh::TriangleMesh;

/// Vertices closer than this fraction of the mesh's largest extent (per axis) are welded.
pub const WELD_TOLERANCE: f32 = 1e-6;

/// A mesh's welded connectivity and pseudo-normals. Pseudo-normals are sums of unit face normals,
/// not normalised: only their direction matters for the sign test.
pub struct MeshTopology {
    /// Connected component of each triangle, numbered densely from 0.
    pub component: Vec<u32>,
    /// Number of components.
    pub component_count: u32,
    /// Unit normal of each triangle, `(b − a) × (c − a)` normalised; zero for a degenerate one.
    pub face_normal: Vec<Vec3>,
    /// Pseudo-normal of each triangle's edge k (corner k to k + 1): the sum of the normals of the
    /// faces sharing it, so just the face's own normal on a hole's rim.
    pub edge_normal: Vec<[Vec3; 3]>,
    /// Angle-weighted pseudo-normal of each triangle's corner k: that of its welded vertex, summed
    /// over all the corners there.
    pub corner_normal: Vec<[Vec3; 3]>,
}

impl MeshTopology {
    /// Welds, labels components and accumulates pseudo-normals. Linear in the mesh size except for
    /// a parallel sort of the edges; the per-triangle work runs on rayon's threads, and what stays
    /// serial (welding, union–find, summing) is a few passes over the vertices and corners.
    pub fn new(mesh: &TriangleMesh) -> Self {
        let welded = weld(&mesh.positions);
        let ids: Vec<[u32; 3]> = mesh.triangles.par_iter().map(|t| t.map(|v| welded[v as usize])).collect();
        let face_normal: Vec<Vec3> = (0..mesh.triangles.len())
            .into_par_iter()
            .map(|t| face_normal_of(mesh.corners(t)).normalize_or_zero())
            .collect();

        // Edges: every triangle side keyed by its welded ends, sorted so that the sides of one
        // edge are adjacent; each gets the sum of their faces' normals.
        let mut sides: Vec<(u64, u32)> = (0..ids.len() * 3)
            .into_par_iter()
            .map(|side| {
                let (t, k) = (side / 3, side % 3);
                (edge_key(ids[t][k], ids[t][(k + 1) % 3]), side as u32)
            })
            .collect();
        sides.par_sort_unstable();
        let mut edge_normal = vec![[Vec3::ZERO; 3]; ids.len()];
        for edge in sides.chunk_by(|a, b| a.0 == b.0) {
            let sum: Vec3 = edge.iter().map(|&(_, side)| face_normal[side as usize / 3]).sum();
            for &(_, side) in edge {
                edge_normal[side as usize / 3][side as usize % 3] = sum;
            }
        }

        let mut components = UnionFind::new(mesh.positions.len());
        for corners in &ids {
            components.union(corners[0], corners[1]);
            components.union(corners[1], corners[2]);
        }
        let mut label = vec![u32::MAX; mesh.positions.len()];
        let mut component_count = 0;
        let component: Vec<u32> = ids
            .iter()
            .map(|corners| {
                let root = components.find(corners[0]) as usize;
                if label[root] == u32::MAX {
                    label[root] = component_count;
                    component_count += 1;
                }
                label[root]
            })
            .collect();

        // Vertices: each corner adds its face normal weighted by its angle to its welded vertex
        // (in parallel per corner, then summed serially in corner order, so the sums do not
        // depend on the thread count).
        let corner_terms: Vec<[Vec3; 3]> = (0..ids.len())
            .into_par_iter()
            .map(|t| {
                let p = mesh.corners(t);
                [0, 1, 2].map(|k| {
                    let (u, v) = (p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
                    u.cross(v).length().atan2(u.dot(v)) * face_normal[t]
                })
            })
            .collect();
        let mut vertex_normal = vec![Vec3::ZERO; mesh.positions.len()];
        for (corners, terms) in ids.iter().zip(&corner_terms) {
            for k in 0..3 {
                vertex_normal[corners[k] as usize] += terms[k];
            }
        }
        let corner_normal = ids.par_iter().map(|corners| corners.map(|v| vertex_normal[v as usize])).collect();
        Self { component, component_count, face_normal, edge_normal, corner_normal }
    }
}

/// The unnormalised normal `(b − a) × (c − a)` of a triangle.
pub fn face_normal_of([a, b, c]: [Vec3; 3]) -> Vec3 {
    (b - a).cross(c - a)
}

fn edge_key(a: u32, b: u32) -> u64 {
    (a.min(b) as u64) << 32 | a.max(b) as u64
}

/// Each vertex's representative: the first earlier vertex within `WELD_TOLERANCE · extent` on every
/// axis, or itself. Vertices are bucketed in cubes of four times the tolerance, so a match lies in
/// the vertex's own cube or, along an axis where the vertex is within a quarter cube of a face, in
/// the neighbour across it: no pair within tolerance is missed because it straddles a face, and
/// most vertices probe one to three cubes instead of eight.
pub(crate) fn weld(positions: &[Vec3]) -> Vec<u32> {
    let bounds = positions.iter().try_fold(None, |acc: Option<(Vec3, Vec3)>, &p| {
        p.is_finite().then(|| Some(acc.map_or((p, p), |(lo, hi)| (lo.min(p), hi.max(p)))))
    });
    let (lo, hi) = match bounds {
        Some(Some(bounds)) => bounds,
        Some(None) => return Vec::new(),
        // A non-finite position: weld nothing rather than hash NaNs (the SDF skips such triangles).
        None => return (0..positions.len() as u32).collect(),
    };
    let extent = (hi - lo).max_element();
    let tolerance = (extent * WELD_TOLERANCE).max(f32::MIN_POSITIVE);
    let cube = 4.0 * tolerance as f64;
    // First vertex in each cube, and a chain to the next vertex in the same cube.
    let mut first: FastMap<[i64; 3], u32> = FastMap::default();
    first.reserve(positions.len());
    let mut next_in_cube = vec![u32::MAX; positions.len()];
    let mut welded = Vec::with_capacity(positions.len());
    for (index, &p) in positions.iter().enumerate() {
        // f64, so the fraction within the cube is accurate even 10⁶ cubes from `lo`.
        let scaled = (p - lo).as_dvec3() / cube;
        let key = scaled.floor().as_i64vec3().to_array();
        let fraction = (scaled - scaled.floor()).to_array();
        let step = fraction.map(|f| {
            if f < 0.25 {
                -1i64
            } else if f > 0.75 {
                1
            } else {
                0
            }
        });
        let mut found = None;
        'search: for corner in 0..8i64 {
            if (0..3).any(|axis| corner >> axis & 1 == 1 && step[axis] == 0) {
                continue;
            }
            let probe = [0, 1, 2].map(|axis| key[axis] + (corner >> axis & 1) * step[axis]);
            let mut candidate = first.get(&probe).copied().unwrap_or(u32::MAX);
            while candidate != u32::MAX {
                if (positions[candidate as usize] - p).abs().max_element() <= tolerance {
                    found = Some(candidate);
                    break 'search;
                }
                candidate = next_in_cube[candidate as usize];
            }
        }
        match found {
            Some(representative) => welded.push(welded[representative as usize]),
            None => {
                welded.push(index as u32);
                if let Some(head) = first.insert(key, index as u32) {
                    next_in_cube[index] = head;
                }
            }
        }
    }
    welded
}

/// Disjoint sets with path halving, for components.
struct UnionFind(Vec<u32>);

impl UnionFind {
    fn new(n: usize) -> Self {
        Self((0..n as u32).collect())
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.0[x as usize] != x {
            let grandparent = self.0[self.0[x as usize] as usize];
            self.0[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        self.0[a.max(b) as usize] = a.min(b);
    }
}

/// A hash map with a multiply-rotate hasher (FxHash's): std's SipHash guards against adversarial
/// keys, which vertex cubes and edge ids are not, and costs several times more per lookup.
type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[derive(Default)]
struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}

/// Whether `mesh` is closed: with vertices welded by position ([`weld`]), every edge is
/// crossed as often from a to b as from b to a. Then the winding number is an integer off the
/// surface, whatever the mesh's self-intersections.
pub(crate) fn is_closed(mesh: &TriangleMesh) -> bool {
    let welded = weld(&mesh.positions);
    if welded.len() != mesh.positions.len() {
        return false;
    }
    // (edge, ±1) for each side, sorted so that the sides of one edge are adjacent.
    let mut sides: Vec<(u64, i32)> = mesh
        .triangles
        .par_iter()
        .flat_map_iter(|t| {
            let ids = t.map(|v| welded[v as usize]);
            (0..3).map(move |k| {
                let (a, b) = (ids[k], ids[(k + 1) % 3]);
                ((a.min(b) as u64) << 32 | a.max(b) as u64, if a < b { 1 } else { -1 })
            })
        })
        .filter(|&(key, _)| key >> 32 != key & 0xffff_ffff)
        .collect();
    sides.par_sort_unstable();
    sides.chunk_by(|a, b| a.0 == b.0).all(|edge| edge.iter().map(|s| s.1).sum::<i32>() == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welds_duplicates_and_near_duplicates_across_cube_faces() {
        // Extent 1, so the tolerance is 1e-6 and the cubes 4e-6 wide. Vertices 1 and 2 are 2e-10
        // apart but on either side of a cube face, so only the neighbour search welds them; vertex
        // 0 is 4e-6 from vertex 1, beyond the tolerance.
        let p = vec![Vec3::ZERO, Vec3::splat(3.999_9e-6), Vec3::splat(4.000_1e-6), Vec3::ONE, Vec3::ONE];
        let w = weld(&p);
        assert_eq!(w, vec![0, 1, 1, 3, 3]);
    }

    #[test]
    fn triangles_sharing_welded_corners_form_one_component() {
        // A quad as two triangles with duplicated corners (as a glTF exporter writes a hard edge),
        // a separate triangle, and one touching the quad only at its corner at the origin.
        let positions = vec![
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::X,
            Vec3::ONE.with_z(0.0),
            Vec3::Y,
            Vec3::Z * 5.0,
            Vec3::ONE * 5.0,
            Vec3::X * 5.0,
            Vec3::ZERO,
            -Vec3::X,
            -Vec3::Y,
        ];
        let mesh = TriangleMesh { positions, triangles: vec![[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]] };
        let topo = MeshTopology::new(&mesh);
        assert_eq!(topo.component, vec![0, 0, 1, 0]);
        assert_eq!(topo.component_count, 2);
        // The origin joins two right angles, both facing +z.
        assert!((topo.corner_normal[0][0] - Vec3::Z * std::f32::consts::PI).length() < 1e-6);
        assert_eq!(topo.corner_normal[0][0], topo.corner_normal[3][0]);
        // The shared diagonal's pseudo-normal sums both faces; the rim edges have one face each.
        assert_eq!(topo.edge_normal[0][1], Vec3::Z * 2.0);
        assert_eq!(topo.edge_normal[0][0], Vec3::Z);
    }
}
