//! A block of snow in free fall follows z₀ − ½gt² (lavapipe, real dispatches).

mod common;

use glam::Vec3;
use powder::sim::Solver;

#[test]
fn free_fall_matches_the_analytic_parabola() {
    let gpu = common::gpu();
    let h = 1.0 / 32.0;
    let dt = 2.0e-4;
    let params = common::params(32, h, dt);
    let (lo, hi) = (Vec3::new(0.4, 0.4, 0.6), Vec3::new(0.6, 0.6, 0.8));
    let particles = common::block(lo, hi, h as f32, 400.0, |_| Vec3::ZERO);
    let solver = Solver::new(&gpu, params, &particles).expect("solver");
    let steps = 500; // t = 0.1 s, the block falls 4.9 cm and stays far from the floor.
    solver.step(&gpu, steps);
    let out = solver.read_particles(&gpu).expect("readback");
    let t = steps as f64 * dt;
    // Symplectic Euler (v then x) gives z₀ − g·dt²·n(n+1)/2 exactly for a rigid translation; it
    // differs from ½gt² by g·dt·t/2 = 0.098 mm here, and we compare with the exact discrete value.
    let drop = 9.81 * dt * dt * (steps * (steps + 1)) as f64 / 2.0;
    let mean_z0 = particles.iter().map(|p| p.position[2] as f64).sum::<f64>() / particles.len() as f64;
    let mean_z = out.iter().map(|p| p.position[2] as f64).sum::<f64>() / out.len() as f64;
    let analytic = mean_z0 - 0.5 * 9.81 * t * t;
    // Tolerance: f32 positions near 0.7 m round at 6e-8 m per step; 500 steps of that is 3e-5 m.
    // Fixed-point momentum adds ~1e-6 m/s per step (src/sim/fixed_point.rs), 5e-8 m of drift.
    assert!((mean_z - (mean_z0 - drop)).abs() < 5e-5, "mean z {mean_z:.6} vs discrete free fall {:.6}", mean_z0 - drop);
    assert!((mean_z - analytic).abs() < 2e-4, "mean z {mean_z:.6} vs z0 - g t^2/2 = {analytic:.6}");
    // Every particle fell with the block: undeformed free fall means no relative motion.
    for (a, b) in particles.iter().zip(&out) {
        let dz = (b.position[2] - a.position[2]) as f64;
        assert!((dz + drop).abs() < 5e-5, "particle fell {dz} instead of {drop}");
        assert!((b.velocity[2] as f64 + 9.81 * t).abs() < 1e-3, "vz {} vs {}", b.velocity[2], -9.81 * t);
    }
}
