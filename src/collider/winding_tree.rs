//! Fast winding numbers (Barill, Dickson, Schmidt, Levin and Jacobson, *Fast Winding Numbers for
//! Soups and Clouds*, 2018): the generalised winding number of [`super::winding`] evaluated over a
//! bounding volume hierarchy of the triangles, so that one query costs about O(log triangles)
//! instead of O(triangles).
//!
//! Each node of the hierarchy stores the moments of its triangles about their area-weighted
//! centroid p̃: the vector area Σ aₜnₜ, the first moment Σ aₜnₜ ⊗ (cₜ − p̃) and the second moment
//! Σ aₜnₜ ⊗ ∫(p − p̃)(p − p̃)ᵀ, integrated exactly over each triangle. A query farther than
//! [`BETA`] times the node's radius from p̃ sums the node's Taylor expansion of the winding kernel
//! `(p − q)·n / (4π|p − q|³)` to second order; nearer ones open the node, and leaves sum the exact
//! solid angles of their triangles, as the brute-force sum does.
//!
//! Truncation error: the kernel is the derivative along n of the harmonic `1/|x|`, whose Taylor
//! term of degree j in the displacement d is bounded by `(j + 2)·|d|ʲ/D^(j+2)` (D = |p̃ − q|, from
//! the bound on Legendre polynomials `m(m+1)·Pₘ² + (1 − t²)·Pₘ'² ≤ m(m+1)`). The terms of degree
//! ≥ 3 of a node of unsigned area A and radius r therefore add up to at most
//! `A / (4π D²) · S(r/D)` with `S(q) = 1/(1−q)² + 1/(1−q) − 2 − 3q − 4q²` (about 5q³ for small q,
//! 1.5 at q = ½). [`WindingTree::winding_number_bounded`] returns the sum of these bounds with the
//! value, which is what the tests compare against the brute-force sum.

use glam::{DVec3, Vec3};

use super::geometry::solid_angle;
use crate::mesh::TriangleMesh;

/// A node is expanded rather than opened when the query is farther than `BETA` times its radius
/// from its centre (Barill et al.'s accuracy parameter; 2 is their default).
pub const BETA: f64 = 2.0;
/// Most triangles in a leaf.
const LEAF_TRIANGLES: usize = 8;
const FOUR_PI: f64 = 4.0 * std::f64::consts::PI;

/// One node: the bounding box of its triangles, its expansion, and its children or triangles.
struct Node {
    lo: Vec3,
    hi: Vec3,
    /// Area-weighted centroid of the node's triangles: the expansion's centre.
    centre: DVec3,
    /// Every point of the node's triangles lies within this distance of `centre`.
    radius: f64,
    /// Σ aₜ, unsigned: scales the truncation error bound.
    area: f64,
    /// Σ aₜnₜ.
    normal: DVec3,
    /// `first[i][j]` = Σ aₜ nₜᵢ (cₜ − p̃)ⱼ.
    first: [[f64; 3]; 3],
    /// `second[i][j][k]` = Σ aₜ nₜᵢ ∫ₜ (p − p̃)ⱼ (p − p̃)ₖ dA / aₜ.
    second: [[[f64; 3]; 3]; 3],
    /// Leaf: triangles `start .. start + count` of the tree's order. Inner: children `start` and
    /// `count` (node indices), with `leaf` false.
    start: u32,
    count: u32,
    leaf: bool,
}

/// A triangle mesh prepared for fast winding number queries. Deterministic: the hierarchy depends
/// on the mesh alone, and each query sums its terms in a fixed order.
pub struct WindingTree {
    nodes: Vec<Node>,
    /// Triangle corners in leaf order.
    corners: Vec<[Vec3; 3]>,
    /// Bounding box of all the mesh's vertices (what [`super::winding::points_inside`] tests
    /// against first), or `None` for a mesh without vertices.
    bounds: Option<(Vec3, Vec3)>,
    closed: bool,
}

/// Moments of one triangle about its own centroid.
struct Moments {
    area: f64,
    normal: DVec3,
    centroid: DVec3,
    /// ∫ (p − c)(p − c)ᵀ dA = a/12 · Σ (v − c)(v − c)ᵀ over the corners v.
    spread: [[f64; 3]; 3],
}

fn moments([a, b, c]: [Vec3; 3]) -> Moments {
    let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
    let normal = 0.5 * (b - a).cross(c - a);
    let area = normal.length();
    let centroid = (a + b + c) / 3.0;
    let mut spread = [[0.0; 3]; 3];
    for v in [a, b, c] {
        let d = (v - centroid).to_array();
        for j in 0..3 {
            for k in 0..3 {
                spread[j][k] += area / 12.0 * d[j] * d[k];
            }
        }
    }
    Moments { area, normal, centroid, spread }
}

impl WindingTree {
    /// Builds the hierarchy of `mesh`'s triangles (median splits along the longest axis of their
    /// centroids) and checks whether the mesh is closed. Triangles with a non-finite corner are left
    /// out.
    pub fn new(mesh: &TriangleMesh) -> Self {
        let mut order: Vec<u32> = (0..mesh.triangles.len() as u32)
            .filter(|&t| mesh.corners(t as usize).iter().all(|c| c.is_finite()))
            .collect();
        let centroids: Vec<Vec3> =
            (0..mesh.triangles.len()).map(|t| mesh.corners(t).iter().sum::<Vec3>() / 3.0).collect();
        let mut tree = WindingTree {
            nodes: Vec::with_capacity(2 * order.len() / LEAF_TRIANGLES + 1),
            corners: Vec::with_capacity(order.len()),
            bounds: mesh.bounds(),
            closed: super::topology::is_closed(mesh),
        };
        if !order.is_empty() {
            tree.build(mesh, &centroids, &mut order);
        }
        tree
    }

    /// Whether the mesh is closed: every edge (between welded vertices) is crossed as often in one
    /// direction as in the other. The winding number of a closed mesh is an integer everywhere off
    /// its surface.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Bounding box of the mesh's vertices.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.bounds
    }

    /// Builds the subtree of `order` (which it reorders) and returns its node index.
    fn build(&mut self, mesh: &TriangleMesh, centroids: &[Vec3], order: &mut [u32]) -> u32 {
        let index = self.nodes.len() as u32;
        if order.len() <= LEAF_TRIANGLES {
            let start = self.corners.len() as u32;
            self.corners.extend(order.iter().map(|&t| mesh.corners(t as usize)));
            let node = self.leaf(start, order.len() as u32);
            self.nodes.push(node);
            return index;
        }
        let (lo, hi) = order.iter().fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &t| {
            (lo.min(centroids[t as usize]), hi.max(centroids[t as usize]))
        });
        let axis = (hi - lo).max_position();
        let mid = order.len() / 2;
        // Ties broken by index, so the split is the same whatever order the slice arrived in.
        order.select_nth_unstable_by(mid, |&a, &b| {
            centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis]).then(a.cmp(&b))
        });
        // A placeholder, filled once the children exist.
        self.nodes.push(self.leaf(0, 0));
        let (left_half, right_half) = order.split_at_mut(mid);
        let left = self.build(mesh, centroids, left_half);
        let right = self.build(mesh, centroids, right_half);
        self.nodes[index as usize] = self.join(left, right);
        index
    }

    /// A leaf over corners `start .. start + count`, its moments summed from its triangles.
    fn leaf(&self, start: u32, count: u32) -> Node {
        let triangles = &self.corners[start as usize..(start + count) as usize];
        let all: Vec<Moments> = triangles.iter().map(|&t| moments(t)).collect();
        let area: f64 = all.iter().map(|m| m.area).sum();
        let centre = if area > 0.0 {
            all.iter().map(|m| m.area * m.centroid).sum::<DVec3>() / area
        } else {
            all.iter().map(|m| m.centroid).sum::<DVec3>() / all.len().max(1) as f64
        };
        let mut node = empty_node(start, count, true);
        node.centre = centre;
        node.area = area;
        for (m, corners) in all.iter().zip(triangles) {
            node.normal += m.normal;
            let d = (m.centroid - centre).to_array();
            let n = (m.normal / m.area.max(f64::MIN_POSITIVE)).to_array();
            let n_area = m.normal.to_array();
            for i in 0..3 {
                for j in 0..3 {
                    node.first[i][j] += n_area[i] * d[j];
                    for k in 0..3 {
                        node.second[i][j][k] += n_area[i] * d[j] * d[k] + n[i] * m.spread[j][k];
                    }
                }
            }
            for c in corners {
                node.lo = node.lo.min(*c);
                node.hi = node.hi.max(*c);
                node.radius = node.radius.max((c.as_dvec3() - centre).length());
            }
        }
        node
    }

    /// The parent of nodes `left` and `right`: their moments shifted to the joint centre.
    // Tensor index loops: i, j, k index several arrays at once, as in the formulas.
    #[allow(clippy::needless_range_loop)]
    fn join(&self, left: u32, right: u32) -> Node {
        let (a, b) = (&self.nodes[left as usize], &self.nodes[right as usize]);
        let area = a.area + b.area;
        let centre =
            if area > 0.0 { (a.area * a.centre + b.area * b.centre) / area } else { 0.5 * (a.centre + b.centre) };
        let mut node = empty_node(left, right, false);
        node.centre = centre;
        node.area = area;
        node.lo = a.lo.min(b.lo);
        node.hi = a.hi.max(b.hi);
        // Farthest corner of the box, or of the children's spheres, whichever is nearer.
        let corner = (node.lo.as_dvec3() - centre).abs().max((node.hi.as_dvec3() - centre).abs()).length();
        let spheres = (a.radius + (a.centre - centre).length()).max(b.radius + (b.centre - centre).length());
        node.radius = corner.min(spheres);
        for child in [a, b] {
            node.normal += child.normal;
            // Moments about the child's centre, re-centred: with δ = p̃_child − p̃,
            // (c − p̃) = (c − p̃_child) + δ.
            let delta = (child.centre - centre).to_array();
            let n = child.normal.to_array();
            for i in 0..3 {
                for j in 0..3 {
                    node.first[i][j] += child.first[i][j] + n[i] * delta[j];
                    for k in 0..3 {
                        node.second[i][j][k] += child.second[i][j][k]
                            + child.first[i][j] * delta[k]
                            + child.first[i][k] * delta[j]
                            + n[i] * delta[j] * delta[k];
                    }
                }
            }
        }
        node
    }

    /// The winding number of the mesh at `p` (≈ the brute-force
    /// [`super::winding::winding_number`]).
    pub fn winding_number(&self, p: Vec3) -> f64 {
        self.evaluate::<false>(p).0
    }

    /// The winding number at `p` and a bound on the truncation error of its far-field expansions
    /// (the module documentation derives it); the near field is summed exactly.
    pub fn winding_number_bounded(&self, p: Vec3) -> (f64, f64) {
        self.evaluate::<true>(p)
    }

    fn evaluate<const BOUND: bool>(&self, p: Vec3) -> (f64, f64) {
        if self.nodes.is_empty() {
            return (0.0, 0.0);
        }
        let q = p.as_dvec3();
        let (mut sum, mut bound) = (0.0, 0.0);
        // Median splits keep the depth within log₂(triangles) + 1 < 40, and the stack holds at most
        // one pending sibling per level.
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            let x = node.centre - q;
            let d2 = x.length_squared();
            if d2 > (BETA * node.radius).powi(2) {
                sum += expansion(node, x, d2);
                if BOUND {
                    let s = node.radius / d2.sqrt();
                    let tail = 1.0 / (1.0 - s).powi(2) + 1.0 / (1.0 - s) - 2.0 - 3.0 * s - 4.0 * s * s;
                    bound += node.area / (FOUR_PI * d2) * tail;
                }
            } else if node.leaf {
                let triangles = &self.corners[node.start as usize..(node.start + node.count) as usize];
                sum += triangles.iter().map(|&t| solid_angle(p, t) as f64).sum::<f64>() / FOUR_PI;
            } else {
                stack[top] = node.count;
                stack[top + 1] = node.start;
                top += 2;
            }
        }
        (sum, bound)
    }

    /// Whether any triangle's bounding box meets the closed box `[lo, hi]`: if none does, the
    /// surface does not cross the box.
    pub fn touches_box(&self, lo: Vec3, hi: Vec3) -> bool {
        if self.nodes.is_empty() {
            return false;
        }
        let meets = |a: Vec3, b: Vec3| a.cmple(hi).all() && b.cmpge(lo).all();
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if !meets(node.lo, node.hi) {
                continue;
            }
            if node.leaf {
                let triangles = &self.corners[node.start as usize..(node.start + node.count) as usize];
                if triangles.iter().any(|[a, b, c]| meets(a.min(*b).min(*c), a.max(*b).max(*c))) {
                    return true;
                }
            } else {
                stack[top] = node.count;
                stack[top + 1] = node.start;
                top += 2;
            }
        }
        false
    }
}

fn empty_node(start: u32, count: u32, leaf: bool) -> Node {
    Node {
        lo: Vec3::INFINITY,
        hi: Vec3::NEG_INFINITY,
        centre: DVec3::ZERO,
        radius: 0.0,
        area: 0.0,
        normal: DVec3::ZERO,
        first: [[0.0; 3]; 3],
        second: [[[0.0; 3]; 3]; 3],
        start,
        count,
        leaf,
    }
}

/// A node's contribution at offset `x = p̃ − q` (`d2 = |x|²`): the kernel F(x) = x / (4π|x|³) and its
/// first two derivatives contracted with the node's moments.
fn expansion(node: &Node, x: DVec3, d2: f64) -> f64 {
    let r = d2.sqrt();
    let inv3 = 1.0 / (d2 * r);
    let inv5 = inv3 / d2;
    let inv7 = inv5 / d2;
    let xs = x.to_array();
    // ∂ⱼFᵢ = δᵢⱼ/r³ − 3xᵢxⱼ/r⁵.
    let mut trace = 0.0;
    let mut quadratic = 0.0;
    // ∂ₖ∂ⱼFᵢ = −3(δᵢⱼxₖ + δᵢₖxⱼ + δⱼₖxᵢ)/r⁵ + 15xᵢxⱼxₖ/r⁷, contracted with the symmetric (in j, k)
    // second moment: the two δᵢ terms are equal.
    let (mut delta_i, mut delta_jk, mut cubic) = (0.0, 0.0, 0.0);
    for i in 0..3 {
        trace += node.first[i][i];
        for j in 0..3 {
            quadratic += xs[i] * node.first[i][j] * xs[j];
            delta_i += xs[j] * node.second[i][i][j];
            delta_jk += xs[i] * node.second[i][j][j];
            for k in 0..3 {
                cubic += xs[i] * xs[j] * xs[k] * node.second[i][j][k];
            }
        }
    }
    let order0 = x.dot(node.normal) * inv3;
    let order1 = trace * inv3 - 3.0 * quadratic * inv5;
    let order2 = 0.5 * (-3.0 * (2.0 * delta_i + delta_jk) * inv5 + 15.0 * cubic * inv7);
    (order0 + order1 + order2) / FOUR_PI
}
