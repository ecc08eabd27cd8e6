//! Tests of the `g2p` pass, in a file of their own: they drive it through
//! [`crate::sim::cpu::solver::CpuSolver`], which runs the pass, so inline they would make a loop.

use super::*;
use crate::sim::cpu::solver::CpuSolver;
use crate::sim::cpu::test_scene;
use glam::Vec3;
use nalgebra::Vector3;

/// One particle at an interior point with deformation `f` and plastic ratio `jp`; the grid
/// velocity is zero everywhere (as after `CpuSolver::new`).
fn deformed(f: Matrix3<f64>, jp: f64) -> CpuSolver {
    let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::ZERO);
    let mut solver = CpuSolver::new(test_scene::params(), &[p]);
    solver.particles[0].deformation = f;
    solver.particles[0].plastic_jacobian = jp;
    solver
}

#[test]
fn stretch_past_theta_s_becomes_plastic() {
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.1, 1.0, 1.0)), 1.0);
    s.g2p();
    let theta_s = s.params.material.critical_stretch;
    let p = &s.particles[0];
    let (_, sigma, _) = signed_svd(&p.deformation);
    // Relative 1e-12: with zero grid velocity F' = F exactly and the SVD of a diagonal matrix
    // is exact to a few ulps, so only a handful of roundings separate the two sides.
    assert!((sigma.max() - (1.0 + theta_s)).abs() <= 1e-12 * (1.0 + theta_s), "σ = {sigma}");
    assert!((sigma.min() - 1.0).abs() <= 1e-12);
    let want = 1.1 / (1.0 + theta_s);
    assert!((p.plastic_jacobian - want).abs() <= 1e-12 * want, "Jp = {}", p.plastic_jacobian);
}

#[test]
fn compression_past_theta_c_becomes_plastic() {
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.0, 0.9, 1.0)), 1.0);
    s.g2p();
    let theta_c = s.params.material.critical_compression;
    let (_, sigma, _) = signed_svd(&s.particles[0].deformation);
    // Same 1e-12 argument as for stretch.
    assert!((sigma.min() - (1.0 - theta_c)).abs() <= 1e-12);
    let want = 0.9 / (1.0 - theta_c);
    assert!((s.particles[0].plastic_jacobian - want).abs() <= 1e-12 * want);
}

#[test]
fn plastic_jacobian_is_clamped() {
    // 1.5e-3 · 0.5 / 0.975 ≈ 7.7e-4 < 1e-3: held at the bound (exact, clamp returns it).
    let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(0.5, 1.0, 1.0)), 1.5e-3);
    s.g2p();
    assert_eq!(s.particles[0].plastic_jacobian, PLASTIC_JACOBIAN_MIN);
}

#[test]
fn gravity_only_substep_is_a_free_fall_step() {
    let (x0, v0) = (Vector3::new(0.43, 0.41, 0.47), Vector3::new(0.3, -0.2, 0.1));
    let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::new(0.3, -0.2, 0.1));
    let mut s = CpuSolver::new(test_scene::params(), &[p]);
    // Use the particle's own (f32-rounded) start so the check is about the step, not the input.
    let (x0f, v0f) = (s.particles[0].position, s.particles[0].velocity);
    assert!((x0f - x0).norm() < 1e-7 && (v0f - v0).norm() < 1e-7);
    s.substep();
    let g = Vector3::new(0.0, 0.0, -9.81);
    let dt = s.params.dt;
    let v1 = v0f + dt * g;
    let x1 = x0f + dt * v1;
    let p = &s.particles[0];
    // 1e-12: every node gets the same velocity v + g dt, and the weights sum to one, so v' and
    // x' differ from the closed form only by rounding (~1e-16 relative).
    assert!((p.velocity - v1).norm() < 1e-12, "v = {}", p.velocity);
    assert!((p.position - x1).norm() < 1e-12, "x = {}", p.position);
    // C' = (4/h²)·v·Σ w dᵀ = 0 up to 400 × rounding of Σ w d (~1e-17 m), so F stays I.
    assert!(p.affine.norm() < 1e-10, "C = {}", p.affine);
    assert!((p.deformation - Matrix3::identity()).norm() < 1e-12);
    assert_eq!(p.plastic_jacobian, 1.0);
}

#[test]
fn clamps_position_to_the_domain_and_speed_after_moving() {
    let low = test_scene::particle(Vec3::new(0.4, 0.4, 0.001), Vec3::ZERO);
    let mid = test_scene::particle(Vec3::new(0.4, 0.4, 0.4), Vec3::ZERO);
    let mut s = CpuSolver::new(test_scene::params(), &[low, mid]);
    s.grid.velocity.fill(Vector3::new(0.0, 0.0, -80.0));
    s.g2p();
    let dt = s.params.dt;
    // Low particle: 0.001 − 80 dt = −0.007 → clamped to the floor z = 0 (exact).
    assert_eq!(s.particles[0].position.z, 0.0);
    // Mid particle moves with the unclamped −80 m/s (to rounding, 1e-12), then its velocity is
    // clamped to 50 m/s.
    let z0 = 0.4f32 as f64;
    assert!((s.particles[1].position.z - (z0 - 80.0 * dt)).abs() < 1e-12);
    assert!((s.particles[1].velocity - Vector3::new(0.0, 0.0, -50.0)).norm() < 1e-12);
}
