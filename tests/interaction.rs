//! The grab/repel tool, the pick pass and grid rebuilds (lavapipe, real dispatches).

mod common;

use glam::{DVec3, UVec3, Vec3};
use powder::sim::Solver;
use powder::sim::cpu::CpuSolver;
use powder::sim::interaction::{Interaction, InteractionMode};
use powder::sim::passes::MpmPass;

const H: f64 = 1.0 / 16.0;

fn block() -> Vec<powder::sim::params::GpuParticle> {
    common::block(Vec3::splat(0.375), Vec3::splat(0.625), H as f32, 400.0, |_| Vec3::ZERO)
}

fn weightless() -> powder::sim::params::SolverParams {
    let mut params = common::params(16, H, 5e-4);
    params.gravity = DVec3::ZERO;
    params
}

#[test]
fn grid_update_with_the_grab_tool_matches_the_cpu_twin() {
    let gpu = common::gpu();
    let params = weightless();
    let particles = block();
    let tool = Interaction {
        mode: InteractionMode::Grab,
        center: Vec3::splat(0.5),
        radius: 0.15,
        velocity: Vec3::new(2.0, 0.0, 1.0),
        repel_speed: 0.0,
        rate: 400.0,
    };
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.set_interaction(&gpu, tool);
    for pass in [MpmPass::GridClear, MpmPass::P2g, MpmPass::GridUpdate] {
        solver.run_pass(&gpu, pass);
    }
    let gv = solver.read_grid_velocity(&gpu).expect("grid");
    let mut cpu = CpuSolver::new(params, &particles);
    cpu.interaction = tool;
    cpu.grid_clear();
    cpu.p2g();
    cpu.grid_update();
    // At rest with no gravity the node velocity is the tool's alone: target · blend, blend ≤ 1 −
    // exp(−400 · 5e-4) = 0.18. f32 evaluation of the falloff and exp: well under 1e-5 m/s.
    let mut touched = 0;
    for (g, c) in gv.iter().zip(&cpu.grid.velocity) {
        let err = ((g[0] as f64 - c.x).abs()).max((g[1] as f64 - c.y).abs()).max((g[2] as f64 - c.z).abs());
        assert!(err < 1e-5, "node velocity {g:?} vs {c}");
        touched += (c.x > 1e-3) as usize;
    }
    assert!(touched > 20, "the tool reached only {touched} nodes");
}

#[test]
fn grabbing_drags_the_snow_and_repelling_pushes_it_apart() {
    let gpu = common::gpu();
    let params = weightless();
    let particles = block();
    let n = particles.len() as f64;
    let mean = |ps: &[powder::sim::params::GpuParticle], f: &dyn Fn(&powder::sim::params::GpuParticle) -> f64| {
        ps.iter().map(f).sum::<f64>() / n
    };

    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    let grab = Interaction {
        mode: InteractionMode::Grab,
        center: Vec3::splat(0.5),
        radius: 0.2,
        velocity: Vec3::new(1.0, 0.0, 0.0),
        repel_speed: 0.0,
        rate: 200.0,
    };
    solver.set_interaction(&gpu, grab);
    solver.step(&gpu, 100);
    let out = solver.read_particles(&gpu).expect("particles");
    // The grabbed core moves at up to 1 m/s and the elastic snow drags the rest along: the block's
    // mean velocity is well along +x and its other components stay ~0 by symmetry.
    let vx = mean(&out, &|p| p.velocity[0] as f64);
    let vyz = mean(&out, &|p| (p.velocity[1] as f64).abs() + (p.velocity[2] as f64).abs());
    assert!((0.2..=1.0).contains(&vx), "mean vx {vx}");
    assert!(vyz < 0.1 * vx, "sideways {vyz}");

    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    let repel = Interaction { mode: InteractionMode::Repel, repel_speed: 1.0, ..grab };
    solver.set_interaction(&gpu, repel);
    solver.step(&gpu, 100);
    let out = solver.read_particles(&gpu).expect("particles");
    let radial = mean(&out, &|p| {
        let d = Vec3::from(p.position) - Vec3::splat(0.5);
        Vec3::from(p.velocity).dot(d.normalize_or_zero()) as f64
    });
    let drift = mean(&out, &|p| p.velocity[0] as f64).abs();
    assert!(radial > 0.05, "mean outward speed {radial}");
    assert!(drift < 0.01, "repelling must not move the block as a whole: {drift}");
}

#[test]
fn pick_finds_the_front_face_of_the_snow() {
    let gpu = common::gpu();
    let particles = block();
    let solver = Solver::new(&gpu, weightless(), &particles).expect("solver");
    // A ray along +x through the block's centre line. The nearest particle centre within the pick
    // radius lies in the first lattice layer, x = 0.375 + s/2 with s = h/2: 0.390625 − 0.1 from
    // the origin at x = 0.1.
    let hit = solver.pick(&gpu, Vec3::new(0.1, 0.5, 0.5), Vec3::X, H as f32 / 2.0).expect("pick");
    let expected = 0.375 + H as f32 / 4.0 - 0.1;
    let t = hit.expect("the ray hits the block");
    assert!((t - expected).abs() < 1e-5, "hit at {t}, expected {expected}");
    // The host agrees: brute force over the particles.
    let brute = particles
        .iter()
        .filter_map(|p| {
            let r = Vec3::from(p.position) - Vec3::new(0.1, 0.5, 0.5);
            let along = r.x;
            (along > 0.0 && r.length_squared() - along * along <= (H as f32 / 2.0).powi(2)).then_some(along)
        })
        .fold(f32::INFINITY, f32::min);
    assert_eq!(t, brute);
    let miss = solver.pick(&gpu, Vec3::new(0.1, 0.5, 0.9), Vec3::X, H as f32 / 2.0).expect("pick");
    assert_eq!(miss, None, "a ray above the block hits nothing");
}

#[test]
fn rebuilding_the_grid_keeps_the_particles_and_a_refused_grid_keeps_the_old_one() {
    let gpu = common::gpu();
    let params = common::params(16, H, 5e-4);
    let particles = block();
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.step(&gpu, 10);
    let before = solver.read_particles(&gpu).expect("particles");
    let mut finer = common::params(32, H / 2.0, 5e-4);
    finer.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(400.0, H / 2.0, 50.0);
    solver.rebuild_grid(&gpu, finer).expect("a 32³ grid fits");
    assert_eq!(solver.params().grid.cells, UVec3::splat(32));
    assert_eq!(solver.read_particles(&gpu).expect("particles"), before, "particles unchanged");
    solver.step(&gpu, 10);
    assert!(solver.read_particles(&gpu).expect("particles").iter().all(common::particle_is_finite));

    let mut huge = finer;
    huge.grid.cells = UVec3::splat(2000);
    let err = solver.rebuild_grid(&gpu, huge).expect_err("2000³ cells cannot fit");
    assert!(err.to_string().contains("at most"), "{err}");
    assert_eq!(solver.params().grid.cells, UVec3::splat(32), "the old grid stays");
    solver.step(&gpu, 5);
    assert!(solver.read_particles(&gpu).expect("particles").iter().all(common::particle_is_finite));
}
