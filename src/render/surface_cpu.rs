//! The CPU twin of `surface_extract` (`shaders/render/surface.wgsl`): marching tetrahedra over the
//! density volume's fill sums, in the same order of operations, written for clarity. Also welds a
//! triangle soup into an indexed mesh (for export and for checking that the surface is closed).

use glam::{IVec3, UVec3, Vec3};

use super::surface_params::{SURFACE_EDGE_MARGIN, SURFACE_ISO};
use super::volume_splat::VOLUME_FIXED_SCALE;

/// The six tetrahedra of a cube (Kuhn's triangulation), as corner indices (bit 0 = x, bit 1 = y,
/// bit 2 = z) along a monotone path from corner 0 to corner 7.
pub const TETRAHEDRA: [[usize; 4]; 6] =
    [[0, 1, 3, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 4, 6, 7]];

/// A triangle corner of the twin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuSurfaceVertex {
    /// World position, metres.
    pub position: Vec3,
    /// Unit outward normal (the fill's gradient, reversed).
    pub normal: Vec3,
}

/// The volume the surface is extracted from.
#[derive(Clone, Copy, Debug)]
pub struct SurfaceVolume<'a> {
    /// Fixed-point fill sums, x fastest ([`super::volume_splat::VolumeContents::sums`]).
    pub sums: &'a [u32],
    /// Voxels per axis.
    pub dims: UVec3,
    /// Voxel edge, metres.
    pub voxel: f32,
    /// World position of the volume's lower corner.
    pub origin: Vec3,
}

impl SurfaceVolume<'_> {
    fn fill(&self, v: IVec3) -> f32 {
        let d = self.dims.as_ivec3();
        if v.cmplt(IVec3::ZERO).any() || v.cmpge(d).any() {
            return 0.0;
        }
        self.sums[(v.x + d.x * (v.y + d.y * v.z)) as usize] as f32 / VOLUME_FIXED_SCALE
    }

    fn gradient(&self, v: IVec3) -> Vec3 {
        let f = |o: IVec3| self.fill(v + o) - self.fill(v - o);
        0.5 * Vec3::new(f(IVec3::X), f(IVec3::Y), f(IVec3::Z))
    }

    fn crossing(&self, a: IVec3, fa: f32, b: IVec3, fb: f32) -> CpuSurfaceVertex {
        let t = ((SURFACE_ISO - fa) / (fb - fa)).clamp(SURFACE_EDGE_MARGIN, 1.0 - SURFACE_EDGE_MARGIN);
        let (pa, pb) = (a.as_vec3() + 0.5, b.as_vec3() + 0.5);
        let g = self.gradient(a).lerp(self.gradient(b), t);
        CpuSurfaceVertex {
            position: self.origin + (pa + (pb - pa) * t) * self.voxel,
            normal: -g / g.length().max(1e-20),
        }
    }

    /// Every surface triangle, each wound counter-clockwise seen from outside the snow.
    pub fn triangles(&self) -> Vec<[CpuSurfaceVertex; 3]> {
        let mut out = Vec::new();
        let corner = |c: usize| IVec3::new((c & 1) as i32, ((c >> 1) & 1) as i32, (c >> 2) as i32);
        let d = self.dims.as_ivec3();
        // Cubes whose lower corner lies in [−1, dims − 1]: the volume padded with empty centres.
        for z in -1..d.z {
            for y in -1..d.y {
                for x in -1..d.x {
                    let base = IVec3::new(x, y, z);
                    let fill: [f32; 8] = std::array::from_fn(|c| self.fill(base + corner(c)));
                    let inside = fill.iter().filter(|&&f| f >= SURFACE_ISO).count();
                    if inside == 0 || inside == 8 {
                        continue;
                    }
                    for tet in TETRAHEDRA {
                        let (ins, outs): (Vec<usize>, Vec<usize>) = (0..4).partition(|&k| fill[tet[k]] >= SURFACE_ISO);
                        if ins.is_empty() || outs.is_empty() {
                            continue;
                        }
                        let mean =
                            |ks: &[usize]| ks.iter().map(|&k| corner(tet[k]).as_vec3()).sum::<Vec3>() / ks.len() as f32;
                        let outward = mean(&outs) - mean(&ins);
                        let pairs: Vec<(usize, usize)> = if ins.len() == 2 {
                            vec![(ins[0], outs[0]), (ins[0], outs[1]), (ins[1], outs[1]), (ins[1], outs[0])]
                        } else {
                            let lone = if ins.len() == 1 { ins[0] } else { outs[0] };
                            (0..4).filter(|&k| k != lone).map(|k| (lone, k)).collect()
                        };
                        let p: Vec<CpuSurfaceVertex> = pairs
                            .iter()
                            .map(|&(i, j)| {
                                let (a, b) = (tet[i.min(j)], tet[i.max(j)]);
                                self.crossing(base + corner(a), fill[a], base + corner(b), fill[b])
                            })
                            .collect();
                        out.push(oriented([p[0], p[1], p[2]], outward));
                        if p.len() == 4 {
                            out.push(oriented([p[0], p[2], p[3]], outward));
                        }
                    }
                }
            }
        }
        out
    }
}

fn oriented(t: [CpuSurfaceVertex; 3], outward: Vec3) -> [CpuSurfaceVertex; 3] {
    let n = (t[1].position - t[0].position).cross(t[2].position - t[0].position);
    if n.dot(outward) >= 0.0 { t } else { [t[0], t[2], t[1]] }
}

/// A triangle mesh with shared vertices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexedMesh {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Unit normals, one per vertex.
    pub normals: Vec<Vec3>,
    /// Three vertex indices per triangle.
    pub triangles: Vec<[u32; 3]>,
}

/// Welds corners that lie within `tolerance` of each other (metres; they are the same edge
/// crossing, computed by different tetrahedra) into one vertex. The first corner's normal is kept.
pub fn weld(corners: impl IntoIterator<Item = (Vec3, Vec3)>, tolerance: f32) -> IndexedMesh {
    use std::collections::HashMap;
    let mut mesh = IndexedMesh::default();
    let mut index: HashMap<[i64; 3], u32> = HashMap::new();
    let mut triangle = [0u32; 3];
    for (k, (position, normal)) in corners.into_iter().enumerate() {
        let key = (position / tolerance.max(f32::MIN_POSITIVE)).round().as_dvec3();
        let key = [key.x as i64, key.y as i64, key.z as i64];
        let id = *index.entry(key).or_insert_with(|| {
            mesh.positions.push(position);
            mesh.normals.push(normal);
            (mesh.positions.len() - 1) as u32
        });
        triangle[k % 3] = id;
        if k % 3 == 2 {
            mesh.triangles.push(triangle);
        }
    }
    mesh
}

impl IndexedMesh {
    /// Edges not shared by exactly two triangles of opposite direction (0 for a closed, consistently
    /// wound surface).
    pub fn open_edges(&self) -> usize {
        use std::collections::HashMap;
        // Per undirected edge: the triangles using it, and the sum of their directions along it.
        let mut edges: HashMap<(u32, u32), (usize, i32)> = HashMap::new();
        for t in &self.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                let edge = edges.entry((a.min(b), a.max(b))).or_default();
                edge.0 += 1;
                edge.1 += if a < b { 1 } else { -1 };
            }
        }
        edges.values().filter(|&&(uses, direction)| uses != 2 || direction != 0).count()
    }

    /// The smallest triangle area, square metres (infinite for no triangles).
    pub fn smallest_area(&self) -> f32 {
        self.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| self.positions[i as usize]);
                0.5 * (b - a).cross(c - a).length()
            })
            .fold(f32::INFINITY, f32::min)
    }
}
