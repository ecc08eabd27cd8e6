//! The GPU passes against the f64 CPU twin (`src/sim/cpu/`): each pass alone from the same input,
//! then 20 full substeps of a deformed, moving, spinning block hitting the floor (lavapipe).

mod common;

use glam::Vec3;
use nalgebra::{Matrix3, Vector3};
use powder::sim::Solver;
use powder::sim::cpu::CpuSolver;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::shaders::MpmPass;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const H: f64 = 1.0 / 16.0;

/// 16³ cells of 1/16 m, dt = 5e-4 s (about 0.4× the stable step of reference snow at rest), walls
/// with friction 0.3 so that the friction branch of the grid update runs too.
fn scene_params() -> SolverParams {
    let mut p = common::params(16, H, 5e-4);
    p.boundary.friction = 0.3;
    p
}

/// A 0.25 m block of 512 particles in the corner x = 0, z = 0 (both walls in its stencils), moving
/// at (−0.5, 0.2, −1) m/s and spinning at 4 rad/s about y, with C = [ω]× plus noise, F = I plus
/// ±0.03 noise (past θc and θs, so plasticity acts) and Jp in [0.9, 1.1].
fn deformed_block(seed: u64) -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(seed);
    let center = Vec3::new(0.125, 0.4, 0.125);
    let omega = Vec3::new(0.0, 4.0, 0.0);
    let mut ps = common::block(Vec3::new(0.0, 0.275, 0.0), Vec3::new(0.25, 0.525, 0.25), H as f32, 400.0, |x| {
        Vec3::new(-0.5, 0.2, -1.0) + omega.cross(x - center)
    });
    let spin = glam::Mat3::from_cols(
        Vec3::new(0.0, omega.z, -omega.y),
        Vec3::new(-omega.z, 0.0, omega.x),
        Vec3::new(omega.y, -omega.x, 0.0),
    );
    for p in &mut ps {
        let mut noise = |s: f32| glam::Mat3::from_cols_array(&std::array::from_fn(|_| rng.random_range(-s..s)));
        p.affine = common::padded(spin + noise(1.0));
        p.deformation = common::padded(glam::Mat3::IDENTITY + noise(0.03));
        p.plastic_jacobian = rng.random_range(0.9..1.1);
    }
    ps
}

fn max_by<T>(items: impl Iterator<Item = T>, f: impl Fn(T) -> f64) -> f64 {
    items.map(f).fold(0.0, f64::max)
}

#[test]
fn each_pass_matches_the_cpu_twin() {
    let gpu = common::gpu();
    let params = scene_params();
    let particles = deformed_block(7);
    let solver = Solver::new(&gpu, params, &particles).expect("solver");
    let mut cpu = CpuSolver::new(params, &particles);
    let (mass_scale, momentum_scale) = common::gpu_scales(&params);

    // --- p2g from identical particles.
    solver.run_pass(&gpu, MpmPass::GridClear);
    solver.run_pass(&gpu, MpmPass::P2g);
    let fixed = solver.read_grid_fixed(&gpu).expect("grid");
    cpu.grid_clear();
    cpu.p2g();
    let (gm, gp) = common::grid_from_fixed(&params, &fixed);
    let mut worst_m: f64 = 0.0;
    let mut worst_p: f64 = 0.0;
    for n in 0..gm.len() {
        worst_m = worst_m.max((gm[n] - cpu.grid.mass[n]).abs() * mass_scale);
        worst_p = worst_p.max((gp[n] - cpu.grid.momentum[n]).amax() * momentum_scale);
    }
    let node_mass = 400.0 * H.powi(3) * mass_scale;
    let max_p = max_by(cpu.grid.momentum.iter(), |p| p.amax() * momentum_scale);
    eprintln!("p2g: mass err {worst_m} units (node {node_mass}), momentum err {worst_p} units (max {max_p})");

    // --- grid_update from the GPU's own fixed-point grid.
    cpu.grid.mass = gm.clone();
    cpu.grid.momentum = gp.clone();
    cpu.grid_update();
    solver.run_pass(&gpu, MpmPass::GridUpdate);
    let gv = solver.read_grid_velocity(&gpu).expect("velocity");
    let mut worst_v: f64 = 0.0;
    let mut worst_w: f64 = 0.0;
    let mut walls = 0;
    for n in 0..gm.len() {
        let v = Vector3::new(gv[n][0] as f64, gv[n][1] as f64, gv[n][2] as f64);
        let e = (v - cpu.grid.velocity[n]).norm() / cpu.grid.velocity[n].norm().max(1e-3);
        worst_v = worst_v.max(e);
        if gm[n] > 0.0 {
            worst_w = worst_w.max((gv[n][3] as f64 - gm[n]).abs() / gm[n]);
        }
        let _ = &mut walls;
    }
    eprintln!("grid_update: rel v err {worst_v:e}, rel mass err {worst_w:e}");

    // --- g2p from the GPU's grid velocities.
    for n in 0..gm.len() {
        cpu.grid.velocity[n] = Vector3::new(gv[n][0] as f64, gv[n][1] as f64, gv[n][2] as f64);
    }
    cpu.g2p();
    solver.run_pass(&gpu, MpmPass::G2p);
    let out = solver.read_particles(&gpu).expect("particles");
    let (mut ev, mut ec, mut ef, mut ej, mut ex) = (0f64, 0f64, 0f64, 0f64, 0f64);
    for (g, c) in out.iter().zip(&cpu.particles) {
        ev = ev.max((common::vec3d(g.velocity) - c.velocity).amax());
        ec = ec.max((common::mat3d(&g.affine) - c.affine).amax());
        ef = ef.max((common::mat3d(&g.deformation) - c.deformation).amax());
        ej = ej.max((g.plastic_jacobian as f64 - c.plastic_jacobian).abs() / c.plastic_jacobian);
        ex = ex.max((common::vec3d(g.position) - c.position).amax());
    }
    let cmax = max_by(cpu.particles.iter(), |p| p.affine.amax());
    eprintln!("g2p: v {ev:e} C {ec:e} (max {cmax}) F {ef:e} Jp {ej:e} x {ex:e}");
    let _ = Matrix3::<f64>::identity();
}

#[test]
fn twenty_substeps_track_the_cpu_twin() {
    let gpu = common::gpu();
    let params = scene_params();
    let particles = deformed_block(11);
    let solver = Solver::new(&gpu, params, &particles).expect("solver");
    let mut cpu = CpuSolver::new(params, &particles);
    for steps in [1u32, 1, 3, 5, 10] {
        solver.step(&gpu, steps);
        for _ in 0..steps {
            cpu.substep();
        }
        let out = solver.read_particles(&gpu).expect("particles");
        let (mut ev, mut ef, mut ej, mut ex) = (0f64, 0f64, 0f64, 0f64);
        for (g, c) in out.iter().zip(&cpu.particles) {
            ev = ev.max((common::vec3d(g.velocity) - c.velocity).amax());
            ef = ef.max((common::mat3d(&g.deformation) - c.deformation).amax());
            ej = ej.max((g.plastic_jacobian as f64 - c.plastic_jacobian).abs() / c.plastic_jacobian);
            ex = ex.max((common::vec3d(g.position) - c.position).amax());
        }
        let vmax = max_by(cpu.particles.iter(), |p| p.velocity.amax());
        eprintln!("+{steps}: v {ev:e} (max {vmax}) F {ef:e} Jp {ej:e} x {ex:e}");
    }
}
