//! A frame stepped in batches over several UI frames (`Solver::begin_frame` and
//! `Solver::submit_batch`, as the app does within its budget per UI frame) simulates exactly what
//! the same frame stepped at once (`Solver::step_frame`) does: the GPU's substep clock carries the
//! frame on between batches. Compared bit for bit on lavapipe.

mod common;

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::explicit::clock::{FrameStep, GpuSubstepClock};
use powder::sim::params::GpuParticle;
use powder::sim::sort::bins::SolverPath;

/// Cell size: 16 cells over a 0.5 m box.
const H: f64 = 0.5 / 16.0;

/// A block of snow thrown sideways and down at the floor: it lands within the frames, so the
/// stable dt changes inside them and an auto frame's substeps differ in length.
fn block() -> Vec<GpuParticle> {
    common::block(Vec3::new(0.15, 0.2, 0.06), Vec3::new(0.3, 0.3, 0.16), H as f32, 400.0, |_| Vec3::new(1.5, 0.0, -2.0))
}

fn solver(gpu: &Gpu, path: SolverPath) -> Solver {
    let mut solver = Solver::new(gpu, common::params(16, H, 2e-4), &block()).expect("solver");
    solver.set_path(gpu, path).expect("path");
    solver
}

/// Runs the frame that `begin_frame` set up in batches of `sizes` substeps (the last size repeated
/// until the clock says the frame ended), waiting for each as a UI frame would see it finished;
/// returns the clock at the end and the batches submitted.
fn step_in_batches(gpu: &Gpu, solver: &Solver, step: FrameStep, sizes: &[u32]) -> (GpuSubstepClock, u32) {
    let mut batches = 0;
    loop {
        let n = sizes[(batches as usize).min(sizes.len() - 1)];
        // Whole batches in one submission, as the app submits them on a software driver.
        let batch = solver.submit_batch(gpu, step, n, u32::MAX, None, &mut |_, _| None);
        batches += 1;
        let clock = loop {
            gpu.poll(Some(&batch.submission), Some(std::time::Duration::from_millis(100)));
            if let Some(clock) = solver.batch_clock(&batch) {
                break clock.expect("the clock read back");
            }
        };
        let ended = match step {
            FrameStep::Fixed { substeps, .. } => clock.substeps >= substeps,
            FrameStep::Auto { .. } => clock.finished != 0,
        };
        if ended {
            return (clock, batches);
        }
        assert!(batches < 1000, "the frame does not end: {clock:?}");
    }
}

fn assert_same_particles(whole: &Solver, split: &Solver, gpu: &Gpu, what: &str) {
    let (a, b) = (whole.read_particles(gpu).expect("read"), split.read_particles(gpu).expect("read"));
    assert_eq!(a.len(), b.len());
    let differ = a.iter().zip(&b).filter(|(p, q)| bytemuck::bytes_of(*p) != bytemuck::bytes_of(*q)).count();
    assert_eq!(differ, 0, "{what}: {differ} of {} particles differ", a.len());
    // They moved: the comparison is of a frame that did something.
    let start = block();
    assert!(a.iter().zip(&start).all(|(p, q)| p.position != q.position), "{what}: a particle did not move");
}

#[test]
fn an_auto_frame_split_into_batches_simulates_what_one_frame_does() {
    let gpu = common::gpu();
    let span = 1.0 / 30.0;
    let step = FrameStep::Auto { max_substeps: 20_000 };
    let whole = solver(&gpu, SolverPath::Sorted);
    let split = solver(&gpu, SolverPath::Sorted);
    // Three frames: the later ones start from a state the batches left.
    for frame in 0..3 {
        let report = whole.step_frame(&gpu, span, step, None).expect("frame");
        split.begin_frame(&gpu, span, step);
        // One substep per UI frame, then three, then forty (more than `step_frame` submits at
        // once): batch edges fall everywhere in the frame, and the last batch records substeps
        // past the frame's end (empty).
        let sizes = [[1], [3], [40]][frame];
        let (clock, batches) = step_in_batches(&gpu, &split, step, &sizes);
        eprintln!("frame {frame}: {} substeps at once, {} in {batches} batches", report.substeps, clock.substeps);
        assert_eq!(clock.substeps, report.substeps, "frame {frame}");
        assert_eq!(clock.max_ratio as f64, report.max_ratio, "frame {frame}");
        assert!(batches > 1 && report.substeps > 40, "frame {frame}: nothing was split");
        assert_same_particles(&whole, &split, &gpu, &format!("auto frame {frame}"));
    }
}

#[test]
fn a_fixed_frame_split_into_batches_simulates_what_one_frame_does_on_every_path() {
    let gpu = common::gpu();
    let (dt, substeps) = (2e-4, 10);
    let step = FrameStep::Fixed { dt, substeps };
    for path in SolverPath::ALL {
        let whole = solver(&gpu, path);
        let split = solver(&gpu, path);
        whole.step_frame(&gpu, dt * substeps as f64, step, None).expect("frame");
        split.begin_frame(&gpu, dt * substeps as f64, step);
        // Batches of 4, 4 and 2: on the fused path, three runs where one frame is one.
        let (clock, batches) = step_in_batches(&gpu, &split, step, &[4, 4, 2]);
        assert_eq!((clock.substeps, batches), (substeps, 3), "{}", path.name());
        assert_same_particles(&whole, &split, &gpu, path.name());
    }
}
