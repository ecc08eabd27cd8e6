//! Analytic colliders: a half-space, a box and a ball, sampled on the grid exactly (no band, no
//! mesh), in the same form as a mesh's [`MeshSdf`].

use glam::{Quat, Vec3};

use super::sdf::MeshSdf;
use crate::grid::GridSpec;

/// An analytic solid in its own frame, placed in the world by a [`RigidPose`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AnalyticShape {
    /// The half-space below the plane through the origin with unit normal +z (local frame):
    /// rotate the pose to tilt it.
    HalfSpace,
    /// A box centred on the origin with these half edge lengths, metres.
    Box {
        /// Half the edge lengths along local x, y, z.
        half_extents: Vec3,
    },
    /// A ball centred on the origin.
    Ball {
        /// Radius, metres.
        radius: f32,
    },
}

/// Where a shape is at one instant, and how fast it moves: `world = translation + rotation·local`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidPose {
    /// Position of the local origin, metres.
    pub translation: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Velocity of the local origin, m/s.
    pub linear_velocity: Vec3,
    /// Angular velocity about the local origin, rad/s.
    pub angular_velocity: Vec3,
}

impl RigidPose {
    /// A pose at rest.
    pub fn at_rest(translation: Vec3, rotation: Quat) -> Self {
        Self { translation, rotation, linear_velocity: Vec3::ZERO, angular_velocity: Vec3::ZERO }
    }

    /// Velocity of the material point at world position `p`: `v + ω × (p − origin)`.
    pub fn velocity_at(&self, p: Vec3) -> Vec3 {
        self.linear_velocity + self.angular_velocity.cross(p - self.translation)
    }
}

/// Signed distance and outward unit normal of `shape` at local point `q`.
fn local_sdf(shape: AnalyticShape, q: Vec3) -> (f32, Vec3) {
    match shape {
        AnalyticShape::HalfSpace => (q.z, Vec3::Z),
        AnalyticShape::Ball { radius } => {
            let r = q.length();
            let n = if r > 0.0 { q / r } else { Vec3::Z };
            (r - radius, n)
        }
        AnalyticShape::Box { half_extents } => {
            let d = q.abs() - half_extents;
            let outside = d.max(Vec3::ZERO);
            if outside.length_squared() > 0.0 {
                // Outside: the distance to the nearest point of the box, pointing from it to q.
                let n = (outside * q.signum()).normalize();
                (outside.length(), n)
            } else {
                // Inside: the nearest face is the axis with the largest (least negative) d.
                let axis = if d.x >= d.y && d.x >= d.z {
                    0
                } else if d.y >= d.z {
                    1
                } else {
                    2
                };
                let mut n = Vec3::ZERO;
                n[axis] = if q[axis] >= 0.0 { 1.0 } else { -1.0 };
                (d[axis], n)
            }
        }
    }
}

/// Samples `shape` at `pose` on every node of `grid`: exact signed distance, outward normal and
/// the velocity of the surface point nearest each node.
pub fn analytic_sdf(shape: AnalyticShape, pose: &RigidPose, grid: &GridSpec) -> MeshSdf {
    let dims = grid.node_dims();
    let origin = grid.grid_origin().as_vec3();
    let h = grid.cell_size as f32;
    let n = grid.node_count() as usize;
    let mut out = MeshSdf {
        distance: Vec::with_capacity(n),
        normal: Vec::with_capacity(n),
        velocity: Vec::with_capacity(n),
        closest: Vec::new(),
    };
    let inverse = pose.rotation.inverse();
    for k in 0..dims.z {
        for j in 0..dims.y {
            for i in 0..dims.x {
                let p = origin + Vec3::new(i as f32, j as f32, k as f32) * h;
                let (d, local_normal) = local_sdf(shape, inverse * (p - pose.translation));
                let normal = pose.rotation * local_normal;
                out.distance.push(d);
                out.normal.push(normal);
                out.velocity.push(pose.velocity_at(p - d * normal));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec3, UVec3};

    fn grid() -> GridSpec {
        GridSpec { domain_min: DVec3::ZERO, cell_size: 0.1, cells: UVec3::splat(10) }
    }

    #[test]
    fn box_distance_inside_outside_and_at_a_corner() {
        let shape = AnalyticShape::Box { half_extents: Vec3::new(0.2, 0.3, 0.4) };
        assert_eq!(local_sdf(shape, Vec3::new(0.5, 0.0, 0.0)), (0.3, Vec3::X));
        let (d, n) = local_sdf(shape, Vec3::new(0.0, -0.25, 0.0));
        assert!((d + 0.05).abs() < 1e-7 && n == Vec3::NEG_Y, "{d} {n}");
        let (d, n) = local_sdf(shape, Vec3::new(0.5, 0.7, 0.4));
        assert!((d - 0.5).abs() < 1e-6 && (n - Vec3::new(0.6, 0.8, 0.0)).length() < 1e-6, "{d} {n}");
    }

    #[test]
    fn tilted_plane_and_spinning_ball_on_the_grid() {
        let g = grid();
        // A floor tilted 30° about x through (0.5, 0.5, 0.5).
        let angle = 30f32.to_radians();
        let pose = RigidPose::at_rest(Vec3::splat(0.5), Quat::from_rotation_x(angle));
        let sdf = analytic_sdf(AnalyticShape::HalfSpace, &pose, &g);
        let normal = Vec3::new(0.0, -angle.sin(), angle.cos());
        let node = g.node_index(7, 3, 9);
        let p = g.grid_origin().as_vec3() + Vec3::new(7.0, 3.0, 9.0) * 0.1;
        assert!((sdf.distance[node] - (p - Vec3::splat(0.5)).dot(normal)).abs() < 1e-6);
        assert!((sdf.normal[node] - normal).length() < 1e-6);
        // A ball spinning about z at 2 rad/s: the surface point nearest a node on the +x axis at
        // radius 0.2 moves at ω × r = (0, 0.4, 0).
        let pose = RigidPose {
            angular_velocity: Vec3::new(0.0, 0.0, 2.0),
            ..RigidPose::at_rest(Vec3::splat(0.5), Quat::IDENTITY)
        };
        let sdf = analytic_sdf(AnalyticShape::Ball { radius: 0.2 }, &pose, &g);
        let node = g.node_index(10, 7, 7); // (0.8, 0.5, 0.5): 0.3 from the centre along +x
        assert!((sdf.distance[node] - 0.1).abs() < 1e-6);
        assert!((sdf.velocity[node] - Vec3::new(0.0, 0.4, 0.0)).length() < 1e-6, "{}", sdf.velocity[node]);
    }
}
