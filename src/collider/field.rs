//! The collider state the grid update reads: per grid node, the signed distance to the nearest
//! collider, its outward normal, its velocity and which collider it is, for the start and the end
//! of a frame. Substeps blend the two (see `docs/algorithm.md`, "Colliders").
//!
//! [`ColliderField::add`] merges colliders by keeping, per node, the one with the smallest signed
//! distance: the signed distance of a union of solids is the minimum of theirs (exact outside
//! the solids, a lower bound of the depth inside), and the nearest collider is the one whose
//! boundary condition the node should obey.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use nalgebra::Vector3;

use crate::sim::cpu::grid_update::coulomb_friction;
use crate::sim::params::{Boundary, BoundaryKind};

/// `GpuColliderNode::surface` of a node that no collider reaches.
pub const NO_COLLIDER: u32 = u32::MAX;
/// Distance stored where no collider is near, metres. Finite (unlike ∞) so that blending two
/// frames with `mix` never forms ∞ − ∞.
pub const FAR: f32 = 1.0e30;

/// One grid node's collider state. Mirrors `ColliderNode` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuColliderNode {
    /// Unit outward normal of the nearest collider surface (zero deep inside, beyond the band).
    pub normal: [f32; 3],
    /// Signed distance to the nearest collider, metres: negative inside.
    pub distance: f32,
    /// Velocity of the nearest surface point, m/s.
    pub velocity: [f32; 3],
    /// Index of the nearest collider into the surfaces table, or [`NO_COLLIDER`].
    pub surface: u32,
}

impl Default for GpuColliderNode {
    fn default() -> Self {
        Self { normal: [0.0; 3], distance: FAR, velocity: [0.0; 3], surface: NO_COLLIDER }
    }
}

/// How snow meets one collider. Mirrors `ColliderSurface` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuColliderSurface {
    /// Boundary kind code ([`BoundaryKind::gpu_code`]).
    pub kind: u32,
    /// Coulomb friction coefficient μ.
    pub friction: f32,
}

/// A collider's boundary condition is a [`Boundary`], as the domain walls' is.
impl From<Boundary> for GpuColliderSurface {
    fn from(b: Boundary) -> Self {
        Self { kind: b.kind.gpu_code(), friction: b.friction as f32 }
    }
}

/// Collider state of every grid node at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ColliderField {
    /// One entry per grid node, in `GridSpec::node_index` order.
    pub nodes: Vec<GpuColliderNode>,
}

impl ColliderField {
    /// A field of `node_count` nodes that no collider reaches.
    pub fn empty(node_count: usize) -> Self {
        Self { nodes: vec![GpuColliderNode::default(); node_count] }
    }

    /// Merges one collider's samples (one per node) into the field: each node keeps whichever of
    /// the old and the new collider is nearer (smaller signed distance).
    pub fn add(&mut self, surface: u32, distance: &[f32], normal: &[Vec3], velocity: &[Vec3]) {
        assert!(
            distance.len() == self.nodes.len() && normal.len() == distance.len() && velocity.len() == distance.len()
        );
        for (i, node) in self.nodes.iter_mut().enumerate() {
            if distance[i] < node.distance {
                *node = GpuColliderNode {
                    normal: normal[i].to_array(),
                    distance: distance[i],
                    velocity: velocity[i].to_array(),
                    surface,
                };
            }
        }
    }
}

/// The collider state of one frame: the field at its start and at its end, and the surfaces the
/// fields' `surface` indices point into.
#[derive(Clone, Debug, PartialEq)]
pub struct ColliderFrames {
    /// State at the frame's start.
    pub from: ColliderField,
    /// State at the frame's end.
    pub to: ColliderField,
    /// Boundary condition of each collider.
    pub surfaces: Vec<Boundary>,
}

/// `a + (b − a)·t`, as WGSL's `mix`.
fn mix(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

/// The collider condition on node velocity `v` (f64, the CPU twin's version of `apply_colliders`
/// in `grid_update.wgsl`), with the frame's state blended by `t` ∈ [0, 1].
///
/// A node at or inside a collider (blended distance ≤ 0) takes the collider's velocity `vc` as
/// its frame of reference: sticky gives `vc`; slip removes the normal part of `v − vc`; separate
/// removes it only when the node moves into the collider; friction then acts on the tangential
/// part as at the domain walls, only while the node moves into the collider
/// ([`coulomb_friction`]). A node deep inside a mesh collider, beyond its distance band,
/// has no normal and (as `sdf_layer::deep_inside` leaves it) zero velocity: it takes `vc = 0` and
/// stops, whatever the collider's motion.
pub fn apply_colliders(
    v: Vector3<f64>,
    from: &GpuColliderNode,
    to: &GpuColliderNode,
    t: f64,
    surfaces: &[Boundary],
) -> Vector3<f64> {
    let distance = mix(from.distance as f64, to.distance as f64, t);
    let surface = if t < 0.5 { from.surface } else { to.surface };
    if distance > 0.0 || surface == NO_COLLIDER {
        return v;
    }
    let Some(s) = surfaces.get(surface as usize) else {
        return v;
    };
    let blend = |a: [f32; 3], b: [f32; 3]| Vector3::from_fn(|i, _| mix(a[i] as f64, b[i] as f64, t));
    let vc = blend(from.velocity, to.velocity);
    let n = blend(from.normal, to.normal);
    let n_len = n.norm();
    if s.kind == BoundaryKind::Sticky || n_len < 1e-6 {
        return vc;
    }
    let n = n / n_len;
    let relative = v - vc;
    let vn = relative.dot(&n);
    if s.kind == BoundaryKind::Separate && vn >= 0.0 {
        return v;
    }
    vc + coulomb_friction(relative - vn * n, vn, s.friction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(distance: f32, normal: [f32; 3], velocity: [f32; 3]) -> GpuColliderNode {
        GpuColliderNode { normal, distance, velocity, surface: 0 }
    }

    #[test]
    fn union_keeps_the_nearest_collider() {
        let mut f = ColliderField::empty(2);
        f.add(0, &[0.5, -0.1], &[Vec3::Z; 2], &[Vec3::ZERO; 2]);
        f.add(1, &[0.2, 0.3], &[Vec3::X; 2], &[Vec3::ONE; 2]);
        assert_eq!((f.nodes[0].surface, f.nodes[0].distance), (1, 0.2));
        assert_eq!((f.nodes[1].surface, f.nodes[1].distance), (0, -0.1));
    }

    #[test]
    fn moving_slip_collider_removes_relative_normal_speed() {
        // A floor (normal +z) rising at 1 m/s; the node falls at 2 m/s and slides at 3 m/s in x.
        let surfaces = [Boundary { kind: BoundaryKind::Slip, friction: 0.0 }];
        let n = node(-0.01, [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]);
        let v = apply_colliders(Vector3::new(3.0, 0.0, -2.0), &n, &n, 0.5, &surfaces);
        assert_eq!(v, Vector3::new(3.0, 0.0, 1.0));
        // With μ = 0.5 the relative normal speed 3 m/s costs 1.5 m/s of the 3 m/s slide.
        let surfaces = [Boundary { kind: BoundaryKind::Separate, friction: 0.5 }];
        let v = apply_colliders(Vector3::new(3.0, 0.0, -2.0), &n, &n, 0.5, &surfaces);
        assert!((v - Vector3::new(1.5, 0.0, 1.0)).norm() < 1e-12, "{v}");
        // Separating (moving up faster than the floor) is left alone.
        let v = apply_colliders(Vector3::new(3.0, 0.0, 2.0), &n, &n, 0.5, &surfaces);
        assert_eq!(v, Vector3::new(3.0, 0.0, 2.0));
        // Slip holds a separating node to the surface (normal speed 1 m/s, the floor's) but, out
        // of contact, without friction.
        let surfaces = [Boundary { kind: BoundaryKind::Slip, friction: 0.5 }];
        let v = apply_colliders(Vector3::new(3.0, 0.0, 2.0), &n, &n, 0.5, &surfaces);
        assert_eq!(v, Vector3::new(3.0, 0.0, 1.0));
    }

    #[test]
    fn blend_moves_the_surface_between_frames() {
        // Outside at the frame's start (+0.02 m), inside at its end (−0.02 m): blended at t = 0.25
        // the node is outside (+0.01), at t = 0.75 inside (−0.01) and sticky takes the velocity.
        let surfaces = [Boundary { kind: BoundaryKind::Sticky, friction: 0.0 }];
        let (a, b) = (node(0.02, [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]), node(-0.02, [1.0, 0.0, 0.0], [4.0, 0.0, 0.0]));
        let v = Vector3::new(-1.0, 0.0, 0.0);
        assert_eq!(apply_colliders(v, &a, &b, 0.25, &surfaces), v);
        assert_eq!(apply_colliders(v, &a, &b, 0.75, &surfaces), Vector3::new(3.5, 0.0, 0.0));
        // Far nodes are never touched, whatever the blend.
        let far = GpuColliderNode::default();
        assert_eq!(apply_colliders(v, &far, &far, 1.0, &surfaces), v);
    }
}
