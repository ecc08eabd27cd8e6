//! The `grid_update` pass: node velocity from momentum, gravity, the domain walls and the speed
//! guard. `docs/algorithm.md`, "grid_update", steps 1–3.

use nalgebra::Vector3;

use super::colliders::apply_colliders;
pub use super::friction::coulomb_friction;
use super::grid::CpuGrid;
use super::particle::clamp_speed;
use crate::collider::field::ColliderFrames;
use crate::sim::interaction::Interaction;
use crate::sim::params::{Boundary, BoundaryKind, GRID_PADDING, SolverParams};

/// One wall's condition on the node velocity `v`, with `n` the wall's inward unit normal.
///
/// Sticky: zero. Slip: the normal part removed whichever way it points, friction on the rest
/// ([`coulomb_friction`]: only when moving into the wall). Separate: as slip when moving into the
/// wall (`v·n < 0`), untouched otherwise.
pub fn apply_wall(v: Vector3<f64>, n: Vector3<f64>, boundary: &Boundary) -> Vector3<f64> {
    let vn = v.dot(&n);
    match boundary.kind {
        BoundaryKind::Sticky => Vector3::zeros(),
        BoundaryKind::Separate if vn >= 0.0 => v,
        BoundaryKind::Slip | BoundaryKind::Separate => coulomb_friction(v - vn * n, vn, boundary.friction),
    }
}

/// Turns node momentum into velocity for every node: `vi = P/M + dt·g` for nodes with mass, then
/// the tool, then the colliders (their frame blended by the given fraction,
/// [`super::colliders::apply_colliders`]), then the walls each node touches (x-low, x-high,
/// y-low, y-high, z-low, z-high, in that order), then the `max_speed` clamp. Nodes without mass get velocity zero.
///
/// A node touches a lower wall along axis a when `i_a ≤ GRID_PADDING` and the upper one when
/// `i_a ≥ GRID_PADDING + cells_a` (the padding nodes count as wall).
pub fn grid_update(
    params: &SolverParams,
    interaction: &Interaction,
    colliders: Option<(&ColliderFrames, f64)>,
    grid: &mut CpuGrid,
) {
    let spec = &params.grid;
    let dims = spec.node_dims();
    let g = Vector3::new(params.gravity.x, params.gravity.y, params.gravity.z);
    for k in 0..dims.z {
        for j in 0..dims.y {
            for i in 0..dims.x {
                let idx = spec.node_index(i, j, k);
                let mass = grid.mass[idx];
                if mass <= 0.0 {
                    grid.velocity[idx] = Vector3::zeros();
                    continue;
                }
                let mut v = grid.momentum[idx] / mass + params.dt * g;
                let position = spec.grid_origin() + glam::DVec3::new(i as f64, j as f64, k as f64) * spec.cell_size;
                let tool = interaction.apply(glam::DVec3::new(v.x, v.y, v.z), position, params.dt);
                v = Vector3::new(tool.x, tool.y, tool.z);
                grid.velocity[idx] = constrain_node(params, [i, j, k], idx, v, colliders);
            }
        }
    }
}

/// The conditions a node's velocity `v` meets, in order: the colliders (their frame blended by the
/// given fraction), each wall node `node` touches (x-low, x-high, y-low, y-high, z-low, z-high),
/// then the `max_speed` clamp. Node `idx` in the collider fields. Shared by both integrators' grid
/// updates (as `constrained_node` in `shaders/mpm/grid_node.wgsl` is on the GPU).
pub fn constrain_node(
    params: &SolverParams,
    node: [u32; 3],
    idx: usize,
    mut v: Vector3<f64>,
    colliders: Option<(&ColliderFrames, f64)>,
) -> Vector3<f64> {
    if let Some((frames, t)) = colliders {
        v = apply_colliders(v, &frames.from.nodes[idx], &frames.to.nodes[idx], t, &frames.surfaces);
    }
    let cells = params.grid.cells;
    for axis in 0..3 {
        let e = Vector3::ith(axis, 1.0);
        if node[axis] <= GRID_PADDING {
            v = apply_wall(v, e, &params.boundary);
        }
        if node[axis] >= GRID_PADDING + cells[axis] {
            v = apply_wall(v, -e, &params.boundary);
        }
    }
    clamp_speed(v, params.max_speed)
}

#[cfg(test)]
mod tests;
