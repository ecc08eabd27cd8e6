//! The CPU twin's collider condition: the grid update's `apply_colliders` (in
//! `shaders/mpm/grid_node.wgsl`) in f64, over the collider fields of [`crate::collider::field`].

use nalgebra::Vector3;

use super::friction::coulomb_friction;
use crate::collider::field::{GpuColliderNode, NO_COLLIDER};
use crate::sim::params::{Boundary, BoundaryKind};

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
