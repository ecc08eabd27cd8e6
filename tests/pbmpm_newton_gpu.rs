//! PB-MPM's Newton–PCG step on the GPU (lavapipe) against the twin's (`newton::step` with the same
//! fixed iteration count and no tolerance), on each path and in pages.

mod common;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::integrator::Integrator;
use powder::sim::params::BoundaryKind;
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::pbmpm::cpu::newton::{self, NewtonSettings};
use powder::sim::pbmpm::{PbSolver, PbmpmSettings};
use powder::sim::solver::SolverOptions;
use powder::sim::sort::bins::SolverPath;

#[test]
fn a_block_settles_on_the_floor_as_the_twins_newton_step_settles_it() {
    // A block of reference snow (E = 1.4e5 Pa, hardening on) dropped onto the floor inside slip
    // walls, 60 steps of 1/240 s: it falls about 6 cm onto the floor, is compressed and pushed
    // back. At h = 1/16 m the P wave crosses 1.2 cells a step. The GPU runs the same 5 CG
    // iterations in f32, the twin in f64.
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let mut params = common::params(16, h, 1e-3);
    params.boundary.kind = BoundaryKind::Slip;
    let particles =
        common::block(Vec3::new(0.3, 0.3, 0.12), Vec3::new(0.55, 0.55, 0.32), h as f32, 400.0, |_| Vec3::ZERO);
    let settings = PbmpmSettings { solver: PbSolver::Newton, ..PbmpmSettings::default() };
    let mut twin = PbmpmCpu::new(params, settings, &particles).expect("twin");
    let cfg = NewtonSettings { iterations: settings.iterations, tolerance: 0.0, ..NewtonSettings::default() };
    let (steps, dt) = (60, 1.0 / 240.0);
    for k in 0..steps {
        twin.collider_blend = (k + 1) as f64 / steps as f64;
        newton::step(&mut twin, dt, &cfg);
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
        let gpu_ps = solver.read_particles(&gpu).expect("particles");
        let worst = gpu_ps
            .iter()
            .zip(&twin_ps)
            .map(|(a, b)| (Vec3::from(a.position) - Vec3::from(b.position)).length() as f64)
            .fold(0.0, f64::max);
        eprintln!("{name}: worst particle distance GPU vs twin {worst:e} m; the twin's mean fall {fell:e} m");
        // Measured 9.0e-5 m on every configuration (1.2e-3 of the fall): the force sums are kept 64
        // times coarser than momentum here, so that an impact's stresses fit their fixed-point
        // format (force_scale in newton.wgsl; with the momentum's own scale this measured
        // 1.4e-6 m), plus f32 rounding of the CG's sums and of an SVD per particle. Mutations on
        // the GPU alone: a level ratio of half (B = 14) measures 3.3e-4 m, two levels instead of
        // four 5.2e-4 m.
        assert!(worst < 2e-4, "{name}: GPU and twin differ by {worst:e} m");
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
