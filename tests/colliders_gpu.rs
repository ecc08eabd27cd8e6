//! The collider condition of `grid_update.wgsl` against the CPU twin (`src/collider/field.rs`), on
//! lavapipe: a tilted conveyor belt (a static plane whose surface moves along itself) under a
//! falling block, with friction, and a blend between two collider frames.

mod common;

use glam::{Quat, Vec3};
use nalgebra::Vector3;
use powder::collider::field::{ColliderField, ColliderFrames};
use powder::collider::shapes::{AnalyticShape, RigidPose, analytic_sdf};
use powder::sim::Solver;
use powder::sim::cpu::CpuSolver;
use powder::sim::integrator::Integrator;
use powder::sim::params::{Boundary, BoundaryKind, GpuParticle, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::solver::SolverOptions;
use powder::sim::sort::bins::SolverPath;

const H: f64 = 1.0 / 16.0;

/// 16³ cells of 1/16 m, dt = 5e-4 s, as in tests/gpu_vs_cpu.rs.
fn scene_params() -> SolverParams {
    common::params(16, H, 5e-4)
}

/// A 0.25 m block of 512 particles above the belt, falling at 1 m/s.
fn block() -> Vec<GpuParticle> {
    let (lo, hi) = (Vec3::new(0.375, 0.375, 0.3), Vec3::new(0.625, 0.625, 0.55));
    common::block(lo, hi, H as f32, 400.0, |_| Vec3::new(0.0, 0.0, -1.0))
}

/// A floor tilted 20° about x through `(0.5, 0.5, height)`, its surface running at 0.5 m/s along
/// its own slope: a conveyor belt. Velocity is tangential, so the field is the same at every time.
fn belt(params: &SolverParams, height: f32, kind: BoundaryKind) -> ColliderFrames {
    let rotation = Quat::from_rotation_x(20f32.to_radians());
    let pose = RigidPose::at_rest(Vec3::new(0.5, 0.5, height), rotation);
    let mut sdf = analytic_sdf(AnalyticShape::HalfSpace, &pose, &params.grid);
    let along = rotation * Vec3::Y * 0.5;
    sdf.velocity.iter_mut().for_each(|v| *v = along);
    let mut field = ColliderField::empty(params.grid.node_count() as usize);
    field.add(0, &sdf.distance, &sdf.normal, &sdf.velocity);
    ColliderFrames { from: field.clone(), to: field, surfaces: vec![Boundary { kind, friction: 0.3 }] }
}

/// The smallest |distance| over all nodes: a node within rounding of the surface could be judged
/// inside on one side and outside on the other, so the tests place the belt away from that.
/// A horizontal slip floor rising at 6 m/s from z = 0.27 at the frame's start to 0.33 at its end.
fn rising_floor(params: &SolverParams) -> ColliderFrames {
    let pose = |z: f32| RigidPose {
        linear_velocity: Vec3::new(0.0, 0.0, 6.0),
        ..RigidPose::at_rest(Vec3::new(0.5, 0.5, z), Quat::IDENTITY)
    };
    let field = |z: f32| {
        let sdf = analytic_sdf(AnalyticShape::HalfSpace, &pose(z), &params.grid);
        let mut f = ColliderField::empty(params.grid.node_count() as usize);
        f.add(0, &sdf.distance, &sdf.normal, &sdf.velocity);
        f
    };
    ColliderFrames {
        from: field(0.27),
        to: field(0.33),
        surfaces: vec![Boundary { kind: BoundaryKind::Slip, friction: 0.0 }],
    }
}

fn closest_node(frames: &ColliderFrames) -> f32 {
    frames.from.nodes.iter().map(|n| n.distance.abs()).fold(f32::INFINITY, f32::min)
}

#[test]
fn grid_update_with_a_belt_matches_the_twin_on_every_path() {
    for path in SolverPath::ALL {
        grid_update_with_a_belt_matches_the_twin(path);
    }
}

fn grid_update_with_a_belt_matches_the_twin(path: SolverPath) {
    let gpu = common::gpu();
    let params = scene_params();
    for kind in [BoundaryKind::Sticky, BoundaryKind::Slip, BoundaryKind::Separate] {
        let frames = belt(&params, 0.33, kind);
        assert!(closest_node(&frames) > 1e-4, "a node lies on the belt: move it");
        let particles = block();
        let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
        solver.set_path(&gpu, path).expect("path");
        solver.set_colliders(&gpu, Some(&frames)).expect("colliders fit");
        let mut cpu = CpuSolver::new(params, &particles);
        cpu.colliders = Some(frames.clone());
        solver.run_pass(&gpu, MpmPass::GridClear);
        solver.run_pass(&gpu, MpmPass::P2g);
        solver.run_pass(&gpu, MpmPass::GridUpdate);
        common::assert_ran_on(&gpu, &solver, path);
        cpu.grid_clear();
        cpu.p2g();
        cpu.grid_update();
        let gv = solver.read_grid_velocity(&gpu).expect("grid velocity");
        // Nodes at the block's rim get a few contributions of weight ~1e-4: their P/M carries the
        // fixed-point rounding of a ~1e-8 kg mass (0.1 m/s here), collider or not. Compared are
        // the nodes holding at least 1 % of a full node's mass.
        let full = cpu.grid.mass.iter().cloned().fold(0.0, f64::max);
        let (mut worst, mut constrained) = (0.0f64, 0);
        for (i, (g, c)) in gv.iter().zip(&cpu.grid.velocity).enumerate() {
            if cpu.grid.mass[i] < 0.01 * full {
                continue;
            }
            worst = worst.max((Vector3::new(g[0] as f64, g[1] as f64, g[2] as f64) - c).amax());
            constrained += (frames.from.nodes[i].distance <= 0.0) as usize;
        }
        // The block's lowest stencil layer reaches below the belt.
        assert!(constrained > 20, "{kind:?}, {path:?}: only {constrained} nodes with mass inside the belt");
        // Node velocity P/M carries the fixed-point rounding of tests/gpu_vs_cpu.rs: 6.4e-6 m/s for
        // a full node, ≤ 100× that at 1 % of its mass; the collider arithmetic adds a few f32
        // roundings of 1 m/s (1e-7): 1e-3 m/s.
        assert!(worst < 1e-3, "{kind:?}, {path:?}: node velocity differs by {worst:e} m/s");
    }
}

#[test]
fn a_frame_of_substeps_with_a_rising_floor_matches_the_twin_on_every_path() {
    for path in SolverPath::ALL {
        a_frame_of_substeps_with_a_rising_floor_matches_the_twin(path);
    }
}

fn a_frame_of_substeps_with_a_rising_floor_matches_the_twin(path: SolverPath) {
    let gpu = common::gpu();
    let params = scene_params();
    // A horizontal slip floor rising from z = 0.27 to 0.33 over the frame: 6 cm in 20 substeps of
    // 5e-4 s = 0.01 s, the 6 m/s of the pose's velocity. Substeps see it (k+1)/20 of the way up. It
    // passes the node layer at z = 0.3125 at 71 % of the frame: the last substeps' grid update
    // finds those nodes inside only through the frame's end state (its own binding), which a
    // blend that read the start state twice would miss.
    let steps = 20;
    let frames = rising_floor(&params);
    let particles = block();
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.set_path(&gpu, path).expect("path");
    solver.set_colliders(&gpu, Some(&frames)).expect("colliders fit");
    let mut cpu = CpuSolver::new(params, &particles);
    cpu.colliders = Some(frames);
    solver.step(&gpu, steps);
    common::assert_ran_on(&gpu, &solver, path);
    cpu.step_frame(steps);
    let out = solver.read_particles(&gpu).expect("particles");
    // The floor met the block's bottom layer: without it those particles would fall at
    // 1 + g·0.01 s ≈ 1.1 m/s; the floor's nodes (moving up at 6 m/s) slowed them below 0.5 m/s.
    // (The bottom layer as it started: the floor lifts it past z = 0.32.)
    let bottom: Vec<_> =
        cpu.particles.iter().zip(&particles).filter(|(_, p)| p.position[2] < 0.32).map(|(c, _)| c).collect();
    let bottom_vz = bottom.iter().map(|p| p.velocity.z).sum::<f64>() / bottom.len().max(1) as f64;
    assert!(!bottom.is_empty() && bottom_vz > -0.5, "the rising floor should slow the bottom: mean vz {bottom_vz}");
    // Tolerances of tests/gpu_vs_cpu.rs (20 substeps): velocity 1.3e-4 m/s, position 2e-6 m. A
    // node whose blended distance is within f32 rounding (~3e-8 m) of zero could flip between
    // inside and outside; the floor's nodes sit at whole multiples of 2⁻⁴ m and the floor at
    // 0.27 + 0.003·k m (k = 1..20), so the nearest node is ≥ 0.5 mm from the surface at every
    // substep.
    let tol_v = 20.0 * 6.4e-6;
    let tol_x = 20.0 * 3e-8 + params.dt * 20.0 * tol_v;
    let (mut ev, mut ex) = (0f64, 0f64);
    for (g, c) in out.iter().zip(&cpu.particles) {
        ev = ev.max((common::vec3d(g.velocity) - c.velocity).amax());
        ex = ex.max((common::vec3d(g.position) - c.position).amax());
    }
    eprintln!("after {steps} substeps with a rising floor: v {ev:.2e} m/s, x {ex:.2e} m");
    assert!(ev <= tol_v, "{path:?}: velocity differs by {ev:e} m/s > {tol_v:e}");
    assert!(ex <= tol_x, "{path:?}: position differs by {ex:e} m > {tol_x:e}");
}

#[test]
fn a_pbmpm_frame_with_a_rising_floor_matches_its_twin_on_both_paths() {
    // PB-MPM against its twin with the rising slip floor of the explicit test above: 4 steps of
    // 2.5 ms over the same 0.01 s frame, step k seeing the floor (k+1)/4 of the way from z = 0.27
    // to 0.33 (pb_clock's blend on the GPU, collider_blend in the twin). The floor passes the node
    // layer at z = 0.3125 between steps 2 and 3; at every step the nearest node is at least 2.5 mm
    // from it (floor at 0.285, 0.30, 0.315, 0.33), far from any f32 flip of inside and outside.
    let gpu = common::gpu();
    let params = scene_params();
    let (steps, dt) = (4u32, 0.0025);
    let frames = rising_floor(&params);
    let particles = block();
    let mut twin = PbmpmCpu::new(params, PbmpmSettings::default(), &particles).expect("twin");
    twin.colliders = Some(frames.clone());
    for k in 0..steps {
        twin.collider_blend = (k + 1) as f64 / steps as f64;
        twin.step(dt);
    }
    // The floor met the block's bottom layer: falling freely it would be at 1 + g·0.01 s ≈ 1.1 m/s
    // downward; the floor, rising at 6 m/s, turned it upward.
    let bottom: Vec<_> =
        twin.particles.iter().zip(&particles).filter(|(_, p)| p.position[2] < 0.32).map(|(c, _)| c).collect();
    let bottom_vz = bottom.iter().map(|p| p.velocity.z).sum::<f64>() / bottom.len().max(1) as f64;
    assert!(!bottom.is_empty() && bottom_vz > 0.0, "the rising floor should lift the bottom: mean vz {bottom_vz}");
    for path in [SolverPath::Naive, SolverPath::Sorted] {
        let options = SolverOptions { integrator: Integrator::Pbmpm(PbmpmSettings::default()), ..Default::default() };
        let mut solver = Solver::with_options(&gpu, params, &particles, options).expect("solver");
        solver.set_path(&gpu, path).expect("path");
        solver.set_colliders(&gpu, Some(&frames)).expect("colliders fit");
        solver.step_pbmpm(&gpu, steps, dt);
        let out = solver.read_particles(&gpu).expect("particles");
        let mut worst = 0f64;
        for (g, c) in out.iter().zip(&twin.particles) {
            worst = worst.max((common::vec3d(g.position) - c.position).amax());
        }
        eprintln!("{path:?}: PB-MPM with a rising floor, GPU vs twin {worst:.2e} m (bottom vz {bottom_vz:.3} m/s)");
        // As for the block landing in tests/pbmpm_gpu.rs: f32 SVDs and gathers, 1e-4 m (1/600 of a
        // cell) against the centimetres the floor moves the bottom layer.
        assert!(worst < 1e-4, "{path:?}: GPU and twin differ by {worst:e} m");
    }
}
