//! Snow breaks apart: the built-in default scene (a snowball packed from clumps thrown at a wall)
//! at resolution 20, so that it runs in seconds, counted with the fragment counter 14 frames
//! (0.47 s) in, after the impact. This runs on the CPU twin, which `tests/gpu_vs_cpu.rs` checks the
//! GPU passes against, cracking included; each substep's dt is the stable dt of the state it
//! steps, as on the GPU.
//!
//! Numbers measured for this test (`cargo run --release --example breakage_probe -- default 20 14
//! [KEY=VALUE]`, 912 particles): the default snow ends in 277 pieces, 15 of at least 0.5 % of the
//! mass, the largest 45.5 % (then 1.2, 1.2, 1.0, 0.9 %); with θs = 0.025, 87 pieces, the largest
//! 74.3 %; without cracking (`material.tensile_strength=0`) one piece. At this resolution the
//! clumps (`packing.grain`, 0.12 m) are no wider than two particle spacings, so every particle
//! lies on a seam: the pieces come from cracking alone.

use powder::fragments::{Fragments, LINK_FACTOR, find_fragments};
use powder::runner::plan_frame;
use powder::scene::{Scene, TimeStep};
use powder::sim::cpu::CpuSolver;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::params::MAX_SUBSTEPS_PER_FRAME;

/// A frame of the scene as `powder run` steps it ([`powder::runner::advance`]): substeps of the
/// stable dt of the state each steps under `"dt": "auto"`, else whole substeps of the fixed dt.
fn frame_step(scene: &Scene) -> FrameStep {
    match scene.time.dt {
        TimeStep::Auto => FrameStep::Auto { max_substeps: MAX_SUBSTEPS_PER_FRAME },
        TimeStep::Fixed(_) => {
            let (substeps, dt, _) = plan_frame(scene.frame_duration(), scene.time.dt, f64::INFINITY);
            FrameStep::Fixed { dt, substeps }
        }
    }
}

/// The default scene at resolution 20 with `overrides`, run 14 frames on the CPU twin.
fn pieces_after_impact(overrides: &[(&str, &str)]) -> Fragments {
    let mut scene = Scene::builtin_default();
    for (key, value) in [("grid.resolution", "20")].iter().chain(overrides) {
        scene.set_value(key, value, "test").expect("override");
    }
    let particles = scene.spawn_particles().expect("particles");
    let mut solver = CpuSolver::new(scene.solver_params(), &particles);
    for _ in 0..14 {
        solver.step_span(scene.frame_duration(), frame_step(&scene));
    }
    let positions: Vec<[f32; 3]> = solver.gpu_particles().iter().map(|p| p.position).collect();
    find_fragments(&positions, None, LINK_FACTOR * scene.particle_spacing()).expect("fragments")
}

#[test]
fn the_default_snowball_breaks_on_the_wall_and_stronger_snow_holds_together_more() {
    let reference = pieces_after_impact(&[]);
    eprintln!("default snow: {}", reference.summary());
    // Measured 15 chunks, the largest 45.5 %. Less than half the ball in one piece and many chunks:
    // uncracked snow stays whole (below), so these bounds cannot pass without breakage.
    assert!(reference.significant() >= 8, "chunks: {}", reference.summary());
    assert!(reference.largest_share() < 0.5, "largest: {}", reference.summary());

    let uncracked = pieces_after_impact(&[("material.tensile_strength", "0")]);
    eprintln!("no cracking: {}", uncracked.summary());
    // Measured: one piece.
    assert!(uncracked.largest_share() > 0.95, "{}", uncracked.summary());

    let tougher = pieces_after_impact(&[("material.critical_stretch", "0.025")]);
    eprintln!("θs = 0.025: {}", tougher.summary());
    // A larger piece survives: measured 74.3 % against 45.5 %.
    assert!(tougher.largest_share() > reference.largest_share() + 0.1, "{}", tougher.summary());
}
