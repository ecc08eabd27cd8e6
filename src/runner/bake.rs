//! The frame loop of a bake: simulate a frame, write its PLY file (and image), and every
//! `checkpoint_every` frames a checkpoint ([`crate::export::checkpoint`]) from which
//! [`resume_solver`] continues a killed bake with the same bytes as one that never stopped.

use std::path::Path;

use super::error::RunError;
use super::frames::{RunSummary, advance, build_solver_with, last_fragments, log_frame, plan_frame};
use crate::collider::set::ColliderSet;
use crate::export::checkpoint::BakeTotals;
use crate::export::{
    CHECKPOINT_FILE, Checkpoint, CheckpointError, OutputDir, frame_file_name, write_checkpoint, write_ply,
};
use crate::gpu::Gpu;
use crate::scene::Scene;
use crate::sim::checkpoint::SolverSnapshot;
use crate::sim::solver::SolverOptions;
use crate::sim::{Solver, SolverStats};

/// Frames between checkpoints when none is asked for. A checkpoint holds 176 bytes per particle
/// against a frame file's 32, so one every 10 frames writes about half as much again as the frames
/// themselves, and a killed bake loses at most 10 frames of work.
pub const DEFAULT_CHECKPOINT_EVERY: u32 = 10;

/// Where a bake starts: at frame 0 from the scene's particles, or after a checkpoint's frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct BakeStart {
    /// The last frame already written (0 for a fresh bake, which writes frame 0 itself).
    pub frame: u32,
    /// Simulated seconds at that frame.
    pub simulated_time: f64,
    /// Totals up to that frame.
    pub totals: BakeTotals,
    /// Whether frame `frame` still has to be written (a fresh bake's initial state).
    pub write_first: bool,
}

impl BakeStart {
    /// A fresh bake: frame 0 is the initial state, written first.
    pub fn fresh() -> Self {
        BakeStart { write_first: true, ..Default::default() }
    }

    /// A bake resumed after `checkpoint`'s frame.
    pub fn after(checkpoint: &Checkpoint) -> Self {
        BakeStart {
            frame: checkpoint.frame,
            simulated_time: checkpoint.simulated_time,
            totals: checkpoint.totals,
            write_first: false,
        }
    }
}

pub use crate::export::sink::{FrameSink, SinkError};

impl From<SinkError> for RunError {
    fn from(e: SinkError) -> Self {
        match e {
            SinkError::Render(e) => RunError::Render(e),
            SinkError::Export(e) => RunError::Export(e),
            SinkError::Solver { what, source } => RunError::Solver { source_name: what, source },
        }
    }
}

/// A bake's frames: from `start` up to `frames`, a checkpoint every `checkpoint_every` frames
/// (0: none), and `sink` told of each frame written.
pub struct BakePlan<'a> {
    /// The last frame to write.
    pub frames: u32,
    /// Frames between checkpoints; 0 writes none.
    pub checkpoint_every: u32,
    /// Where the bake starts.
    pub start: BakeStart,
    /// Told of each frame.
    pub sink: &'a mut dyn FrameSink,
}

/// Runs the frames of `plan` with `solver` (made for `scene`) into `out`, which the caller has
/// prepared. `on_frame` hears of each frame written.
pub fn bake(
    gpu: &Gpu,
    mut solver: Solver,
    scene: &Scene,
    source_name: &str,
    plan: BakePlan<'_>,
    out: &OutputDir,
    mut on_frame: impl FnMut(u32, &SolverStats),
) -> Result<RunSummary, RunError> {
    let mut colliders = ColliderSet::from_scene(scene, source_name)?;
    let pour = scene.pour_schedule(source_name)?;
    let out_dir = out.path();
    let solver_err = |source| RunError::Solver { source_name: source_name.to_string(), source };
    let start = plan.start;
    let mut summary = RunSummary { simulated_time: start.simulated_time, ..RunSummary::default() };
    add_totals(&mut summary, &start.totals);
    let scene_json = if plan.checkpoint_every > 0 {
        serde_json::to_string(scene)
            .map_err(|e| CheckpointError::SceneJson { scene: source_name.to_string(), message: e.to_string() })?
    } else {
        String::new()
    };
    // Absolute, so that a bake resumed from another working directory finds the glTF files.
    let base_dir = &scene.assets.base_dir;
    let here = if base_dir.as_os_str().is_empty() { Path::new(".") } else { base_dir.as_path() };
    let asset_dir = std::fs::canonicalize(here).unwrap_or_else(|_| base_dir.clone());
    let checkpoint = |frame: u32, summary: &RunSummary, state: SolverSnapshot| {
        let c = Checkpoint {
            frame,
            frames: plan.frames,
            checkpoint_every: plan.checkpoint_every,
            simulated_time: summary.simulated_time,
            totals: totals_of(summary),
            scene_json: scene_json.clone(),
            scene_source: source_name.to_string(),
            asset_dir: asset_dir.clone(),
            state,
        };
        write_checkpoint(&out_dir.join(CHECKPOINT_FILE), &c).map(|()| c.state.particles)
    };
    let first = start.frame;
    if start.write_first {
        write_ply(&out_dir.join(frame_file_name(first)), &solver.read_particles(gpu).map_err(solver_err)?)?;
        plan.sink.frame(gpu, &solver, first)?;
        summary.frames_written = 1;
    }
    let initial = solver.stats(gpu).map_err(solver_err)?;
    summary.overflow_count += initial.overflow_count as u64;
    summary.nonfinite_count += initial.nonfinite_count as u64;
    on_frame(first, &initial);
    for frame in first + 1..=plan.frames {
        let (stable, stats) = solver.stable_dt(gpu, scene.time.cfl).map_err(solver_err)?;
        summary.overflow_count += stats.overflow_count as u64;
        summary.nonfinite_count += stats.nonfinite_count as u64;
        let (_, _, fixed_capped) = plan_frame(scene.frame_duration(), scene.time.dt, stable);
        let t0 = summary.simulated_time;
        let duration = scene.frame_duration();
        let report =
            advance(gpu, &mut solver, &mut colliders, t0, duration, scene.time.dt, stable).map_err(solver_err)?;
        if gpu.lost.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(RunError::DeviceLost { frame });
        }
        log_frame(frame, &report, fixed_capped);
        summary.capped_frames += (report.capped || fixed_capped) as u32;
        summary.frames_past_stable += (report.max_ratio > 1.0) as u32;
        summary.max_dt_ratio = summary.max_dt_ratio.max(report.max_ratio);
        summary.substeps += report.substeps as u64;
        summary.simulated_time += duration;
        // The pouring emitters' batches born during the frame join it at its end.
        solver.append_particles(gpu, &pour.born_between(t0, summary.simulated_time)).map_err(solver_err)?;
        let due = plan.checkpoint_every > 0 && frame % plan.checkpoint_every == 0;
        // The frame's file first, then the checkpoint: a checkpoint's frame is always on disk.
        let particles = if due {
            let state = SolverSnapshot::capture(gpu, &solver).map_err(solver_err)?;
            write_ply(&out_dir.join(frame_file_name(frame)), &state.particles)?;
            checkpoint(frame, &summary, state)?
        } else {
            let particles = solver.read_particles(gpu).map_err(solver_err)?;
            write_ply(&out_dir.join(frame_file_name(frame)), &particles)?;
            particles
        };
        plan.sink.frame(gpu, &solver, frame)?;
        summary.frames_written += 1;
        if frame == plan.frames {
            summary.fragments = last_fragments(scene, &particles);
        }
        on_frame(frame, &stats);
    }
    let last = solver.stats(gpu).map_err(solver_err)?;
    summary.overflow_count += last.overflow_count as u64;
    summary.nonfinite_count += last.nonfinite_count as u64;
    if solver.pbmpm_solve() == Some(crate::sim::pbmpm::PbSolver::Newton) {
        summary.solve = Some(solver.take_solve_totals());
    }
    Ok(summary)
}

/// The totals a checkpoint carries, from a summary so far.
fn totals_of(s: &RunSummary) -> BakeTotals {
    BakeTotals {
        substeps: s.substeps,
        overflow_count: s.overflow_count,
        nonfinite_count: s.nonfinite_count,
        capped_frames: s.capped_frames,
        frames_past_stable: s.frames_past_stable,
        max_dt_ratio: s.max_dt_ratio,
    }
}

/// Adds a checkpoint's totals to a summary.
fn add_totals(s: &mut RunSummary, t: &BakeTotals) {
    s.substeps += t.substeps;
    s.overflow_count += t.overflow_count;
    s.nonfinite_count += t.nonfinite_count;
    s.capped_frames += t.capped_frames;
    s.frames_past_stable += t.frames_past_stable;
    s.max_dt_ratio = s.max_dt_ratio.max(t.max_dt_ratio);
}

/// The scene and a solver holding `checkpoint`'s state, ready to step on from its frame: the
/// scene rebuilt from the JSON it holds (its glTF files read again from its asset folder), the
/// particles uploaded and their stored stress restored.
pub fn resume_solver(gpu: &Gpu, checkpoint: &Checkpoint, path: &Path) -> Result<(Scene, Solver), RunError> {
    let source = checkpoint.scene_source.clone();
    let scene = Scene::from_json_at(&checkpoint.scene_json, &source, &checkpoint.asset_dir)?;
    let solver = build_solver_with(gpu, &scene, &checkpoint.state.particles, &source, SolverOptions::default())?;
    checkpoint.state.restore_stored(gpu, &solver).ok_or_else(|| CheckpointError::Corrupt {
        path: path.to_path_buf(),
        message: "its stress and particle counts differ".to_string(),
    })?;
    Ok((scene, solver))
}
