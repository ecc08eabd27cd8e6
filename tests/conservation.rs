//! Conservation on the GPU (lavapipe): P2G's fixed-point grid mass equals the particle mass to the
//! fixed-point resolution, and free motion (no gravity, no walls) conserves linear and angular
//! momentum, the APIC spin of C included.
//!
//! `U` is f32's unit roundoff 2⁻²⁴; one f32 operation is off by at most U relative.

mod common;

use glam::Vec3;
use nalgebra::Vector3;
use powder::sim::Solver;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const U: f64 = 1.0 / (1u64 << 24) as f64;

/// The fixed-point mass units of one particle's 27 contributions can miss `m·scale` by 0.5 unit each
/// (rounding to an integer: 13.5 units in all, the exact statement of the fixed-point resolution),
/// plus the f32 evaluation of `w·m·scale`: the per-axis weights are each within 1.5U of their true
/// value (which sums to exactly 1 for whatever f the GPU computed), their product adds 2U, `·m`
/// and `·scale` 1U each: 8.5U of `m·scale`, bounded here by 10U.
fn particle_mass_bound(mass_units: f64) -> f64 {
    27.0 * 0.5 + 10.0 * U * mass_units
}

fn p2g_mass(params: SolverParams, particles: &[GpuParticle], path: SolverPath) -> Vec<f64> {
    let gpu = common::gpu();
    let mut solver = Solver::new(&gpu, params, particles).expect("solver");
    solver.set_path(&gpu, path).expect("path");
    solver.run_pass(&gpu, MpmPass::GridClear);
    solver.run_pass(&gpu, MpmPass::P2g);
    common::assert_ran_on(&gpu, &solver, path);
    let fixed = solver.read_grid_fixed(&gpu).expect("grid");
    let stats = solver.stats(&gpu).expect("stats");
    assert_eq!(stats.overflow_count, 0, "no contribution may have been dropped");
    fixed.iter().map(|n| n[0] as f64).collect()
}

#[test]
fn grid_mass_equals_particle_mass_to_the_fixed_point_resolution_on_the_naive_path() {
    grid_mass_equals_particle_mass_to_the_fixed_point_resolution(SolverPath::Naive);
}

#[test]
fn grid_mass_equals_particle_mass_to_the_fixed_point_resolution_on_the_sorted_path() {
    grid_mass_equals_particle_mass_to_the_fixed_point_resolution(SolverPath::Sorted);
}

fn grid_mass_equals_particle_mass_to_the_fixed_point_resolution(path: SolverPath) {
    let h = 1.0 / 32.0;
    let params = common::params(32, h, 1e-4);
    let (mass_scale, _) = common::gpu_scales(&params);
    let mut rng = StdRng::seed_from_u64(3);

    // 512 isolated particles, one in each 4×4×4 block of cells at a random point of the block's cell
    // (4a+1, 4b+1, 4c+1): stencils (nodes 4a+2 … 4a+5) never overlap, so every particle's own mass
    // units can be summed from the grid.
    let mut isolated = Vec::new();
    for c in 0..8 {
        for b in 0..8 {
            for a in 0..8 {
                let cell = Vec3::new(4.0 * a as f32 + 1.0, 4.0 * b as f32 + 1.0, 4.0 * c as f32 + 1.0);
                let r = Vec3::new(rng.random(), rng.random(), rng.random());
                let volume = (0.5 * h as f32).powi(3);
                // Masses vary by ±50 % so the units per particle are not all alike.
                let density = 400.0 * rng.random_range(0.5f32..1.5);
                isolated.push(GpuParticle::new((cell + r) * h as f32, Vec3::ZERO, density * volume, volume, 0));
            }
        }
    }
    let grid = p2g_mass(params, &isolated, path);
    let dims = params.grid.node_dims();
    let mut worst: f64 = 0.0;
    for (n, p) in isolated.iter().enumerate() {
        let (a, b, c) = ((n % 8) as u32, (n / 8 % 8) as u32, (n / 64) as u32);
        let mut units = 0.0;
        for k in 4 * c + 2..(4 * c + 6).min(dims.z) {
            for j in 4 * b + 2..(4 * b + 6).min(dims.y) {
                for i in 4 * a + 2..(4 * a + 6).min(dims.x) {
                    units += grid[params.grid.node_index(i, j, k)];
                }
            }
        }
        let want = p.mass as f64 * mass_scale;
        let err = (units - want).abs();
        assert!(err <= particle_mass_bound(want), "particle {n}: {units} units vs m·scale = {want}");
        worst = worst.max(err);
    }
    let total: f64 = grid.iter().sum();
    assert!(grid.iter().all(|&q| q >= 0.0));
    // Measured: worst 6.1 units per particle, bound 13.5 + 10U·m·scale ≈ 18.5.
    eprintln!("isolated particles: worst per-particle error {worst:.2} units, {total:.0} units in all");

    // A dense block of 4096 particles (8 per cell): the grid total obeys the sum of the per-particle
    // bounds. Measured: 768 units = 4096 × 0.1875, systematic: lattice particles all have the same
    // 27 weights, so they all round the same way (1.4e-7 kg of 6.25 kg).
    let block = common::block(Vec3::splat(0.25), Vec3::splat(0.5), h as f32, 400.0, |_| Vec3::ZERO);
    let grid = p2g_mass(params, &block, path);
    let units: f64 = grid.iter().sum();
    let want: f64 = block.iter().map(|p| p.mass as f64 * mass_scale).sum();
    let bound: f64 = block.iter().map(|p| particle_mass_bound(p.mass as f64 * mass_scale)).sum();
    let kg = (units - want).abs() / mass_scale;
    eprintln!(
        "block: {:.1} units off ({kg:.2e} kg of {:.4} kg), bound {bound:.0} units",
        units - want,
        want / mass_scale
    );
    assert!((units - want).abs() <= bound, "block mass {units} units vs {want}");
}

#[test]
fn free_motion_conserves_linear_and_angular_momentum_on_the_naive_path() {
    free_motion_conserves_linear_and_angular_momentum(SolverPath::Naive);
}

#[test]
fn free_motion_conserves_linear_and_angular_momentum_on_the_sorted_path() {
    free_motion_conserves_linear_and_angular_momentum(SolverPath::Sorted);
}

#[test]
fn free_motion_conserves_linear_and_angular_momentum_on_the_fused_path() {
    free_motion_conserves_linear_and_angular_momentum(SolverPath::Fused);
}

fn free_motion_conserves_linear_and_angular_momentum(path: SolverPath) {
    let gpu = common::gpu();
    let h = 1.0 / 32.0;
    let mut params = common::params(32, h, 5e-4);
    params.gravity = glam::DVec3::ZERO;
    let (mass_scale, momentum_scale) = common::gpu_scales(&params);
    // A 0.25 m block in the middle of the 1 m domain (more than 8 cells from every wall), F = I,
    // spinning at ω = (1, −2, 3) rad/s with C = [ω]× and moving at (0.3, −0.2, 0.1) m/s plus
    // random ±0.5 m/s per particle. Speeds stay below 2 m/s, far below the 50 m/s clamp.
    let c = Vector3::new(0.5, 0.5, 0.5);
    let omega = Vec3::new(1.0, -2.0, 3.0);
    let mut rng = StdRng::seed_from_u64(5);
    let mut ps = common::block(Vec3::splat(0.375), Vec3::splat(0.625), h as f32, 400.0, |x| {
        Vec3::new(0.3, -0.2, 0.1) + omega.cross(x - Vec3::splat(0.5))
    });
    let spin = glam::Mat3::from_cols(
        Vec3::new(0.0, omega.z, -omega.y),
        Vec3::new(-omega.z, 0.0, omega.x),
        Vec3::new(omega.y, -omega.x, 0.0),
    );
    for p in &mut ps {
        for a in 0..3 {
            p.velocity[a] += rng.random_range(-0.5..0.5);
        }
        p.affine = common::padded(spin);
    }
    let (p0, l0) = (common::momentum(&ps), common::angular_momentum(&ps, h, c));
    let mut solver = Solver::new(&gpu, params, &ps).expect("solver");
    solver.set_path(&gpu, path).expect("path");

    // Scales of the error budget.
    let n = ps.len() as f64;
    let abs_momentum: f64 = ps.iter().map(|p| p.mass as f64 * common::vec3d(p.velocity).norm()).sum();
    let v_max = ps.iter().map(|p| common::vec3d(p.velocity).norm()).fold(0.0, f64::max);
    let r_max = ps.iter().map(|p| (common::vec3d(p.position) - c).norm()).fold(0.0, f64::max) + 1.5 * 3f64.sqrt() * h;
    // Per substep, worst case (every rounding the same sign):
    // * P2G rounds each of the 27 N momentum contributions to ±0.5 unit per component, and each mass
    //   contribution to ±0.5 mass unit, which G2P turns into momentum at the node's speed ≤ v_max;
    // * the f32 grid velocity P/M (4 roundings), G2P's 27-term sums (30) and the read back (1):
    //   35U of Σ m |v|.
    let per_step = 27.0 * n * 0.5 * (3f64.sqrt() / momentum_scale + v_max / mass_scale) + 35.0 * U * abs_momentum;
    // Measured: |ΔP| = 2.7e-7 after 1 substep and 3.7e-7 after 20 (|P| = 2.35 kg·m/s); |ΔL| =
    // 1.4e-8 and 1.1e-7 (|L| = 0.25 kg·m²/s). The worst-case budget is 350× (1 substep) to 5000×
    // (20) above that, because roundings mostly cancel. It is not tightened to the measurement:
    // rounding can be systematic (see the mass test), and a real leak is far larger anyway (gravity
    // left on: 0.03 kg·m/s per substep; one dropped full node: ~0.01; C left out of P2G: L off by
    // the spin part checked below).
    let mut done = 0;
    for steps in [1u32, 19] {
        solver.step(&gpu, steps);
        common::assert_ran_on(&gpu, &solver, path);
        done += steps;
        let out = solver.read_particles(&gpu).expect("particles");
        let (p1, l1) = (common::momentum(&out), common::angular_momentum(&out, h, c));
        let (dp, dl) = ((p1 - p0).norm(), (l1 - l0).norm());
        let tol_p = done as f64 * per_step;
        // The same momentum errors at lever arms ≤ r_max, plus the spin term m h²/4 · 2|δC| with δC
        // the f32 error of C (≤ 32U · (6/h) · v_max, see tests/gpu_vs_cpu.rs).
        let tol_l = done as f64 * (r_max * per_step + n * ps[0].mass as f64 * h * h / 2.0 * 32.0 * U * 6.0 / h * v_max);
        eprintln!(
            "{done} substeps: |ΔP| = {dp:.2e} (|P| = {:.3}, tol {tol_p:.1e}), |ΔL| = {dl:.2e} (|L| = {:.4}, tol {tol_l:.1e})",
            p0.norm(),
            l0.norm()
        );
        assert!(dp <= tol_p, "linear momentum {p1} vs {p0}");
        assert!(dl <= tol_l, "angular momentum {l1} vs {l0}");
    }
    // The APIC spin term is a sizable part of L: leaving it out of the balance (or C out of P2G)
    // would break conservation by far more than the tolerance.
    let out = solver.read_particles(&gpu).expect("particles");
    let spin_part = common::angular_momentum(&out, h, c) - common::angular_momentum(&out, 0.0, c);
    eprintln!("spin part of L: {:.2e}", spin_part.norm());
    assert!(spin_part.norm() > 10.0 * done as f64 * (r_max * per_step), "spin {spin_part}");
}
