//! The solver's guards on the GPU (lavapipe): absurd and non-finite velocities, fixed-point
//! overflow, particles on the domain boundary, a time step 100× too long. Nothing may turn NaN or
//! leave the domain, the counters must say what happened, and the stats pass must agree with the
//! particles it summarises.
//!
//! `U` is f32's unit roundoff 2⁻²⁴; one f32 operation is off by at most U relative.

mod common;

use glam::Vec3;
use powder::sim::cpu::CpuSolver;
use powder::sim::interaction::Interaction;
use powder::sim::material::{MAX_HARDENING_EXPONENT, PLASTIC_JACOBIAN_MAX, PLASTIC_JACOBIAN_MIN};
use powder::sim::params::{GpuParticle, PageUniforms, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::{Solver, SolverStats};

const U: f64 = 1.0 / (1u64 << 24) as f64;
const H: f64 = 1.0 / 16.0;

/// Finite, inside the domain, and no faster than `max_speed` (length in f32: ~3U).
fn assert_contained(params: &SolverParams, out: &[GpuParticle], when: &str) {
    for (i, p) in out.iter().enumerate() {
        assert!(common::particle_is_finite(p), "{when}: particle {i} is not finite: {p:?}");
        assert!(common::inside_domain(params, p), "{when}: particle {i} left the domain: {:?}", p.position);
        let speed = common::vec3d(p.velocity).norm();
        assert!(speed <= params.max_speed * (1.0 + 4.0 * U), "{when}: particle {i} at {speed} m/s");
    }
}

/// The stats pass against the read-back particles: Jp range bit-exact (atomicMin/Max of the same
/// f32 bits), the largest speed to f32's `length` (3 roundings and a sqrt: 4U), the largest
/// hardening factor to f32's `exp` of ξ(1 − Jp) (exponent ≤ 5 rounded by ~2U, plus lavapipe's exp
/// error of a few ulps: 32U relative).
fn assert_stats_agree(params: &SolverParams, out: &[GpuParticle], s: &SolverStats) {
    let speed = out.iter().map(|p| common::vec3d(p.velocity).norm()).fold(0.0, f64::max);
    let jp = out.iter().map(|p| p.plastic_jacobian as f64);
    let (jp_min, jp_max) = jp.fold((f64::MAX, f64::MIN), |(a, b), j| (a.min(j), b.max(j)));
    let hc = params.material.hardening_factor(jp_min);
    assert!((s.max_speed - speed).abs() <= 4.0 * U * speed, "stats max speed {} vs {speed}", s.max_speed);
    assert_eq!((s.min_plastic_jacobian, s.max_plastic_jacobian), (jp_min, jp_max), "stats Jp range");
    assert!((s.max_hardening - hc).abs() <= 32.0 * U * hc, "stats hardening {} vs {hc}", s.max_hardening);
}

#[test]
fn extreme_velocities_are_contained_and_reported() {
    let gpu = common::gpu();
    let params = common::params(16, H, 5e-4);
    let mut ps = common::block(Vec3::splat(0.375), Vec3::splat(0.625), H as f32, 400.0, |_| Vec3::ZERO);
    let specials = [
        Vec3::new(1e4, 0.0, 0.0),
        Vec3::new(1e30, -1e30, 1e30),
        Vec3::new(f32::NAN, 0.0, 0.0),
        Vec3::new(f32::INFINITY, 0.0, 0.0),
        Vec3::new(0.0, f32::NEG_INFINITY, 1.0),
    ];
    for (k, v) in specials.iter().enumerate() {
        ps[100 * k + 50].velocity = v.to_array();
    }
    // One particle whose F holds a NaN: G2P's F' = (I + dt C) F is NaN, so it must be reset.
    ps[17].deformation[1][1] = f32::NAN;
    let solver = Solver::new(&gpu, params, &ps).expect("solver");
    // Before any substep the stats pass must not hide the bad input: NaN's bits exceed +∞'s, so the
    // float-as-bits maximum is not finite.
    let before = solver.stats(&gpu).expect("stats");
    assert!(!before.max_speed.is_finite(), "stats hid the non-finite speeds: {before:?}");

    solver.step(&gpu, 1);
    let out = solver.read_particles(&gpu).expect("particles");
    let stats = solver.stats(&gpu).expect("stats");
    assert_contained(&params, &out, "after 1 substep");
    assert_stats_agree(&params, &out, &stats);
    // The counters: four particles arrived with a non-finite state (NaN and ∞ velocities, the NaN
    // in F) and P2G reset each to rest, undeformed, where it was, counting it once. The finite
    // 1e4 and 1e30 m/s are capped to 50 m/s before they are deposited, so nothing is clamped.
    assert_eq!((stats.nonfinite_count, stats.overflow_count), (4, 0), "{stats:?}");
    // P2G reset particle 17 to F = I before depositing it, so G2P's trial F is I + dt·C: its
    // distance from I is dt·|C| (plus the σ clamp, which only moves it toward I), and it moved at
    // most dt·max_speed.
    let reset = &out[17];
    let c_max = common::mat3d(&reset.affine).amax();
    let f_dev = (common::mat3d(&reset.deformation) - nalgebra::Matrix3::identity()).amax();
    assert!(f_dev <= params.dt * c_max * 3.0 + 1e-6, "F of the reset particle is {f_dev} from I");
    assert_eq!(reset.plastic_jacobian, 1.0);
    let moved = (common::vec3d(reset.position) - common::vec3d(ps[17].position)).amax();
    assert!(moved <= params.dt * params.max_speed, "the reset particle jumped {moved} m");

    solver.step(&gpu, 30);
    let out = solver.read_particles(&gpu).expect("particles");
    let stats = solver.stats(&gpu).expect("stats");
    assert_contained(&params, &out, "after 31 substeps");
    assert_stats_agree(&params, &out, &stats);
    assert_eq!((stats.nonfinite_count, stats.overflow_count), (0, 0), "nothing new since the report: {stats:?}");
}

#[test]
fn p2g_clamps_absurd_finite_speeds_instead_of_dropping_them() {
    // docs/algorithm.md, p2g step 7: a velocity-equivalent faster than max_speed is scaled to
    // max_speed, whatever its size; the CPU twin does exactly that. A finite |u| ≥ 1.8e19 m/s
    // overflows f32 in `length(u)`, which must not make the particle's mass and momentum vanish.
    // (An earlier p2g.wgsl took `length(u)`, which overflowed, and skipped all 27 contributions:
    // the grid got 0 kg. `clamp_speed` in types.wgsl now measures u scaled by its largest component.)
    let gpu = common::gpu();
    let params = common::params(16, H, 5e-4);
    let (mass_scale, momentum_scale) = common::gpu_scales(&params);
    for v in [Vec3::new(1e20, 0.0, 0.0), Vec3::new(1e30, -1e30, 1e30)] {
        let p = GpuParticle::new(
            Vec3::new(0.51, 0.47, 0.52),
            v,
            400.0 * (H as f32 / 2.0).powi(3),
            (H as f32 / 2.0).powi(3),
            0,
        );
        let solver = Solver::new(&gpu, params, &[p]).expect("solver");
        solver.run_pass(&gpu, MpmPass::GridClear);
        solver.run_pass(&gpu, MpmPass::P2g);
        let (mass, momentum) = common::grid_from_fixed(&params, &solver.read_grid_fixed(&gpu).expect("grid"));
        let mut cpu = CpuSolver::new(params, &[p]);
        cpu.p2g();
        // 27 contributions, each rounded to ±0.5 unit (see tests/conservation.rs), plus f32 noise.
        let dm = (mass.iter().sum::<f64>() - p.mass as f64).abs() * mass_scale;
        let dp = (momentum.iter().sum::<nalgebra::Vector3<f64>>() - cpu.grid_momentum()).amax() * momentum_scale;
        assert!(dm <= 20.0, "v = {v}: the grid got {} kg of the particle's {} kg", mass.iter().sum::<f64>(), p.mass);
        assert!(
            dp <= 20.0 + 64.0 * U * cpu.grid_momentum().amax() * momentum_scale,
            "v = {v}: momentum off by {dp} units"
        );
    }
}

/// A particle's mass and volume (8 per cell) and the flat index of node (10, 10, 10), where a
/// particle at x = (0.5, 0.5, 0.5) m has its largest weight 0.75³ = 0.421875 (exact in f32).
fn cluster(params: &SolverParams) -> (f32, f32, Vec3, usize) {
    let vol = (H as f32 / 2.0).powi(3);
    (400.0 * vol, vol, Vec3::splat(0.5), params.grid.node_index(10, 10, 10))
}

#[test]
fn node_sums_past_i32_stay_exact() {
    // 4000 particles at rest on one node put 4000 q mass units on it (q ≈ 2^30·0.42/8 = 5.7e7,
    // 2.3e11 in all): a hundred times past i32::MAX. The sums are 64-bit (two i32 words, see
    // src/sim/fixed_point.rs), so the node must hold exactly 4000 q, with nothing counted.
    let gpu = common::gpu();
    let params = common::params(16, H, 5e-4);
    let g = params.to_gpu(&PageUniforms { particle_count: 1, ..Default::default() }, &Interaction::default());
    let (m, vol, at_node, centre) = cluster(&params);
    let q = ((0.421875f32 * m) * g.mass_scale).round() as i64; // as the GPU computes it
    let n = 4000;
    let ps = vec![GpuParticle::new(at_node, Vec3::ZERO, m, vol, 0); n];
    let solver = Solver::new(&gpu, params, &ps).expect("solver");
    solver.run_pass(&gpu, MpmPass::GridClear);
    solver.run_pass(&gpu, MpmPass::P2g);
    let fixed = solver.read_grid_fixed(&gpu).expect("grid");
    let stats = solver.stats(&gpu).expect("stats");
    assert!(n as i64 * q > 100 * i32::MAX as i64);
    assert_eq!(fixed[centre][0], n as i64 * q, "the wide mass sum is exact");
    assert_eq!(stats.overflow_count, 0, "{stats:?}");
    solver.step(&gpu, 5);
    assert_contained(&params, &solver.read_particles(&gpu).expect("particles"), "after a pile-up");
}

#[test]
fn momentum_sums_past_i32_stay_exact_and_keep_their_sign() {
    // 256 particles on one node at 1e4 m/s (capped to 50 m/s) put 256 × q units of x momentum on
    // it, q = w·m·50·scale. An i32 sum would wrap past i32::MAX (an earlier saturating version did,
    // racing, and sent the particles backwards); the 64-bit sum must be exact.
    let gpu = common::gpu();
    let params = common::params(16, H, 5e-4);
    let g = params.to_gpu(&PageUniforms { particle_count: 1, ..Default::default() }, &Interaction::default());
    let (m, vol, at_node, centre) = cluster(&params);
    let q_mass = ((0.421875f32 * m) * g.mass_scale).round() as i64;
    let q = (((0.421875f32 * m) * 50.0) * g.momentum_scale).round() as i64;
    let n = 256i64;
    let ps = vec![GpuParticle::new(at_node, Vec3::new(1e4, 0.0, 0.0), m, vol, 0); n as usize];
    let solver = Solver::new(&gpu, params, &ps).expect("solver");
    solver.run_pass(&gpu, MpmPass::GridClear);
    solver.run_pass(&gpu, MpmPass::P2g);
    let fixed = solver.read_grid_fixed(&gpu).expect("grid");
    let stats = solver.stats(&gpu).expect("stats");
    assert!(n * q > i32::MAX as i64, "the case must pass the i32 range");
    assert_eq!(fixed[centre][0], n * q_mass, "mass");
    // The capped velocity (1e4, 0, 0) · 50/1e4 is exactly (50, 0, 0) in f32, so each contribution
    // rounds to the same q.
    assert_eq!(fixed[centre][1], n * q, "x momentum is exact, positive");
    assert_eq!((fixed[centre][2], fixed[centre][3]), (0, 0));
    assert_eq!(stats.overflow_count, 0, "{stats:?}");
    solver.step(&gpu, 5);
    let out = solver.read_particles(&gpu).expect("particles");
    assert_contained(&params, &out, "after the momentum pile-up");
    // Every particle was pushed along +x (a wrapped sum would send them backwards).
    assert!(out.iter().all(|p| p.velocity[0] > 0.0), "a particle moves along −x");
}

#[test]
fn particles_on_the_domain_boundary_stay_inside() {
    // The 27 points {0, ½, 1}³ of the 1 m domain (corners, edge midpoints, face centres, centre),
    // each moving outward at 5 m/s per axis.
    let gpu = common::gpu();
    let params = common::params(16, H, 5e-4);
    let vol = (H as f32 / 2.0).powi(3);
    let ps: Vec<GpuParticle> = (0..27)
        .map(|n| {
            let t = Vec3::new((n % 3) as f32, (n / 3 % 3) as f32, (n / 9) as f32) * 0.5;
            GpuParticle::new(t, (t - 0.5) * 10.0, 400.0 * vol, vol, 0)
        })
        .collect();
    let solver = Solver::new(&gpu, params, &ps).expect("solver");
    let mut cpu = CpuSolver::new(params, &ps);
    solver.step(&gpu, 1);
    cpu.substep();
    let out = solver.read_particles(&gpu).expect("particles");
    assert_contained(&params, &out, "after 1 substep");
    // The stencils reach into the padding on every side; the GPU agrees with the twin there as
    // inside (tolerances of tests/gpu_vs_cpu.rs: 32U of the speed 5√3, one rounding of x ≤ 1 m).
    // Measured: 2.8e-8 m/s and 8.7e-9 m.
    for (i, (g, c)) in out.iter().zip(&cpu.particles).enumerate() {
        let (dx, dv) =
            ((common::vec3d(g.position) - c.position).amax(), (common::vec3d(g.velocity) - c.velocity).amax());
        assert!(dx <= 2.0 * U && dv <= 32.0 * U * 5.0 * 3f64.sqrt(), "particle {i}: x off by {dx:e}, v by {dv:e}");
    }
    solver.step(&gpu, 49);
    let out = solver.read_particles(&gpu).expect("particles");
    assert_contained(&params, &out, "after 50 substeps");
    assert_stats_agree(&params, &out, &solver.stats(&gpu).expect("stats"));
}

#[test]
fn a_time_step_100x_too_long_stays_finite_and_inside() {
    // A 0.3 m block falling onto the floor at 2 m/s and shearing, stepped at 100× its stable dt:
    // the dynamics are garbage, but the guards (speed clamps, σ clamps, Jp and hardening bounds,
    // position clamp) must keep everything finite and in the domain.
    let gpu = common::gpu();
    let mut params = common::params(16, H, 5e-4);
    // The paper's model, without cracking: a cracked particle's Jp no longer rises, so with
    // cracking on the upper Jp bound below would not be reached and not be tested.
    params.material.tensile_strength = 0.0;
    let ps = common::block(Vec3::new(0.3, 0.3, 0.0), Vec3::new(0.6, 0.6, 0.3), H as f32, 400.0, |x| {
        Vec3::new(0.0, 3.0 * (x.x - 0.45), -2.0)
    });
    let mut solver = Solver::new(&gpu, params, &ps).expect("solver");
    let (dt, _) = solver.stable_dt(&gpu, 0.4).expect("stats");
    solver.set_dt(&gpu, 100.0 * dt);
    let params = *solver.params();
    let mut ranges = (f64::MAX, f64::MIN, 0.0f64);
    for chunk in [1u32, 4, 15, 30] {
        solver.step(&gpu, chunk);
        let out = solver.read_particles(&gpu).expect("particles");
        let stats = solver.stats(&gpu).expect("stats");
        assert_contained(&params, &out, "100× dt");
        assert_stats_agree(&params, &out, &stats);
        ranges = (
            ranges.0.min(stats.min_plastic_jacobian),
            ranges.1.max(stats.max_plastic_jacobian),
            ranges.2.max(stats.max_hardening),
        );
        // Measured: no overflow and no reset; the σ clamps keep F bounded, so nothing goes non-finite.
        assert_eq!((stats.overflow_count, stats.nonfinite_count), (0, 0), "{stats:?}");
    }
    // The run did hit the guards: Jp reached its bounds' range and the hardening its cap.
    eprintln!("100× dt: Jp in [{}, {}], hardening up to {}", ranges.0, ranges.1, ranges.2);
    assert!(ranges.0 >= PLASTIC_JACOBIAN_MIN as f32 as f64 && ranges.1 <= PLASTIC_JACOBIAN_MAX as f32 as f64);
    assert_eq!(ranges.1, PLASTIC_JACOBIAN_MAX as f32 as f64, "Jp hit its upper bound");
    assert!(
        (ranges.2 - MAX_HARDENING_EXPONENT.exp()).abs() <= 32.0 * U * ranges.2,
        "hardening capped at e⁵: {}",
        ranges.2
    );
}
