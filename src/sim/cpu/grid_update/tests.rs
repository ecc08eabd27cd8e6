//! Tests of the `grid_update` pass, in a file of their own: they drive it through
//! [`crate::sim::cpu::solver::CpuSolver`], which runs the pass, so inline they would make a loop.

use super::*;
use crate::sim::cpu::solver::CpuSolver;
use crate::sim::cpu::test_scene;
use glam::{DVec3, Vec3};

/// A solver with no particles whose node (i, j, k) holds mass 2 kg moving at `v`.
fn one_node(kind: BoundaryKind, gravity: DVec3, node: [u32; 3], v: Vector3<f64>) -> (CpuSolver, usize) {
    let mut params = test_scene::params();
    params.boundary.kind = kind;
    params.gravity = gravity;
    let mut solver = CpuSolver::new(params, &[]);
    let idx = params.grid.node_index(node[0], node[1], node[2]);
    solver.grid.mass[idx] = 2.0;
    solver.grid.momentum[idx] = 2.0 * v;
    solver.grid_update();
    (solver, idx)
}

// Tolerance 1e-12 in these tests: a few f64 operations on numbers of order 1.

#[test]
fn friction_on_a_hand_computed_floor_contact() {
    let g = DVec3::new(0.0, 0.0, -9.81);
    let floor = [4, 4, GRID_PADDING];
    // Sliding: vi = (1, 0, −2 − 9.81e-4); vn = −2.000981, μ|vn| = 0.6002943 < |vt| = 1.
    let (s, idx) = one_node(BoundaryKind::Separate, g, floor, Vector3::new(1.0, 0.0, -2.0));
    let want = Vector3::new(1.0 - 0.3 * 2.000981, 0.0, 0.0);
    assert!((s.grid.velocity[idx] - want).norm() < 1e-12, "{}", s.grid.velocity[idx]);
    // Stuck: |vt| = 0.5 ≤ 0.6002943, so the node stops.
    let (s, idx) = one_node(BoundaryKind::Separate, g, floor, Vector3::new(0.5, 0.0, -2.0));
    assert_eq!(s.grid.velocity[idx], Vector3::zeros());
    // Leaving the floor (vz = 2 − 9.81e-4 > 0): separate leaves it alone, slip removes vz but
    // applies no friction (out of contact).
    let up = Vector3::new(1.0, 0.0, 2.0);
    let (s, idx) = one_node(BoundaryKind::Separate, g, floor, up);
    assert!((s.grid.velocity[idx] - Vector3::new(1.0, 0.0, 1.999019)).norm() < 1e-12);
    let (s, idx) = one_node(BoundaryKind::Slip, g, floor, up);
    assert_eq!(s.grid.velocity[idx], Vector3::new(1.0, 0.0, 0.0));
    // Sticky stops it whatever the direction.
    let (s, idx) = one_node(BoundaryKind::Sticky, g, floor, up);
    assert_eq!(s.grid.velocity[idx], Vector3::zeros());
}

#[test]
fn corner_applies_x_wall_then_z_wall() {
    // Node (1, 4, 1) touches x-low and z-low; no gravity. v = (−1, 3, −2).
    let (s, idx) = one_node(BoundaryKind::Separate, DVec3::ZERO, [1, 4, 1], Vector3::new(-1.0, 3.0, -2.0));
    // x-low: vn = −1, vt = (0, 3, −2), |vt| = √13, loses 0.3.
    let k1 = 1.0 - 0.3 / 13f64.sqrt();
    // z-low: vn = −2·k1, vt = (0, 3·k1, 0), loses 0.3·2·k1 of its length 3·k1.
    let want = Vector3::new(0.0, 3.0 * k1 - 0.6 * k1, 0.0);
    assert!((s.grid.velocity[idx] - want).norm() < 1e-12, "{}", s.grid.velocity[idx]);
}

#[test]
fn clamps_speed_and_zeroes_empty_nodes() {
    let (s, idx) = one_node(BoundaryKind::Separate, DVec3::ZERO, [5, 5, 5], Vector3::new(0.0, 80.0, 60.0));
    // |(0, 80, 60)| = 100 → scaled by 1/2.
    assert!((s.grid.velocity[idx] - Vector3::new(0.0, 40.0, 30.0)).norm() < 1e-12);
    let moving = s.grid.velocity.iter().filter(|v| **v != Vector3::zeros()).count();
    assert_eq!(moving, 1);
}

/// Substep-free check on a real particle: P2G then the grid update, near the floor.
fn floor_particle(kind: BoundaryKind, velocity: Vec3) -> CpuSolver {
    let mut params = test_scene::params();
    params.boundary.kind = kind;
    // z = 0.02 m: xg_z = 2.2, base 1, so the stencil is nodes k = 1, 2 (wall) and 3 (inside).
    let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.02), velocity);
    let mut solver = CpuSolver::new(params, &[p]);
    solver.grid_clear();
    solver.p2g();
    solver.grid_update();
    solver
}

/// Velocities of the stencil's nodes with mass in layer `k`.
fn layer(s: &CpuSolver, k: u32) -> Vec<Vector3<f64>> {
    let dims = s.params.grid.node_dims();
    let mut out = Vec::new();
    for j in 0..dims.y {
        for i in 0..dims.x {
            let idx = s.params.grid.node_index(i, j, k);
            if s.grid.mass[idx] > 0.0 {
                out.push(s.grid.velocity[idx]);
            }
        }
    }
    out
}

#[test]
fn separate_floor_stops_inflow_only_at_wall_nodes() {
    let s = floor_particle(BoundaryKind::Separate, Vec3::new(1.0, 0.0, -2.0));
    for k in [1, 2] {
        let vs = layer(&s, k);
        assert!(!vs.is_empty());
        // Exact: vt's normal component is vz − vz·1 = 0, and friction only scales vt.
        assert!(vs.iter().all(|v| v.z >= 0.0), "layer {k}: {vs:?}");
    }
    // The first inner layer keeps moving down at −2 − g dt (P/M = v to rounding: 1e-12).
    let inner = layer(&s, 3);
    assert!(!inner.is_empty() && inner.iter().all(|v| (v.z + 2.000981).abs() < 1e-12));
}

#[test]
fn sticky_floor_freezes_the_wall_layer() {
    let s = floor_particle(BoundaryKind::Sticky, Vec3::new(1.0, 0.5, -2.0));
    for k in [1, 2] {
        assert!(layer(&s, k).iter().all(|v| *v == Vector3::zeros()));
    }
    assert!(layer(&s, 3).iter().all(|v| v.norm() > 1.0));
}
