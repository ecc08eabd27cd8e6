//! Going back in a running simulation (`powder::sim::timeline`): frames kept within a memory
//! budget, a kept frame restored, and the frames simulated on from it equal to the first ones bit
//! for bit (particles and stored stress); a new branch drops the frames after it.
//!
//! Mutation check (made by hand, seen failing, restored): `Solver::restore` without the stored
//! stress (`restore_stored` not called, the `stress` pass recomputing it) fails
//! `simulating_on_from_a_kept_frame_gives_the_same_frames`.

mod common;

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::checkpoint::SolverSnapshot;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::timeline::{KeptFrame, Timeline};

/// Cell size: 16 cells over a 0.5 m box.
const H: f64 = 0.5 / 16.0;
const DT: f64 = 2e-4;
const SUBSTEPS: u32 = 25;

/// A block of snow thrown sideways and down at the floor, which it reaches within the frames, so
/// that they compress and plastically deform it.
fn solver(gpu: &Gpu) -> Solver {
    let block = common::block(Vec3::new(0.15, 0.2, 0.06), Vec3::new(0.3, 0.3, 0.16), H as f32, 400.0, |_| {
        Vec3::new(1.5, 0.0, -2.0)
    });
    Solver::new(gpu, common::params(16, H, DT), &block).expect("solver")
}

fn frame(gpu: &Gpu, solver: &Solver) -> SolverSnapshot {
    let step = FrameStep::Fixed { dt: DT, substeps: SUBSTEPS };
    solver.step_frame(gpu, DT * SUBSTEPS as f64, step, None).expect("frame");
    SolverSnapshot::capture(gpu, solver).expect("capture")
}

fn same(a: &SolverSnapshot, b: &SolverSnapshot) -> bool {
    bytemuck::cast_slice::<_, u8>(&a.particles) == bytemuck::cast_slice::<_, u8>(&b.particles)
        && bytemuck::cast_slice::<_, u8>(&a.stress) == bytemuck::cast_slice::<_, u8>(&b.stress)
}

#[test]
fn simulating_on_from_a_kept_frame_gives_the_same_frames() {
    let gpu = common::gpu();
    let mut solver = solver(&gpu);
    let count = solver.particle_count() as u64;
    // Room for four frames of 176 bytes per particle (a particle and its stress), not five.
    let frame_bytes = count * 176;
    let mut timeline = Timeline::new(4 * frame_bytes + frame_bytes / 2);
    let mut first = vec![SolverSnapshot::capture(&gpu, &solver).expect("capture")];
    for n in 1..=6u64 {
        let state = frame(&gpu, &solver);
        first.push(state.clone());
        timeline.keep(KeptFrame { frame: n, sim_time: n as f64 * DT * SUBSTEPS as f64, state });
    }
    assert_eq!(timeline.range(), Some((3, 6)), "the oldest two dropped for the budget");
    assert_eq!(timeline.bytes(), 4 * frame_bytes);
    assert!(!same(&first[4], &first[6]), "the snow changed between frames 4 and 6");
    // Back to frame 4, and on again.
    let kept = timeline.get(4).expect("frame 4 kept").state.clone();
    solver.restore(&gpu, &kept).expect("restored");
    for (n, original) in first.iter().enumerate().skip(5) {
        let again = frame(&gpu, &solver);
        let differ = again.particles.iter().zip(&original.particles).filter(|(a, b)| a != b).count();
        assert!(same(&again, original), "frame {n} again: {differ} of {count} particles differ");
    }
    // A change at frame 4 branches: frame 5 of the new branch replaces 5 and 6 of the old.
    timeline.branch_at(4);
    assert_eq!(timeline.range(), Some((3, 4)));
    timeline.keep(KeptFrame { frame: 5, sim_time: 0.0, state: first[1].clone() });
    assert_eq!((timeline.range(), timeline.len()), (Some((3, 5)), 3));
    timeline.keep(KeptFrame { frame: 4, sim_time: 0.0, state: first[1].clone() });
    assert_eq!(timeline.range(), Some((3, 4)), "keeping an earlier frame drops the later ones");
}
