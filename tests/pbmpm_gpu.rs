//! PB-MPM's constraint iterations on the GPU (lavapipe) against their CPU twin
//! (`src/sim/pbmpm/cpu/`) and against closed forms: free fall exact to the discrete integrator,
//! momentum of colliding snow conserved, a block settling on the floor as the twin settles it, and
//! stiffness that does not limit the step. (Newton–PCG, the default solve: tests/pbmpm_newton_gpu.rs,
//! which also runs the colliding blocks.)

mod common;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::grid_pool::GridMode;
use powder::sim::integrator::Integrator;
use powder::sim::params::{BoundaryKind, GpuParticle, SolverParams};
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::pbmpm::{PbSolver, PbmpmSettings};
use powder::sim::solver::SolverOptions;
use powder::sim::sort::bins::SolverPath;

/// A solver stepping with PB-MPM's constraint iterations at the default settings otherwise (the
/// Newton–PCG solve's GPU tests are tests/pbmpm_newton_gpu.rs).
fn pbmpm_solver(gpu: &powder::gpu::Gpu, params: SolverParams, particles: &[GpuParticle]) -> Solver {
    let options = SolverOptions { integrator: Integrator::Pbmpm(constraints()), ..Default::default() };
    Solver::with_options(gpu, params, particles, options).expect("solver")
}

/// The constraint iterations as the solve, 5 of them (the count these tests' bounds were measured
/// at), the default settings otherwise.
fn constraints() -> PbmpmSettings {
    PbmpmSettings { solver: PbSolver::Constraints, iterations: 5, ..PbmpmSettings::default() }
}

#[test]
fn free_fall_is_exact() {
    // A block in the air, far from every wall: the grid sees a uniform motion, which the
    // projection leaves alone (F stays I). Two frames of different step lengths, as the motion
    // limit plans them: the leapfrog prediction (pb_begin, with the kick pb_clock takes from the
    // previous step's length, carried from one frame to the next by the solver) is exact for a
    // constant acceleration, so after a time t each particle is at x0 + v0 t + ½ g t² and moves at
    // the last step's mean velocity v0 + g (t − dt/2) (src/sim/pbmpm/cpu/integrate.rs).
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let params = common::params(16, h, 1e-3);
    let v0 = Vec3::new(0.3, -0.2, 0.5);
    let particles = common::block(Vec3::new(0.4, 0.4, 0.6), Vec3::new(0.6, 0.6, 0.8), h as f32, 400.0, |_| v0);
    let solver = pbmpm_solver(&gpu, params, &particles);
    let frames = [(8u32, 1.0 / 240.0), (6u32, 1.0 / 400.0)];
    for (n, dt) in frames {
        solver.step_pbmpm(&gpu, n, dt);
    }
    let after = solver.read_particles(&gpu).expect("particles");
    let t: f64 = frames.iter().map(|&(n, dt)| n as f64 * dt).sum();
    let last = frames[1].1;
    let g = -9.81;
    let mut worst = (0.0f64, 0.0f64);
    for (p, q) in particles.iter().zip(&after) {
        for a in 0..3 {
            let ga = if a == 2 { g } else { 0.0 };
            let want_v = v0[a] as f64 + ga * (t - 0.5 * last);
            let want_x = p.position[a] as f64 + v0[a] as f64 * t + 0.5 * ga * t * t;
            worst.0 = worst.0.max((q.position[a] as f64 - want_x).abs());
            worst.1 = worst.1.max((q.velocity[a] as f64 - want_v).abs());
        }
    }
    eprintln!("{:.4} s: position error {:.2e} m, velocity error {:.2e} m/s", t, worst.0, worst.1);
    // f32: positions near 0.7 m carry ulps of 6e-8 m, and 14 steps of 5 iterations each add a
    // gathered velocity whose weights sum to one only to f32 rounding (a few 1e-7 relative of
    // ~1 m/s, times dt; measured on lavapipe: 4.6e-7 m and 1.7e-5 m/s). 2e-6 m and 2e-5 m/s are
    // above that and far below what a first-order gravity term leaves (g dt per step on the
    // velocity: 8.7e-4 m and 1.2e-2 m/s after these 14 steps, measured).
    assert!(worst.0 < 2e-6, "position error {:e} m", worst.0);
    assert!(worst.1 < 2e-5, "velocity error {:e} m/s", worst.1);
}

#[test]
fn colliding_snow_keeps_its_momentum() {
    // Two blocks thrown at each other, 2 cm off-centre, in zero gravity, walls never reached. P2G sums the momentum
    // in fixed point (exact), the projection moves only the affine part (no momentum), and G2P
    // gathers in f32: the total may drift by f32 rounding of each particle's velocity.
    let gpu = common::gpu();
    let (params, particles, h) = common::colliding_blocks();
    let solver = pbmpm_solver(&gpu, params, &particles);
    solver.step_pbmpm(&gpu, 24, 1.0 / 240.0);
    let after_ps = solver.read_particles(&gpu).expect("particles");
    let (drift, spin_drift) = common::collision_drifts(&particles, &after_ps, h);
    eprintln!("momentum drift {drift:e} of Σ m|v|");
    // f32 velocities (ulp 2.4e-7 at 2 m/s) summed over 3,000 particles with random signs: about
    // 1e-7 of Σ m|v| per step. 1e-5 over 24 steps allows that and catches any systematic loss
    // (a scatter that dropped a node's share would lose percents).
    assert!(drift < 1e-5, "momentum drift {drift:e}");
    // Angular momentum too (APIC spin included), about the middle of the box: the blocks meet
    // 2 cm off-centre, and the constraint's impulse is the symmetric Kirchhoff stress, free of
    // torque (src/sim/pbmpm/cpu/constraint.rs). Relative to Σ m |x − c| |v|.
    eprintln!("angular momentum drift {spin_drift:e} of Σ m|x − c||v|");
    // Measured on lavapipe: 5.4e-7, the f32 rounding the linear momentum shows too; with the
    // impulse P(F') F_Eᵀ (not symmetric) 8.4e-3. 1e-5, as for the linear momentum.
    assert!(spin_drift < 1e-5, "angular momentum drift {spin_drift:e}");
    // They met: both blocks slowed.
    let mean_vx = |ps: &[GpuParticle]| ps.iter().map(|p| p.velocity[0] as f64).sum::<f64>() / ps.len() as f64;
    let half = particles.len() / 2;
    assert!(mean_vx(&after_ps[..half]) < 1.9, "left block still at {}", mean_vx(&after_ps[..half]));
}

#[test]
fn a_block_settles_on_the_floor_as_the_twin_settles_it() {
    // A block dropped onto the floor inside slip walls, 60 steps of 1/240 s: the floor's nodes
    // (z ≤ 0) reach it after it has fallen about 6 cm, about half way, and for the rest it is
    // compressed and pushed back by the constraint. The GPU against the f64 twin, particle by
    // particle, on the naive path (pb_iterate, global atomics) and the sorted one (a sort per step,
    // pb_iterate_tiled through workgroup-memory tiles), on dense and sparse grids and in pages.
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let mut params = common::params(16, h, 1e-3);
    params.boundary.kind = BoundaryKind::Slip;
    let particles =
        common::block(Vec3::new(0.3, 0.3, 0.12), Vec3::new(0.55, 0.55, 0.32), h as f32, 400.0, |_| Vec3::ZERO);
    let mut twin = PbmpmCpu::new(params, constraints(), &particles).expect("twin");
    let (steps, dt) = (60, 1.0 / 240.0);
    for k in 0..steps {
        twin.collider_blend = (k + 1) as f64 / steps as f64;
        twin.step(dt);
    }
    let twin_ps = twin.gpu_particles();
    let fell = particles.iter().zip(&twin_ps).map(|(a, b)| (a.position[2] - b.position[2]) as f64).sum::<f64>()
        / particles.len() as f64;
    assert!(fell > 0.04, "the block did not reach the floor ({fell} m)");
    // The naive and the sorted path on a dense grid, the sorted one on a sparse grid (a pool of
    // the touched blocks) and with the particles split into three pages that share the grid.
    let configs = [
        ("naive", SolverPath::Naive, GridMode::Dense, None),
        ("sorted", SolverPath::Sorted, GridMode::Dense, None),
        ("sorted, sparse grid", SolverPath::Sorted, GridMode::Sparse, None),
        ("sorted, 3 pages", SolverPath::Sorted, GridMode::Dense, Some(particles.len().div_ceil(3) as u32)),
    ];
    for (name, path, grid_mode, page_capacity) in configs {
        let integrator = Integrator::Pbmpm(constraints());
        let options = SolverOptions { integrator, grid_mode, page_capacity, ..Default::default() };
        let mut solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
        solver.set_path(&gpu, path).expect("path");
        assert_eq!(solver.grid_storage().is_sparse(), grid_mode == GridMode::Sparse, "{name}");
        assert_eq!(solver.particle_pages().len(), if page_capacity.is_some() { 3 } else { 1 }, "{name}");
        solver.step_pbmpm(&gpu, steps, dt);
        let gpu_ps = solver.read_particles(&gpu).expect("particles");
        let mut worst = 0.0f64;
        for (a, b) in gpu_ps.iter().zip(&twin_ps) {
            let d = (Vec3::from(a.position) - Vec3::from(b.position)).length() as f64;
            worst = worst.max(d);
        }
        eprintln!("{name}: worst particle distance GPU vs twin {worst:e} m; the twin's mean fall {fell:e} m");
        // Both solve the same iterations, the GPU in f32: an SVD per particle per iteration rounds
        // at ~1e-6 relative, amplified by the contact with the floor. 1e-4 m (1/600 of a cell) is
        // far below the centimetres the block falls, so a wrong term in either would show.
        assert!(worst < 1e-4, "{name}: GPU and twin differ by {worst:e} m");
    }
}

#[test]
fn stiffness_does_not_limit_the_step() {
    // E from 1e4 to 1e8 Pa at the same 1/240 s step, 0.25 s of a block falling onto the floor: no
    // non-finite state, no particle outside the domain. Explicit MPM at 1e8 Pa would need a dt of
    // about 3e-6 s on this grid.
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    for youngs in [1e4, 1e6, 1e8] {
        let mut params = common::params(16, h, 1e-3);
        params.material.youngs_modulus = youngs;
        let particles =
            common::block(Vec3::new(0.3, 0.3, 0.2), Vec3::new(0.5, 0.5, 0.4), h as f32, 400.0, |_| Vec3::ZERO);
        let solver = pbmpm_solver(&gpu, params, &particles);
        solver.step_pbmpm(&gpu, 60, 1.0 / 240.0);
        let after = solver.read_particles(&gpu).expect("particles");
        let stats = solver.stats(&gpu).expect("stats");
        assert_eq!(stats.nonfinite_count, 0, "E = {youngs}: non-finite particles");
        assert!(after.iter().all(common::particle_is_finite), "E = {youngs}: non-finite state");
        assert!(after.iter().all(|p| common::inside_domain(&params, p)), "E = {youngs}: a particle left");
        let top = after.iter().map(|p| p.position[2]).fold(f32::MIN, f32::max);
        assert!(top < 0.4, "E = {youngs}: did not fall (top {top})");
    }
}

#[test]
fn a_frame_reads_the_stats_back_once() {
    // The frame loop of a bake (`runner::bake`) measures the stable dt once a frame
    // (`Solver::stable_dt`, a stats readback), then steps the frame. A PB-MPM frame plans its steps
    // from the fastest particle, which that readback has just measured on the same state: reading
    // the stats again would be a second wait for the GPU for the same number. Counted exactly.
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let params = common::params(16, h, 1e-3);
    let particles = common::block(Vec3::new(0.3, 0.3, 0.3), Vec3::new(0.5, 0.5, 0.5), h as f32, 400.0, |_| {
        Vec3::new(0.0, 0.0, -1.0)
    });
    let mut solver = pbmpm_solver(&gpu, params, &particles);
    for frame in 0..3 {
        let before = solver.stats_readbacks();
        solver.stable_dt(&gpu, params.cfl).expect("stats");
        solver.step_frame(&gpu, 1.0 / 24.0, FrameStep::Auto { max_substeps: 1000 }, None).expect("frame");
        assert_eq!(solver.stats_readbacks() - before, 1, "frame {frame}: stats readbacks");
    }
    // A frame stepped without a fresh measurement still reads the stats (once) to plan its steps.
    let before = solver.stats_readbacks();
    solver.step_frame(&gpu, 1.0 / 24.0, FrameStep::Auto { max_substeps: 1000 }, None).expect("frame");
    assert_eq!(solver.stats_readbacks() - before, 1, "a frame with no measurement before it");
}
