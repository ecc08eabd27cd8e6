//! The GPU passes against the f64 CPU twin (`src/sim/cpu/`): each pass alone from the same input,
//! then 20 full substeps of a deformed, moving, spinning block hitting the floor (lavapipe).
//!
//! `U` below is f32's unit roundoff 2⁻²⁴ ≈ 6·10⁻⁸: one correctly rounded f32 operation is off by at
//! most U relative. The twin runs in f64 (error ~10⁻¹⁶), so every difference is the GPU's f32 and
//! fixed-point rounding.

mod common;

use glam::Vec3;
use nalgebra::Vector3;
use powder::sim::Solver;
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::p2g::kirchhoff_stress;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const U: f64 = 1.0 / (1u64 << 24) as f64;
const H: f64 = 1.0 / 16.0;

/// 16³ cells of 1/16 m, dt = 5e-4 s (0.4× the stable step of reference snow at these speeds), walls
/// with friction 0.3 so the friction branch of the grid update runs too.
fn scene_params() -> SolverParams {
    let mut p = common::params(16, H, 5e-4);
    p.boundary.friction = 0.3;
    p
}

/// A 0.25 m block of 512 particles in the corner x = 0, z = 0 (both walls inside its stencils),
/// moving at (−0.5, 0.2, −1) m/s and spinning at 4 rad/s about y, with C = [ω]× plus ±1/s noise,
/// F = I plus ±0.03 noise (past θc = 0.025 and θs = 0.0075, so plasticity acts) and Jp in
/// [0.9, 1.1]. Positions are the h/2 lattice (multiples of 2⁻⁶ m) moved by a multiple of 2⁻¹² m in
/// ±h/4: random stencil fractions, yet `(x − origin)/h` is exact in f32, so the weights are the only
/// rounded part of the stencil.
fn deformed_block(seed: u64) -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(seed);
    let center = Vec3::new(0.125, 0.375, 0.125);
    let omega = Vec3::new(0.0, 4.0, 0.0);
    let (lo, hi) = (Vec3::new(0.0, 0.25, 0.0), Vec3::new(0.25, 0.5, 0.25));
    let mut ps = common::block(lo, hi, H as f32, 400.0, |x| Vec3::new(-0.5, 0.2, -1.0) + omega.cross(x - center));
    let spin = glam::Mat3::from_cols(
        Vec3::new(0.0, omega.z, -omega.y),
        Vec3::new(-omega.z, 0.0, omega.x),
        Vec3::new(omega.y, -omega.x, 0.0),
    );
    for p in &mut ps {
        for a in 0..3 {
            p.position[a] = (p.position[a] + rng.random_range(-60..=60) as f32 / 4096.0).max(0.0);
        }
        let mut noise = |s: f32| glam::Mat3::from_cols_array(&std::array::from_fn(|_| rng.random_range(-s..s)));
        p.affine = common::padded(spin + noise(1.0));
        p.deformation = common::padded(glam::Mat3::IDENTITY + noise(0.03));
        p.plastic_jacobian = rng.random_range(0.9..1.1);
    }
    ps
}

fn max_of<T>(items: impl Iterator<Item = T>, f: impl Fn(T) -> f64) -> f64 {
    items.map(f).fold(0.0, f64::max)
}

#[test]
fn each_pass_matches_the_cpu_twin_on_the_naive_path() {
    each_pass_matches_the_cpu_twin(SolverPath::Naive);
}

#[test]
fn each_pass_matches_the_cpu_twin_on_the_sorted_path() {
    each_pass_matches_the_cpu_twin(SolverPath::Sorted);
}

/// On the sorted path the stages run are sort → the adapter's default P2G kernel (p2g_gather on
/// lavapipe) → grid_update_blocks → g2p (see `Solver::run_pass`); the tolerances are the same
/// because the grids are the same integers.
fn each_pass_matches_the_cpu_twin(path: SolverPath) {
    let gpu = common::gpu();
    let params = scene_params();
    let particles = deformed_block(7);
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.set_path(&gpu, path).expect("path");
    let mut cpu = CpuSolver::new(params, &particles);
    let (mass_scale, momentum_scale) = common::gpu_scales(&params);
    let nodes = params.grid.node_count() as usize;

    // ---- p2g from identical particles.
    solver.run_pass(&gpu, MpmPass::GridClear);
    solver.run_pass(&gpu, MpmPass::P2g);
    common::assert_ran_on(&gpu, &solver, path);
    let (gm, gp) = common::grid_from_fixed(&params, &solver.read_grid_fixed(&gpu).expect("grid"));
    cpu.grid_clear();
    cpu.p2g();
    // Per node: contributions, and Σ w m |u|max (a bound on the momentum it receives). |u| ≤ |v| +
    // ‖A‖·|d| / m with |d| ≤ 1.5√3 h.
    let (mut count, mut abs_momentum) = (vec![0.0f64; nodes], vec![0.0f64; nodes]);
    for p in &cpu.particles {
        let tau = kirchhoff_stress(&params.material, &p.deformation, p.plastic_jacobian, p.damage);
        let a = -params.dt * p.volume * 4.0 / (H * H) * tau + p.mass * p.affine;
        let u_max = p.velocity.norm() + a.norm() * 1.5 * 3f64.sqrt() * H / p.mass;
        for (n, w, _) in common::stencil(&params, p.position) {
            count[n] += 1.0;
            abs_momentum[n] += w * p.mass * u_max;
        }
    }
    let (mut worst_mass, mut worst_momentum) = (0.0f64, 0.0f64);
    let (mut worst_abs, mut worst_abs_p) = (0.0f64, 0.0f64);
    for n in 0..nodes {
        // Each contribution is rounded to an integer (≤ 0.5 unit) after the f32 evaluation of
        // w·m·scale: ≤ 1.5U per axis weight (f is exact, see deformed_block), 2 roundings for their
        // product, 2 more for ·m and ·scale: 8.5U. Bound: 0.5·count + 10U·M·scale.
        let mass_err = (gm[n] - cpu.grid.mass[n]).abs() * mass_scale;
        let mass_bound = 0.5 * count[n] + 10.0 * U * cpu.grid.mass[n] * mass_scale;
        assert!(mass_err <= mass_bound, "node {n}: mass off by {mass_err} units > {mass_bound}");
        worst_mass = worst_mass.max(mass_err / mass_bound);
        worst_abs = worst_abs.max(mass_err);
        // Momentum: the same 0.5 unit per contribution, plus the f32 error of u = v + A d / m. The
        // stress τ = 2μ(F − R)Fᵀ + … loses ~U/‖F − R‖ ≈ 30U relatively to the f32 SVD's rounding
        // (‖F − R‖ ≈ 0.03 here); with the other ~10 roundings 64U of Σ w m |u|max covers it.
        let p_err = (gp[n] - cpu.grid.momentum[n]).amax() * momentum_scale;
        let p_bound = 0.5 * count[n] + 64.0 * U * abs_momentum[n] * momentum_scale;
        assert!(p_err <= p_bound, "node {n}: momentum off by {p_err} units > {p_bound}");
        worst_momentum = worst_momentum.max(p_err / p_bound);
        worst_abs_p = worst_abs_p.max(p_err);
    }
    // Measured (9 seeds): ≤ 13 mass units (of 6.7e7 in a full node) and ≤ 13 momentum units. The
    // ratio to the bound reaches 0.99 at edge nodes with a single contribution, where rounding to the
    // nearest unit is the whole error (e.g. 0.494 of 0.5): the bound is attained, as it should be.
    eprintln!(
        "p2g: mass error ≤ {worst_abs} units (≤ {worst_mass:.3} of its bound), momentum ≤ {worst_abs_p:.1} units \
         ({worst_momentum:.3})"
    );

    // ---- grid_update from the GPU's own fixed-point grid (converted exactly to f64).
    cpu.grid.mass = gm.clone();
    cpu.grid.momentum = gp.clone();
    cpu.grid_update();
    solver.run_pass(&gpu, MpmPass::GridUpdate);
    let gv = solver.read_grid_velocity(&gpu).expect("grid velocity");
    let g_dt = params.dt * 9.81;
    let (mut walled, mut worst_v) = (0, 0.0f64);
    for n in 0..nodes {
        let v = Vector3::new(gv[n][0] as f64, gv[n][1] as f64, gv[n][2] as f64);
        if gm[n] == 0.0 {
            assert_eq!(gv[n], [0.0; 4], "empty node {n}");
            continue;
        }
        let free = gp[n] / gm[n] + Vector3::new(0.0, 0.0, -g_dt);
        walled += ((free - cpu.grid.velocity[n]).norm() > 1e-3) as usize;
        // P/M + g dt costs ~5 roundings (i32→f32 twice, two divisions, the add); the walls and
        // friction are Lipschitz with constant ≤ 1 + 2μ = 1.6 per wall, two walls at a corner:
        // 16U of |P/M| + g dt covers it with margin (measured ≤ 4U).
        let scale = (gp[n] / gm[n]).norm() + g_dt;
        let err = (v - cpu.grid.velocity[n]).norm();
        assert!(err <= 16.0 * U * scale, "node {n}: v {v} vs {}", cpu.grid.velocity[n]);
        worst_v = worst_v.max(err / (U * scale));
        // The mass is f32(fixed) / f32(scale): two roundings.
        assert!((gv[n][3] as f64 - gm[n]).abs() <= 2.0 * U * gm[n], "node {n}: mass {}", gv[n][3]);
    }
    eprintln!("grid_update: worst velocity error {worst_v:.2} U of |P/M| + g dt; {walled} nodes walled");
    assert!(walled > 50, "the floor and the x wall must act on many nodes, got {walled}");

    // ---- g2p from the GPU's grid velocities (f32 widened exactly).
    for (cv, v) in cpu.grid.velocity.iter_mut().zip(&gv) {
        *cv = Vector3::new(v[0] as f64, v[1] as f64, v[2] as f64);
    }
    cpu.g2p();
    solver.run_pass(&gpu, MpmPass::G2p);
    let out = solver.read_particles(&gpu).expect("particles");
    let v_grid = max_of(cpu.grid.velocity.iter(), |v| v.norm());
    let x_max = max_of(cpu.particles.iter(), |p| p.position.amax());
    // Measured worst over 9 seeds, in units of the tolerance: v 0.10, C 0.012, F 0.44, Jp 0.52,
    // x 0.47. The tolerances are worst-case rounding counts, not fitted to the measurement:
    // v' = Σ of 27 products w·vi: ≤ 30 roundings of at most Σ w |vi| ≤ max |vi|.
    let tol_v = 32.0 * U * v_grid;
    // C' = (4/h²) Σ w vi dᵀ with |d| ≤ 1.5h: the same 32U of (4/h²)·1.5h·max|vi| (a random walk of
    // the 27 roundings stays ~100× below this worst case, hence the measured 0.012).
    let tol_c = 32.0 * U * 6.0 / H * v_grid;
    // F' = (I + dt C')F (3 roundings) then U Σc Vᵀ from the f32 SVD (reconstruction ≲ 10U, see
    // tests/svd_gpu.rs): 32U.
    let tol_f = 32.0 * U;
    // Jp · |Π σ / Π σc|: three σ from the f32 SVD (≲ 4U each near 1) and ~5 roundings: 32U.
    let tol_jp = 32.0 * U;
    // x + dt v': one rounding of x plus dt times the velocity error.
    let tol_x = U * x_max + params.dt * tol_v;
    let (mut plastic, mut worst) = (0, [0.0f64; 5]);
    for (i, (g, c)) in out.iter().zip(&cpu.particles).enumerate() {
        let ev = (common::vec3d(g.velocity) - c.velocity).amax();
        let ec = (common::mat3d(&g.affine) - c.affine).amax();
        let ef = (common::mat3d(&g.deformation) - c.deformation).amax();
        let ej = (g.plastic_jacobian as f64 - c.plastic_jacobian).abs() / c.plastic_jacobian;
        let ex = (common::vec3d(g.position) - c.position).amax();
        assert!(ev <= tol_v && ec <= tol_c, "particle {i}: v error {ev:e} (tol {tol_v:e}), C {ec:e} ({tol_c:e})");
        assert!(ef <= tol_f && ej <= tol_jp, "particle {i}: F error {ef:e} (tol {tol_f:e}), Jp {ej:e}");
        assert!(ex <= tol_x, "particle {i}: x error {ex:e} (tol {tol_x:e})");
        for (w, e) in worst.iter_mut().zip([ev / tol_v, ec / tol_c, ef / tol_f, ej / tol_jp, ex / tol_x]) {
            *w = w.max(e);
        }
        plastic += ((c.plastic_jacobian - particles[i].plastic_jacobian as f64).abs() > 1e-4) as usize;
    }
    eprintln!("g2p: worst error / tolerance for v, C, F, Jp, x: {worst:.3?}");
    assert!(plastic > out.len() / 2, "plasticity should act on most particles, did on {plastic}");
}

#[test]
fn twenty_substeps_track_the_cpu_twin_on_the_naive_path() {
    twenty_substeps_track_the_cpu_twin(SolverPath::Naive);
}

#[test]
fn twenty_substeps_track_the_cpu_twin_on_the_sorted_path() {
    twenty_substeps_track_the_cpu_twin(SolverPath::Sorted);
}

#[test]
fn twenty_substeps_track_the_cpu_twin_on_the_fused_path() {
    twenty_substeps_track_the_cpu_twin(SolverPath::Fused);
}

fn twenty_substeps_track_the_cpu_twin(path: SolverPath) {
    let gpu = common::gpu();
    let params = scene_params();
    let particles = deformed_block(11);
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.set_path(&gpu, path).expect("path");
    let mut cpu = CpuSolver::new(params, &particles);
    let steps = 20;
    solver.step(&gpu, steps);
    common::assert_ran_on(&gpu, &solver, path);
    for _ in 0..steps {
        cpu.substep();
    }
    let out = solver.read_particles(&gpu).expect("particles");
    // The scene does what it should: the floor stopped the bottom layer's fall (its mean vz went from
    // −1 m/s to above −0.2), and plasticity changed Jp of most particles.
    let bottom: Vec<_> = cpu.particles.iter().filter(|p| p.position.z < 0.5 * H).collect();
    let bottom_vz = bottom.iter().map(|p| p.velocity.z).sum::<f64>() / bottom.len() as f64;
    assert!(!bottom.is_empty() && bottom_vz > -0.2, "floor contact: bottom mean vz {bottom_vz}");
    let yielded = cpu.particles.iter().zip(&particles);
    let yielded = yielded.filter(|(c, p)| (c.plastic_jacobian - p.plastic_jacobian as f64).abs() > 1e-4).count();
    assert!(yielded > particles.len() / 2, "only {yielded} particles yielded");

    assert_tracks_the_twin(&out, &cpu, steps, steps as f64 * params.dt);
}

#[test]
fn an_auto_frame_takes_the_twins_substeps_on_the_naive_path() {
    an_auto_frame_takes_the_twins_substeps(SolverPath::Naive);
}

#[test]
fn an_auto_frame_takes_the_twins_substeps_on_the_sorted_path() {
    an_auto_frame_takes_the_twins_substeps(SolverPath::Sorted);
}

#[test]
fn an_auto_frame_takes_the_twins_substeps_on_the_fused_path() {
    // An auto frame runs the fused path's substeps unfused (Solver::step_frame says why).
    an_auto_frame_takes_the_twins_substeps(SolverPath::Fused);
}

/// One frame of 1/150 s with each substep's dt chosen from the state it steps, on the GPU (the
/// substep clock, in f32) and by the twin (f64): the same number of substeps, each within the
/// stable dt, and the same particles within the tolerances of a fixed dt.
fn an_auto_frame_takes_the_twins_substeps(path: SolverPath) {
    let gpu = common::gpu();
    let params = scene_params();
    let particles = deformed_block(11);
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.set_path(&gpu, path).expect("path");
    let mut cpu = CpuSolver::new(params, &particles);
    let span = 1.0 / 150.0;
    let step = FrameStep::Auto { max_substeps: 1000 };
    let gpu_frame = solver.step_frame(&gpu, span, step, None).expect("frame");
    common::assert_ran_on(&gpu, &solver, path);
    let cpu_frame = cpu.step_span(span, step);
    eprintln!("GPU {gpu_frame:?}\ntwin {cpu_frame:?}");
    // The stable dt starts near 7e-4 s (speeds to 1.5 m/s, hardening up to e at Jp = 0.9), so the
    // frame takes about 10 substeps, and the state changes between them (the floor stops the block).
    assert!(cpu_frame.substeps >= 8, "{} substeps", cpu_frame.substeps);
    assert_eq!(gpu_frame.substeps, cpu_frame.substeps);
    // The GPU sums the frame's time in f32 (U = 6e-8 relative per substep) and ends within
    // TIME_TOLERANCE of the span.
    assert!((gpu_frame.time - span).abs() <= span * 1e-5, "GPU covered {} s of {span}", gpu_frame.time);
    assert!((cpu_frame.time - span).abs() <= span * 1e-12, "twin covered {} s of {span}", cpu_frame.time);
    // Every substep within the stable dt of the state it stepped; exactly at most 1 on the GPU too
    // (dt = min(remaining / n, stable) in f32, and x ≤ y gives x / y ≤ 1 under rounding).
    assert!(gpu_frame.max_ratio <= 1.0 && cpu_frame.max_ratio <= 1.0);
    // Their stable dts agree to the f32 evaluation of the formula on states that agree to the
    // tolerances below (1e-4 m/s of 1.5 m/s, Jp to 2e-5): 1e-4 relative.
    let stable_error = (gpu_frame.min_stable_dt / cpu_frame.min_stable_dt - 1.0).abs();
    assert!(stable_error <= 1e-4, "smallest stable dt differs by {stable_error:e} (relative)");
    let out = solver.read_particles(&gpu).expect("particles");
    assert_tracks_the_twin(&out, &cpu, cpu_frame.substeps, span);
}

/// Asserts that the GPU's particles `out` are the twin's after `steps` substeps spanning `span`
/// seconds, within tolerances that grow with the substeps.
fn assert_tracks_the_twin(out: &[GpuParticle], cpu: &CpuSolver, steps: u32, span: f64) {
    let n = steps as f64;
    // Tolerances: `steps` × a per-substep error; the errors grow about linearly (1.5e-6 m/s of velocity
    // after one substep, 3e-5 after 20). Measured worst over 9 seeds after 20 substeps: v 3.5e-5 m/s,
    // F 4.3e-6, Jp 8.3e-6 (relative), x 2.7e-7 m.
    // Velocity: fixed-point rounding dominates, ≤ 0.5 unit × 216 contributions over a full node's
    // M·momentum_scale (1.7e7 units per m/s) = 6.4e-6 m/s per substep (1.3e-4 after 20).
    let tol_v = n * 6.4e-6;
    // F: ≲ 1e-6 per substep (the single-pass g2p error, ≤ 0.44 × 32U = 8.4e-7, rounded up): 2e-5 after 20.
    let tol_f = n * 1e-6;
    // Jp: each substep's projection adds up to its single-pass 17U ≈ 1e-6 relative error, and the
    // F error above feeds into the next one: 2e-6 per substep, 4e-5 after 20.
    let tol_jp = n * 2e-6;
    // x: per substep one f32 rounding (≤ 3e-8 m below 0.5 m) plus dt × velocity error: ≤ 2e-6 m.
    let tol_x = n * 3e-8 + span * tol_v;
    let (mut ev, mut ef, mut ej, mut ex) = (0f64, 0f64, 0f64, 0f64);
    for (g, c) in out.iter().zip(&cpu.particles) {
        ev = ev.max((common::vec3d(g.velocity) - c.velocity).amax());
        ef = ef.max((common::mat3d(&g.deformation) - c.deformation).amax());
        ej = ej.max((g.plastic_jacobian as f64 - c.plastic_jacobian).abs() / c.plastic_jacobian);
        ex = ex.max((common::vec3d(g.position) - c.position).amax());
    }
    eprintln!("after {steps} substeps: v {ev:.2e} m/s, F {ef:.2e}, Jp {ej:.2e} (relative), x {ex:.2e} m");
    assert!(ev <= tol_v, "velocity differs by {ev:e} m/s > {tol_v:e}");
    assert!(ef <= tol_f, "F differs by {ef:e} > {tol_f:e}");
    assert!(ej <= tol_jp, "Jp differs by {ej:e} (relative) > {tol_jp:e}");
    assert!(ex <= tol_x, "position differs by {ex:e} m > {tol_x:e}");
}

/// The particles' stored stress (`particle_stress`) as f64 matrices, in stored order: the scene's
/// order while the solver has not reordered them (the test below runs the naive path).
fn stored_stress(gpu: &powder::gpu::Gpu, solver: &Solver) -> Vec<nalgebra::Matrix3<f64>> {
    // xx, yy, zz, xy, xz, yz, 0, 0 per particle (store_stress in types.wgsl).
    let bytes = gpu.read_buffer(&solver.pages()[0].particles.stress).expect("stress readback");
    let m: Vec<[f32; 8]> = bytemuck::pod_collect_to_vec(&bytes);
    m[..solver.particle_count() as usize]
        .iter()
        .map(|t| {
            let [xx, yy, zz, xy, xz, yz, _, _] = t.map(f64::from);
            nalgebra::Matrix3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz)
        })
        .collect()
}

#[test]
fn the_stored_stress_is_the_twins_stress_of_the_stored_f() {
    // After the stress pass (at upload) and after g2p (which keeps τ from its plasticity SVD), the
    // stored τ must be the twin's τ of the stored F and Jp. Both sides are f32 SVDs of the same F,
    // each accurate to 16 U (tests/svd_gpu.rs); τ = 2μ(F − R)Fᵀ + λ(J − 1)J·I with |F| ≈ 1 adds
    // at most a few roundings more, so per entry the difference stays below
    // 2μ·hc·64U + λ·hc·48U (hc the hardening factor, below e for Jp ≥ 0.9 here).
    let gpu = common::gpu();
    let params = scene_params();
    let m = &params.material;
    let bound = std::f64::consts::E * (2.0 * m.mu0() * 64.0 * U + m.lambda0() * 48.0 * U);
    let mut solver = Solver::new(&gpu, params, &deformed_block(7)).expect("solver");
    solver.set_path(&gpu, SolverPath::Naive).expect("path");
    for stage in ["upload", "one substep"] {
        if stage == "one substep" {
            solver.step(&gpu, 1);
        }
        let particles = solver.read_particles(&gpu).expect("particles");
        let stress = stored_stress(&gpu, &solver);
        let mut worst = 0.0f64;
        let mut largest = 0.0f64;
        // The block's F noise (±0.03) stretches some particles past θs: after the substep they have
        // cracked, and their stored τ (no tension) is compared too.
        let cracked = particles.iter().filter(|p| p.damage > 0.0).count();
        assert_eq!(cracked > 0, stage == "one substep", "{stage}: {cracked} cracked particles");
        for (p, tau) in particles.iter().zip(&stress) {
            let twin = kirchhoff_stress(m, &common::mat3d(&p.deformation), p.plastic_jacobian as f64, p.damage as f64);
            worst = worst.max((tau - twin).amax());
            largest = largest.max(twin.amax());
        }
        eprintln!("{stage}: stored τ vs twin {worst:.3e} Pa (bound {bound:.3e}, largest |τ| {largest:.3e} Pa)");
        assert!(largest > 1e3, "{stage}: the block must be stressed");
        assert!(worst <= bound, "{stage}: stored τ off by {worst} Pa > {bound} Pa");
    }
}

#[test]
fn a_material_change_reaches_the_next_p2g() {
    // P2G reads the stored stress, so a new Young's modulus must refresh it at once: the grid after
    // the change equals, bit for bit, that of a solver created with the new material.
    let gpu = common::gpu();
    let particles = deformed_block(8);
    let mut stiffer = scene_params();
    stiffer.material.youngs_modulus *= 3.0;
    let mut changed = Solver::new(&gpu, scene_params(), &particles).expect("solver");
    changed.set_params(&gpu, stiffer).expect("same grid");
    let fresh = Solver::new(&gpu, stiffer, &particles).expect("solver");
    let unchanged = Solver::new(&gpu, scene_params(), &particles).expect("solver");
    let grids: Vec<_> = [&changed, &fresh, &unchanged]
        .iter()
        .map(|s| {
            s.run_pass(&gpu, MpmPass::GridClear);
            s.run_pass(&gpu, MpmPass::P2g);
            s.read_grid_fixed(&gpu).expect("grid")
        })
        .collect();
    assert!(grids[0] == grids[1], "the changed solver's P2G used a stale stress");
    assert!(grids[0] != grids[2], "tripling E must change the momentum P2G scatters");
}
