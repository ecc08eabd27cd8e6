//! The grid update of an iteration, in displacements: node displacement from the scattered sums,
//! then colliders, walls and the speed guard.
//!
//! The walls and colliders are the explicit integrator's conditions ([`constrain_node`]) applied to `u/dt`, the node's mean velocity over the step. Every one of
//! them is positively homogeneous (scaling the velocity and the collider's velocity by `dt`
//! scales the result by `dt`; Coulomb friction removes tangential motion in proportion to the
//! normal motion removed), so they mean the same on displacements as on velocities: sticky
//! stops the node, slip removes the normal part both ways, separate only the part into the wall,
//! and friction takes tangential displacement in proportion to the normal displacement removed.

use nalgebra::Vector3;

use super::state::PbmpmGrid;
use crate::collider::field::ColliderFrames;
use crate::sim::cpu::grid_update::constrain_node;
use crate::sim::params::SolverParams;

/// Turns every node's sums into a displacement `u = Σ w m (d + D r) / Σ w m` and constrains it:
/// colliders (their frame blended by the given fraction), then each wall the node touches
/// (x-low, x-high, y-low, y-high, z-low, z-high, as in the explicit grid update), then
/// `|u| ≤ max_speed · dt`. Nodes without mass get zero.
///
/// A node touches a lower wall along axis a when `i_a ≤ GRID_PADDING` and the upper one when
/// `i_a ≥ GRID_PADDING + cells_a`. Gravity is not added here: it is in each particle's predicted
/// displacement ([`super::integrate::begin_step`]).
pub fn grid_update(params: &SolverParams, dt: f64, colliders: Option<(&ColliderFrames, f64)>, grid: &mut PbmpmGrid) {
    let spec = &params.grid;
    let dims = spec.node_dims();
    for k in 0..dims.z {
        for j in 0..dims.y {
            for i in 0..dims.x {
                let idx = spec.node_index(i, j, k);
                let mass = grid.mass[idx];
                if mass <= 0.0 {
                    grid.displacement[idx] = Vector3::zeros();
                    continue;
                }
                // The node's mean velocity over the step: the conditions below are written for
                // velocities, and each scales with it.
                let v = grid.displacement_sum[idx] / (mass * dt);
                grid.displacement[idx] = constrain_node(params, [i, j, k], idx, v, colliders) * dt;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cpu::test_scene;
    use crate::sim::params::{BoundaryKind, GRID_PADDING};

    /// A grid whose node (i, j, k) holds 2 kg displaced by `u`, after one grid update of 10 ms.
    fn one_node(kind: BoundaryKind, node: [u32; 3], u: Vector3<f64>) -> Vector3<f64> {
        let mut params = test_scene::params();
        params.boundary.kind = kind;
        let mut grid = PbmpmGrid::new(&params.grid);
        let idx = params.grid.node_index(node[0], node[1], node[2]);
        grid.mass[idx] = 2.0;
        grid.displacement_sum[idx] = 2.0 * u;
        grid_update(&params, 0.01, None, &mut grid);
        grid.displacement[idx]
    }

    #[test]
    fn walls_act_on_displacements_as_on_velocities() {
        let floor = [4, 4, GRID_PADDING];
        // Into the floor by 2 cm while sliding 1 cm: friction 0.3 takes 0.6 cm of the slide.
        // Tolerance 1e-15 m: a few roundings of centimetre-sized numbers.
        let u = Vector3::new(0.01, 0.0, -0.02);
        for kind in [BoundaryKind::Slip, BoundaryKind::Separate] {
            let got = one_node(kind, floor, u);
            assert!((got - Vector3::new(0.004, 0.0, 0.0)).norm() < 1e-15, "{kind:?}: {got}");
        }
        assert_eq!(one_node(BoundaryKind::Sticky, floor, u), Vector3::zeros());
        // Leaving the floor: separate keeps it all; slip removes the normal part, without friction.
        let up = Vector3::new(0.01, 0.0, 0.02);
        assert!((one_node(BoundaryKind::Separate, floor, up) - up).norm() < 1e-15);
        assert!((one_node(BoundaryKind::Slip, floor, up) - Vector3::new(0.01, 0.0, 0.0)).norm() < 1e-15);
        // An inner node is untouched, and the speed guard (50 m/s · 10 ms = 0.5 m) caps a jump.
        assert!((one_node(BoundaryKind::Sticky, [5, 5, 5], u) - u).norm() < 1e-15);
        let far = one_node(BoundaryKind::Sticky, [5, 5, 5], Vector3::new(0.0, 3.0, 4.0));
        assert!((far - Vector3::new(0.0, 0.3, 0.4)).norm() < 1e-15, "{far}");
    }
}
