//! One z layer of the mesh SDF build ([`super::sdf`]): per component, the closest band triangle
//! of each node, its signed distance by pseudo-normal, the sign carried to nodes beyond the band,
//! and the merge into the union (minimum over components).

use glam::{UVec3, Vec3};

use super::geometry::{Feature, closest_point_on_triangle};
use super::sdf_context::{BandTriangle, NodeRange, SdfContext, SurfacePoint};
use super::winding::winding_number_of;

/// No triangle yet.
const NONE: u32 = u32::MAX;

/// Below this distance, in cells, the direction to the closest point is noise and the normal is the
/// pseudo-normal instead.
const ON_SURFACE_CELLS: f32 = 1e-5;

/// One layer of the output.
pub(crate) struct LayerOut<'a> {
    pub distance: &'a mut [f32],
    pub normal: &'a mut [Vec3],
    pub velocity: &'a mut [Vec3],
    pub closest: &'a mut [SurfacePoint],
}

/// A task's working arrays for one layer of one component, reused across layers.
pub(crate) struct Scratch {
    /// Distance to the closest triangle so far (`band` when none is closer), then its signed value.
    distance: Vec<f32>,
    /// Closest band triangle (index into `SdfContext::triangles`), or `NONE`.
    triangle: Vec<u32>,
    /// Nodes whose `triangle` was set, to finish and reset only those.
    touched: Vec<u32>,
    /// Per row: 0 unresolved, ±1 the sign found along the row, ±2 carried from another row.
    row_sign: Vec<i8>,
    row_len: usize,
    band: f32,
}

impl Scratch {
    pub fn new(dims: UVec3, band: f32) -> Self {
        let layer = dims.x as usize * dims.y as usize;
        Self {
            distance: vec![band; layer],
            triangle: vec![NONE; layer],
            touched: Vec::new(),
            row_sign: vec![0; dims.y as usize],
            row_len: dims.x as usize,
            band,
        }
    }
}

impl SdfContext<'_> {
    /// Fills layer `k` of the output.
    pub fn layer(&self, k: usize, scratch: &mut Scratch, mut out: LayerOut) {
        let list = &self.layer_triangles[self.layer_offsets[k]..self.layer_offsets[k + 1]];
        let mut cursor = 0;
        for (c, component) in self.components.iter().enumerate() {
            let Some(rect) = component.nodes.filter(|r| (r.lo[2]..=r.hi[2]).contains(&k)) else { continue };
            let start = cursor;
            while cursor < list.len() && self.triangles[list[cursor] as usize].component == c as u32 {
                cursor += 1;
            }
            for &t in &list[start..cursor] {
                self.scan(t, k, scratch);
            }
            self.resolve(c, rect, k, scratch, &mut out);
        }
    }

    /// Lowers the best distance of the nodes of layer `k` that band triangle `t` may be closest to.
    fn scan(&self, t: u32, k: usize, s: &mut Scratch) {
        let tri: &BandTriangle = &self.triangles[t as usize];
        let [xs, ys, zs] = &self.axes;
        let z = zs[k];
        // A hair more than the band, so that rounding in the row bounds never drops a band node.
        let reach = tri.radius + self.band * 1.001;
        let reach_z = reach * reach - (z - tri.centre.z).powi(2);
        if reach_z < 0.0 {
            return;
        }
        // Node coordinates along x in cells, from the first node: the row bounds below are then a
        // multiply and a truncation each (no division, no libm call).
        let inverse_h = 1.0 / self.cell_size;
        let centre_x = (tri.centre.x - xs[0]) * inverse_h;
        let rows = tri.nodes.lo[1]..=tri.nodes.hi[1];
        for (j, &y) in rows.clone().zip(&ys[rows]) {
            let reach_yz = reach_z - (y - tri.centre.y).powi(2);
            if reach_yz < 0.0 {
                continue;
            }
            let half = reach_yz.sqrt() * inverse_h;
            let (first, last) = (ceil_index(centre_x - half), centre_x + half);
            if last < 0.0 {
                continue;
            }
            // Truncation is floor for last ≥ 0.
            let (first, last) = (first.max(tri.nodes.lo[0]), (last as i32 as usize).min(tri.nodes.hi[0]));
            if first > last {
                continue;
            }
            let row = j * s.row_len;
            // The plane distance along the row is n.x · x + plane_offset.
            let plane_offset = tri.normal.y * y + tri.normal.z * z - tri.normal.dot(tri.corners[0]);
            let centre_yz = reach_yz - reach * reach;
            for (i, &x) in (first..=last).zip(&xs[first..=last]) {
                let node = row + i;
                let best = s.distance[node];
                // Two cheap lower bounds of the distance first: to the triangle's plane, and to its
                // bounding sphere.
                if (tri.normal.x * x + plane_offset).abs() >= best {
                    continue;
                }
                let bound = best + tri.radius;
                if (x - tri.centre.x).powi(2) - centre_yz >= bound * bound {
                    continue;
                }
                let p = Vec3::new(x, y, z);
                let d2 = p.distance_squared(closest_point_on_triangle(p, tri.corners).point);
                if d2 < best * best {
                    if s.triangle[node] == NONE {
                        s.touched.push(node as u32);
                    }
                    s.distance[node] = d2.sqrt();
                    s.triangle[node] = t;
                }
            }
        }
    }

    /// Signs component `c`'s band nodes in layer `k`, carries the signs to the rest of its
    /// rectangle, merges both into the output and resets the scratch arrays.
    fn resolve(&self, c: usize, rect: NodeRange, k: usize, s: &mut Scratch, out: &mut LayerOut) {
        let (rows, columns) = (rect.lo[1]..=rect.hi[1], rect.lo[0]..=rect.hi[0]);
        if s.touched.is_empty() {
            // The whole rectangle is on one side of the component (see the module doc).
            let component = &self.components[c];
            if component.clipped_xy {
                let [i, j] = [0, 1].map(|a| (rect.lo[a] + rect.hi[a]) / 2);
                let p = Vec3::new(self.axes[0][i], self.axes[1][j], self.axes[2][k]);
                let triangles = self.by_component[component.triangles.clone()].iter().copied();
                if winding_number_of(self.mesh, triangles, p) >= 0.5 {
                    for j in rows {
                        columns.clone().for_each(|i| deep_inside(out, j * s.row_len + i, self.band));
                    }
                }
            }
            return;
        }
        for index in 0..s.touched.len() {
            self.finish_node(s.touched[index] as usize, k, s, out);
        }
        // Along x rows: a node beyond the band takes the sign of the band node before it in the
        // row (or after it, for the run before the first).
        for j in rows.clone() {
            let row = j * s.row_len;
            let Some(first) = columns.clone().find(|&i| s.triangle[row + i] != NONE) else {
                s.row_sign[j] = 0;
                continue;
            };
            let mut negative = s.distance[row + first] < 0.0;
            for i in columns.clone() {
                let node = row + i;
                if s.triangle[node] != NONE {
                    negative = s.distance[node] < 0.0;
                } else if negative {
                    deep_inside(out, node, self.band);
                }
                if i == rect.lo[0] {
                    s.row_sign[j] = if negative { -1 } else { 1 };
                }
            }
        }
        // Rows without band nodes: the sign of the first column carried from the nearest row that
        // has one (forward, then backward for the rows before it).
        let mut carried = 0;
        for j in rows.clone().chain(rows.clone().rev()) {
            match s.row_sign[j] {
                0 if carried != 0 => s.row_sign[j] = 2 * carried,
                0 => {}
                sign => carried = sign.signum(),
            }
        }
        for j in rows {
            if s.row_sign[j] == -2 {
                columns.clone().for_each(|i| deep_inside(out, j * s.row_len + i, self.band));
            }
        }
        for &node in &s.touched {
            s.distance[node as usize] = s.band;
            s.triangle[node as usize] = NONE;
        }
        s.touched.clear();
    }

    /// Signs band node `node` by the pseudo-normal of its closest feature and merges it.
    fn finish_node(&self, node: usize, k: usize, s: &mut Scratch, out: &mut LayerOut) {
        let tri = &self.triangles[s.triangle[node] as usize];
        let p = Vec3::new(self.axes[0][node % s.row_len], self.axes[1][node / s.row_len], self.axes[2][k]);
        let closest = closest_point_on_triangle(p, tri.corners);
        let t = tri.index as usize;
        let pseudo_normal = match closest.feature {
            Feature::Face => tri.normal,
            Feature::Edge(e) => self.topology.edge_normal[t][e as usize],
            Feature::Vertex(v) => self.topology.corner_normal[t][v as usize],
        };
        let offset = p - closest.point;
        let distance = s.distance[node];
        let sign = if offset.dot(pseudo_normal) < 0.0 { -1.0 } else { 1.0 };
        s.distance[node] = sign * distance;
        if sign * distance < out.distance[node] {
            out.distance[node] = sign * distance;
            out.normal[node] = if distance > ON_SURFACE_CELLS * self.cell_size {
                offset * (sign / distance)
            } else {
                pseudo_normal.normalize_or_zero()
            };
            let point = SurfacePoint { triangle: t as u32, barycentric: closest.barycentric };
            out.velocity[node] = self.vertex_velocity.map_or(Vec3::ZERO, |v| point.velocity(self.mesh, v));
            out.closest[node] = point;
        }
    }
}

/// `ceil(v)` as an index, 0 for negative `v`. Rounded through i32 because `f32::ceil` is a libm
/// call on baseline x86-64, and this runs once per row of every triangle.
fn ceil_index(v: f32) -> usize {
    let v = v.max(0.0);
    let t = v as i32;
    (t + ((t as f32) < v) as i32) as usize
}

/// Marks `node` as inside a component beyond its band: −band, the minimum any component can give.
fn deep_inside(out: &mut LayerOut, node: usize, band: f32) {
    out.distance[node] = -band;
    out.normal[node] = Vec3::ZERO;
    out.velocity[node] = Vec3::ZERO;
    out.closest[node] = SurfacePoint::NONE;
}
