//! Tests of the `p2g` pass, in a file of their own: they drive it through
//! [`crate::sim::cpu::solver::CpuSolver`], which runs the pass, so inline they would make a loop.

use super::*;
use crate::sim::cpu::solver::CpuSolver;
use crate::sim::cpu::test_scene;
use glam::Vec3;
use nalgebra::Vector3;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Particles at random interior positions with random velocities (|v| < 2 m/s) and random
/// affine matrices (|C_ij| < 10/s), so the P2G speed clamp (50 m/s) never acts.
fn random_solver(seed: u64, deform: bool) -> CpuSolver {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut r = |lo: f32, hi: f32| rng.random_range(lo..hi);
    let particles: Vec<_> = (0..200)
        .map(|_| {
            let x = Vec3::new(r(0.1, 0.7), r(0.1, 0.7), r(0.1, 0.7));
            let v = Vec3::new(r(-1.0, 1.0), r(-1.0, 1.0), r(-1.0, 1.0));
            test_scene::particle(x, v)
        })
        .collect();
    let mut solver = CpuSolver::new(test_scene::params(), &particles);
    let mut rng = StdRng::seed_from_u64(seed + 1);
    for p in &mut solver.particles {
        p.affine = Matrix3::from_fn(|_, _| rng.random_range(-10.0..10.0));
        if deform {
            p.deformation += Matrix3::from_fn(|_, _| rng.random_range(-0.02..0.02));
            p.plastic_jacobian = rng.random_range(0.9..1.1);
        }
    }
    solver
}

#[test]
fn conserves_mass_and_linear_momentum() {
    let mut solver = random_solver(1, false);
    solver.grid_clear();
    solver.p2g();
    let particle_mass: f64 = solver.particles.iter().map(|p| p.mass).sum();
    let grid_mass: f64 = solver.grid.mass.iter().sum();
    // The weights sum to 1 up to rounding (~1e-16 each); summing thousands of terms in f64
    // leaves ~1e-14 relative at worst, so 1e-12 has margin and still catches a wrong weight.
    assert!((grid_mass - particle_mass).abs() <= 1e-12 * particle_mass, "{grid_mass} vs {particle_mass}");
    // F = I gives τ = 0, and Σ w d = 0 (linear reproduction of the B-spline) removes C, so the
    // grid momentum is Σ m v exactly up to rounding; scale: Σ m |v| (same 1e-12 argument).
    let scale: f64 = solver.particles.iter().map(|p| p.mass * p.velocity.norm()).sum();
    let err = (solver.grid_momentum() - solver.total_momentum()).norm();
    assert!(err <= 1e-12 * scale, "momentum error {err:e}, scale {scale:e}");
}

#[test]
fn conserves_angular_momentum() {
    // Deformed F too: the stress impulse is symmetric, so it exerts no torque.
    for deform in [false, true] {
        let mut solver = random_solver(2, deform);
        solver.grid_clear();
        solver.p2g();
        let particle = solver.total_angular_momentum();
        let grid = solver.grid_angular_momentum();
        // Scale: Σ m (|x||v| + h²|C|), the size of the terms that must cancel. The identity
        // Σ w d dᵀ = h²/4 I holds to rounding; 1e-10 leaves room for summing ~5000 node terms
        // with positions ~1 m and for the stress impulse's own rounding.
        let h2 = solver.params.grid.cell_size.powi(2);
        let scale: f64 = solver
            .particles
            .iter()
            .map(|p| p.mass * (p.position.norm() * p.velocity.norm() + h2 * p.affine.norm()))
            .sum();
        let err = (particle - grid).norm();
        assert!(err <= 1e-10 * scale, "deform {deform}: {particle} vs {grid}, error {err:e}");
    }
}

#[test]
fn stress_of_hand_computed_states() {
    let m = SnowMaterial::default();
    // Undeformed and rigidly rotated: zero stress (to rounding of μ₀ ~ 6e4 Pa times ~1e-15).
    assert_eq!(kirchhoff_stress(&m, &Matrix3::identity(), 1.0, 0.0), Matrix3::zeros());
    let rot = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1).into_inner();
    assert!(kirchhoff_stress(&m, &rot, 1.0, 0.0).norm() < 1e-9 * m.mu0());
    // Uniform compression F = s I with Jp = 0.95: R = I, J = s³, hc = exp(10 · 0.05) = e^0.5.
    let (s, jp) = (0.98, 0.95);
    let hc = (0.5f64).exp();
    let want = 2.0 * m.mu0() * hc * (s - 1.0) * s + m.lambda0() * hc * (s * s * s - 1.0) * s * s * s;
    let tau = kirchhoff_stress(&m, &(Matrix3::identity() * s), jp, 0.0);
    // Relative 1e-12: a handful of f64 operations on both sides.
    assert!((tau - Matrix3::identity() * want).norm() <= 1e-12 * want.abs(), "{tau} vs {want}");
}

#[test]
fn neo_hookean_stress_of_hand_computed_states() {
    // τ = μ (F Fᵀ − I) + λ ln J I (Bonet & Wood): zero at rest and under a rotation, and for a
    // stretch F = diag(a, b, c) diagonal with τᵢ = μ (aᵢ² − 1) + λ ln(abc).
    let m = SnowMaterial { elasticity: Elasticity::NeoHookean, ..SnowMaterial::default() };
    assert!(kirchhoff_stress(&m, &Matrix3::identity(), 1.0, 0.0).norm() < 1e-9 * m.mu0());
    let rot = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1).into_inner();
    assert!(kirchhoff_stress(&m, &rot, 1.0, 0.0).norm() < 1e-9 * m.mu0());
    let d = [1.3, 0.8, 0.95];
    let f = rot * Matrix3::from_diagonal(&Vector3::from(d)) * rot.transpose();
    let ln_j = (d[0] * d[1] * d[2]).ln();
    let want = d.map(|a| m.mu0() * (a * a - 1.0) + m.lambda0() * ln_j);
    let tau = kirchhoff_stress(&m, &f, 1.0, 0.0);
    let want = rot * Matrix3::from_diagonal(&Vector3::from(want)) * rot.transpose();
    // Relative 1e-12: a handful of f64 products on both sides.
    assert!((tau - want).norm() <= 1e-12 * want.norm(), "{tau} vs {want}");
    // The principal stresses the cracked path and the crack test use agree with the matrix form.
    let principal = m.principal_stress(d, 1.0);
    assert!((0..3).all(|i| (principal[i] - (rot.transpose() * tau * rot)[(i, i)]).abs() <= 1e-9 * want.norm()));
    // At small strain the two laws agree to first order (the same μ and λ at rest) and part ways at
    // second: for a 1e-4 stretch their difference is ~1e-4 of the stress, for 0.3 over 10 %.
    let fcr = SnowMaterial::default();
    for (e, lo, hi) in [(1e-4, 0.0, 1e-3), (0.3, 0.1, 1.0)] {
        let f = Matrix3::from_diagonal(&Vector3::new(1.0 + e, 1.0, 1.0));
        let (a, b) = (kirchhoff_stress(&m, &f, 1.0, 0.0), kirchhoff_stress(&fcr, &f, 1.0, 0.0));
        let gap = (a - b).norm() / b.norm();
        assert!(gap >= lo && gap < hi, "stretch {e}: the laws differ by {gap}");
    }
}

#[test]
fn clamps_the_velocity_equivalent() {
    // A particle at 100 m/s contributes as if at max_speed = 50 m/s (C = 0, F = I, so u = v).
    let p = test_scene::particle(Vec3::splat(0.4), Vec3::new(100.0, 0.0, 0.0));
    let mut solver = CpuSolver::new(test_scene::params(), &[p]);
    solver.p2g();
    let m = solver.particles[0].mass;
    // Relative 1e-12: weights sum to one up to rounding.
    let want = Vector3::new(50.0 * m, 0.0, 0.0);
    assert!((solver.grid_momentum() - want).norm() <= 1e-12 * want.norm());
}
