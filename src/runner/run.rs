//! A whole headless run without checkpoints or images: [`run_scene`] and [`run_solver`].

use super::bake::{BakePlan, BakeStart, bake};
use super::error::RunError;
use super::frames::{RunSummary, build_solver};
use crate::collider::set::ColliderSet;
use crate::export::OutputDir;
use crate::gpu::Gpu;
use crate::scene::Scene;
use crate::sim::{Solver, SolverStats};

/// Simulates `frames` frames of `scene` and writes `frame_00000.ply` (the initial state) to
/// `frame_{frames}.ply` into `out`. `on_frame` is called after each frame is written, the initial
/// state (frame 0) included: a caller that describes the run from there prints nothing but the
/// error for a scene refused while the solver is set up. The directory is prepared
/// ([`OutputDir::prepare`]: old frames and stale temporaries removed) only once the solver and
/// colliders are set up, so a scene refused there changes nothing on disk.
pub fn run_scene(
    gpu: &Gpu,
    scene: &Scene,
    source_name: &str,
    frames: u32,
    out: &OutputDir,
    on_frame: impl FnMut(u32, &SolverStats),
) -> Result<RunSummary, RunError> {
    let solver = build_solver(gpu, scene, source_name)?;
    run_solver(gpu, solver, scene, source_name, frames, out, on_frame)
}

/// [`run_scene`] with the solver already made for `scene` (by [`build_solver_with`], say, after
/// [`spawn_checked`] with a progress bar).
pub fn run_solver(
    gpu: &Gpu,
    solver: Solver,
    scene: &Scene,
    source_name: &str,
    frames: u32,
    out: &OutputDir,
    on_frame: impl FnMut(u32, &SolverStats),
) -> Result<RunSummary, RunError> {
    // The colliders are checked before the directory is touched.
    ColliderSet::from_scene(scene, source_name)?;
    out.prepare()?;
    let plan = BakePlan { frames, checkpoint_every: 0, start: BakeStart::fresh(), sink: &mut () };
    bake(gpu, solver, scene, source_name, plan, out, on_frame)
}
