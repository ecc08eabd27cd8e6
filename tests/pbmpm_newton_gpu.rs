//! PB-MPM's Newton–PCG step on the GPU (lavapipe) against the twin's (`newton::step` with the same
//! fixed iteration count and no tolerance), on each path and in pages.

mod common;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::integrator::Integrator;
use powder::sim::params::{BoundaryKind, GpuParticle, SolverParams};
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::pbmpm::{PbSolver, PbmpmSettings};
use powder::sim::solver::SolverOptions;
use powder::sim::sort::bins::SolverPath;

/// A block of reference snow thrown sideways at 0.8 m/s from 12 cm above the floor of a 16-cell
/// box of 1/16 m cells, inside slip walls with friction 0.3.
fn thrown_block() -> (SolverParams, Vec<GpuParticle>) {
    let h = 1.0 / 16.0;
    let mut params = common::params(16, h, 1e-3);
    params.boundary.kind = BoundaryKind::Slip;
    params.boundary.friction = 0.3;
    let particles = common::block(Vec3::new(0.3, 0.3, 0.12), Vec3::new(0.55, 0.55, 0.32), h as f32, 400.0, |_| {
        Vec3::new(0.8, 0.0, 0.0)
    });
    (params, particles)
}

#[test]
fn a_block_settles_on_the_floor_as_the_twins_newton_step_settles_it() {
    // A block of reference snow (E = 1.4e5 Pa, hardening on) thrown sideways onto the floor inside
    // slip walls with friction 0.3, 60 steps of 1/240 s: it falls about 6 cm onto the floor, is
    // compressed and pushed back, and the floor's friction slows it by the normal force the
    // solve carries (newton.rs). At h = 1/16 m the P wave crosses 1.2 cells a step. The GPU runs
    // the default solve (at most 10 CG iterations, tolerance 1e-3) in f32, the twin in f64.
    let gpu = common::gpu();
    let (params, particles) = thrown_block();
    let settings = PbmpmSettings { solver: PbSolver::Newton, ..PbmpmSettings::default() };
    let mut twin = PbmpmCpu::new(params, settings, &particles).expect("twin");
    let (steps, dt) = (60, 1.0 / 240.0);
    let mut twin_residual: f64 = 0.0;
    for k in 0..steps {
        twin.collider_blend = (k + 1) as f64 / steps as f64;
        twin.step(dt);
        twin_residual = twin_residual.max(twin.last_solve.expect("a Newton step").mass_residual);
    }
    let twin_ps = twin.gpu_particles();
    let fell = particles.iter().zip(&twin_ps).map(|(a, b)| (a.position[2] - b.position[2]) as f64).sum::<f64>()
        / particles.len() as f64;
    assert!(fell > 0.04, "the block did not reach the floor ({fell} m)");
    let configs = [
        ("naive", SolverPath::Naive, None),
        ("sorted", SolverPath::Sorted, None),
        ("sorted, 3 pages", SolverPath::Sorted, Some(particles.len().div_ceil(3) as u32)),
    ];
    for (name, path, page_capacity) in configs {
        let options = SolverOptions { integrator: Integrator::Pbmpm(settings), page_capacity, ..Default::default() };
        let mut solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
        solver.set_path(&gpu, path).expect("path");
        solver.step_pbmpm(&gpu, steps, dt);
        let gpu_residual = solver.stats(&gpu).expect("stats").solve.max_residual;
        let gpu_ps = solver.read_particles(&gpu).expect("particles");
        let worst = common::worst_distance(&gpu_ps, &twin_ps);
        eprintln!(
            "{name}: worst particle distance GPU vs twin {worst:e} m; the twin's mean fall {fell:e} m; \
             largest relative residual GPU {gpu_residual:.4e}, twin {twin_residual:.4e}"
        );
        // Measured 1.7e-4 m on every configuration (2.7e-3 of the fall): the force sums are kept
        // 64 times coarser than momentum here, so that an impact's stresses fit their fixed-point
        // format (force_scale in newton.wgsl; with the momentum's own scale and no friction this
        // measured 1.4e-6 m), plus f32 rounding of the CG's sums and of an SVD per particle.
        // The binned paths' tiled operator (pb_newton_apply_tiled) adds the same integers as the
        // naive path's global atomics: all three configurations measure the same distance to
        // the bit. With three pages it also needs each page's sort counters zeroed every step
        // (pb_newton_counters): left to page 0 alone, the other pages' bins went wrong and this
        // measured 6.2e-2 m.
        assert!(worst < 2.5e-4, "{name}: GPU and twin differ by {worst:e} m");
        // The residual the Stats panel shows: the largest relative residual of a step, measured
        // 1.36e-2 on the GPU against the twin's 1.38e-2 (the steps in free fall, under
        // RESIDUAL_FLOOR, count as 0: measured without the floor the GPU's rounding in them reads
        // as 0.17). 20 % covers the fixed-point sums. A level ratio of half (B = 14) on the GPU
        // alone reads 1.05e-2 here (24 % off) while its positions stay within 1.1e-4 m: the
        // residual is the sharper check of the preconditioner.
        assert!(twin_residual > 1e-3 && twin_residual < 0.05, "the twin's residual {twin_residual}");
        let off = (gpu_residual - twin_residual).abs() / twin_residual;
        assert!(off < 0.2, "{name}: residual GPU {gpu_residual} against the twin's {twin_residual}");
    }
}

#[test]
fn a_long_run_on_the_sorted_path_keeps_every_particle_once() {
    // 200 Newton steps of a block thrown across the floor on the sorted path: each step sorts the
    // particles, and every few steps the reorder moves them into block order by that sort. The
    // sort's cell counters are zeroed by the grid passes; a Newton step must zero them too, or the
    // counts grow from step to step, the sort's places overlap and the reorder loses particles
    // (the read-back then refuses ids that are not a permutation).
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let params = common::params(16, h, 1e-3);
    let particles = common::block(Vec3::new(0.2, 0.3, 0.1), Vec3::new(0.45, 0.55, 0.3), h as f32, 400.0, |_| {
        Vec3::new(1.5, 0.3, 0.0)
    });
    let settings = PbmpmSettings { solver: PbSolver::Newton, ..PbmpmSettings::default() };
    let options = SolverOptions { integrator: Integrator::Pbmpm(settings), ..Default::default() };
    let mut solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
    solver.set_path(&gpu, SolverPath::Sorted).expect("path");
    for _ in 0..10 {
        solver.step_pbmpm(&gpu, 20, 1.0 / 240.0);
    }
    let read = solver.read_particles(&gpu).expect("every particle read back once");
    assert_eq!(read.len(), particles.len());
    let moved = read.iter().zip(&particles).map(|(a, b)| (a.position[0] - b.position[0]) as f64).sum::<f64>()
        / particles.len() as f64;
    assert!(moved > 0.1, "the block did not travel ({moved} m)");
}

#[test]
fn colliding_blocks_keep_their_momentum() {
    // Two blocks thrown at each other 2 cm off-centre in zero gravity, walls never reached, 24
    // Newton steps (tests/pbmpm_gpu.rs runs the same under the constraint iterations). The twin's
    // step keeps linear momentum to rounding; the GPU's loses what its f32 CG rounds away.
    let gpu = common::gpu();
    let (params, particles, h) = common::colliding_blocks();
    let settings = PbmpmSettings { solver: PbSolver::Newton, ..PbmpmSettings::default() };
    let options = SolverOptions { integrator: Integrator::Pbmpm(settings), ..Default::default() };
    let solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
    solver.step_pbmpm(&gpu, 24, 1.0 / 240.0);
    let after = solver.read_particles(&gpu).expect("particles");
    let mut twin = PbmpmCpu::new(params, settings, &particles).expect("twin");
    for _ in 0..24 {
        twin.step(1.0 / 240.0);
    }
    let (gpu_linear, gpu_spin) = common::collision_drifts(&particles, &after, h);
    let (twin_linear, twin_spin) = common::collision_drifts(&particles, &twin.gpu_particles(), h);
    eprintln!(
        "momentum drift of Σ m|v|: GPU {gpu_linear:e}, twin {twin_linear:e}; angular momentum drift of \
         Σ m|x − c||v|: GPU {gpu_spin:e}, twin {twin_spin:e}"
    );
    // The twin keeps linear momentum to 4e-10 (its f32 particles). The GPU measured 3.4e-5 on
    // lavapipe: f32 rounding in the CG (the constraint iterations keep 1e-7, tests/pbmpm_gpu.rs).
    // Without the centre node's correction in scatter_stress (newton.wgsl), which makes each
    // particle's fixed-point forces add up to zero exactly, it measured 5.4e-4; 1e-4 fails that.
    assert!(twin_linear < 1e-8, "the twin's momentum drift {twin_linear:e}");
    assert!(gpu_linear < 1e-4, "the GPU's momentum drift {gpu_linear:e}");
    // Angular momentum: what the CG iterations leave of the residual carries torque (the twin
    // measures 1.6e-3 here, tests/pbmpm_cpu.rs's snowballs 7.2e-4); the GPU measured 1.4e-3.
    // Both within 2e-3.
    assert!(twin_spin < 2e-3 && gpu_spin < 2e-3, "angular momentum drift GPU {gpu_spin:e}, twin {twin_spin:e}");
}

#[test]
fn free_fall_is_exact_under_the_newton_step() {
    // A block in the air, far from every wall, at the default solve: the grid moves uniformly, the
    // force at the prediction is zero (F stays I), so the solve has nothing to do, and two frames
    // of different step lengths must follow the leapfrog prediction's closed form, x0 + v0 t +
    // ½ g t² (tests/pbmpm_gpu.rs checks the constraint iterations the same way).
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let params = common::params(16, h, 1e-3);
    let v0 = Vec3::new(0.3, -0.2, 0.5);
    let particles = common::block(Vec3::new(0.4, 0.4, 0.6), Vec3::new(0.6, 0.6, 0.8), h as f32, 400.0, |_| v0);
    let settings = PbmpmSettings::default();
    assert_eq!(settings.solver, PbSolver::Newton, "the default solve");
    let options = SolverOptions { integrator: Integrator::Pbmpm(settings), ..Default::default() };
    let solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
    let frames = [(8u32, 1.0 / 240.0), (6u32, 1.0 / 400.0)];
    for (n, dt) in frames {
        solver.step_pbmpm(&gpu, n, dt);
    }
    let after = solver.read_particles(&gpu).expect("particles");
    let t: f64 = frames.iter().map(|&(n, dt)| n as f64 * dt).sum();
    let fall = 0.5 * 9.81 * t * t;
    let worst = particles
        .iter()
        .zip(&after)
        .flat_map(|(p, q)| {
            (0..3).map(move |a| {
                let ga = if a == 2 { -9.81 } else { 0.0 };
                let want = p.position[a] as f64 + v0[a] as f64 * t + 0.5 * ga * t * t;
                (q.position[a] as f64 - want).abs()
            })
        })
        .fold(0.0, f64::max);
    eprintln!("{t:.4} s: worst position error {worst:.2e} m against a fall of {fall:.4} m");
    // The target is 1e-3 of ½ g t²; f32 positions near 0.7 m carry 6e-8 m ulps, and the
    // constraint iterations measure 4.6e-7 m here. 2e-6 m is 1.2e-4 of the fall.
    assert!(worst < 2e-6, "position error {worst:e} m");
}

#[test]
fn a_tolerance_stops_the_iterations_where_the_twin_stops_them() {
    // The block of the first test at a tolerance of 0.05: the twin stops a step's CG iterations
    // once √(rᵀz) ≤ 0.05 √(r₀ᵀz₀), and so must the GPU, whose dispatches for the rest of a fixed
    // count then do nothing. Free fall (a prediction in balance) takes no iteration at all.
    let gpu = common::gpu();
    let (params, particles) = thrown_block();
    let settings = PbmpmSettings { solver: PbSolver::Newton, tolerance: 0.05, ..PbmpmSettings::default() };
    let mut twin = PbmpmCpu::new(params, settings, &particles).expect("twin");
    let (steps, dt) = (60u32, 1.0 / 240.0);
    let (mut twin_iterations, mut twin_residual) = (0u32, 0.0f64);
    for _ in 0..steps {
        twin.step(dt);
        let solve = twin.last_solve.expect("a Newton step");
        twin_iterations += solve.iterations;
        twin_residual = twin_residual.max(solve.mass_residual);
    }
    let options = SolverOptions { integrator: Integrator::Pbmpm(settings), ..Default::default() };
    let mut solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
    solver.set_path(&gpu, SolverPath::Sorted).expect("path");
    solver.step_pbmpm(&gpu, steps, dt);
    let stats = solver.stats(&gpu).expect("stats");
    let gpu_ps = solver.read_particles(&gpu).expect("particles");
    let worst = common::worst_distance(&gpu_ps, &twin.gpu_particles());
    eprintln!(
        "CG iterations over {steps} steps: GPU {} in {} steps, twin {twin_iterations} (at most {}); worst particle \
         distance {worst:e} m",
        stats.solve.iterations,
        stats.solve.steps,
        steps * settings.iterations
    );
    assert_eq!(stats.solve.steps, steps as u64, "steps counted");
    // It stopped early: fewer than the fixed count, and not none.
    assert!(twin_iterations > steps && twin_iterations < steps * settings.iterations / 2, "twin: {twin_iterations}");
    // f32 and f64 may cross the tolerance an iteration apart on a few steps (measured: none).
    // With pb_newton_update alone not returning once the flag is set, the GPU counted 209
    // iterations and its particles ended 7.0e-2 m from the twin's.
    let off = stats.solve.iterations.abs_diff(twin_iterations as u64);
    assert!(off <= 3, "GPU {} against the twin's {twin_iterations} iterations", stats.solve.iterations);
    assert!(worst < 2.5e-4, "GPU and twin differ by {worst:e} m");
    // The residual a step that stopped early reports is the one its last update left (kept by
    // pb_newton_reduce's round 2), as the twin's: GPU 7.642e-2 against the twin's 7.646e-2
    // measured (the tolerance bounds √(rᵀz), this is √(rᵀM⁻¹r)); 20 % as in the first test.
    // Summing whatever partial sums the last pass that ran left (the preconditioner's rᵀz), as it
    // did before, read 1.95e-2.
    eprintln!("largest relative residual GPU {:.4e}, twin {twin_residual:.4e}", stats.solve.max_residual);
    let off = (stats.solve.max_residual - twin_residual).abs() / twin_residual;
    assert!(off < 0.2, "residual GPU {} against the twin's {twin_residual}", stats.solve.max_residual);
}
