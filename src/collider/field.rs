//! The collider state the grid update reads: per grid node, the signed distance to the nearest
//! collider, its outward normal, its velocity and which collider it is, for the start and the end
//! of a frame. Substeps blend the two (see `docs/algorithm.md`, "Colliders").
//!
//! [`ColliderField::add`] merges colliders by keeping, per node, the one with the smallest signed
//! distance: the signed distance of a union of solids is the minimum of theirs (exact outside
//! the solids, a lower bound of the depth inside), and the nearest collider is the one whose
//! boundary condition the node should obey.

use crate::grid::Boundary;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_keeps_the_nearest_collider() {
        let mut f = ColliderField::empty(2);
        f.add(0, &[0.5, -0.1], &[Vec3::Z; 2], &[Vec3::ZERO; 2]);
        f.add(1, &[0.2, 0.3], &[Vec3::X; 2], &[Vec3::ONE; 2]);
        assert_eq!((f.nodes[0].surface, f.nodes[0].distance), (1, 0.2));
        assert_eq!((f.nodes[1].surface, f.nodes[1].distance), (0, -0.1));
    }
}
