//! `powder run`: a headless bake of a scene to PLY frames, and with `--surface` and `--images`
//! its surface meshes and rendered images; checkpoints, and `--resume` of a killed bake.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use powder::export::OutputDir;
use powder::export::images::ImageSequence;
use powder::gpu::{Gpu, GpuChoice};
use powder::runner::bake::{BakePlan, BakeStart, FrameSink, bake};
use powder::runner::{build_solver_with, spawn_checked};
use powder::scene::Scene;
use powder::sim::integrator::Integrator;
use powder::sim::solver::SolverOptions;

use super::common::{GPU_HELP, load_scene, parse_gpu};

/// `powder run`: simulate a scene without a window and write each frame's particles as binary
/// PLY files.
#[derive(clap::Args)]
pub struct RunArgs {
    /// Scene file (JSON, see docs/scene-format.md), or a .glb/.gltf model to drop snow on.
    /// Without one, the built-in default scene.
    scene: Option<PathBuf>,
    /// Frames to simulate (each 1/fps seconds of simulated time). Default 60, or with --resume
    /// the frames the resumed bake was asked for.
    #[arg(long)]
    frames: Option<u32>,
    /// Output directory; frame_00000.ply is the initial state. A directory that already holds
    /// frames is refused unless --overwrite is given.
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// Write into an output directory that holds frames of an earlier bake: first remove its
    /// frames (frame_NNNNN.ply), images (frame_NNNNN.png) and checkpoint.powder, and nothing else
    /// (surface_NNNNN.ply and video.mp4 stay until the new bake writes them again). A killed
    /// bake's temporary files are removed with or without it.
    #[arg(long)]
    overwrite: bool,
    /// Override a scene value, e.g. --set material.youngs_modulus=5e4 (repeatable). Applied after
    /// --integrator, so --set integrator.iterations=20 sets the integrator asked for.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// The integrator that steps the snow: explicit (MLS-MPM substeps of the stable dt, for
    /// accurate bakes) or pbmpm (position-based MPM, real time). Default: the scene's.
    #[arg(long, value_parser = Integrator::NAMES)]
    integrator: Option<String>,
    /// Write the complete simulation state to checkpoint.powder in the output directory every N
    /// frames (0: never), so that --resume can continue the bake if it is killed.
    #[arg(long, value_name = "N", default_value_t = powder::runner::bake::DEFAULT_CHECKPOINT_EVERY)]
    checkpoint_every: u32,
    /// Continue the bake in DIR from its checkpoint: the scene, overrides and settings are the
    /// checkpoint's, and the frames written are byte for byte those of a bake never stopped.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["scene", "out", "overwrite", "overrides", "integrator"])]
    resume: Option<PathBuf>,
    /// Also render each frame, WIDTHxHEIGHT pixels, into frame_NNNNN.png (the app's renderer,
    /// the camera framing the domain).
    #[arg(long, value_name = "WxH", value_parser = powder::export::images::parse_image_size)]
    images: Option<(u32, u32)>,
    /// Camera angle around the vertical for --images, degrees (default: the app's view).
    #[arg(long, requires = "images", allow_negative_numbers = true)]
    camera_yaw: Option<f32>,
    /// Camera angle above the horizon for --images, degrees, in [-89, 89].
    #[arg(long, requires = "images", allow_negative_numbers = true, value_parser = parse_pitch)]
    camera_pitch: Option<f32>,
    /// Encode the images into video.mp4 at the scene's frame rate once the bake ends (needs
    /// --images and ffmpeg on the PATH; skipped with a message without it).
    #[arg(long, requires = "images")]
    mp4: bool,
    /// Also write the snow's surface each frame as a triangle mesh with normals,
    /// surface_NNNNN.ply (the app's surface view; give it again with --resume).
    #[arg(long)]
    surface: bool,
    #[arg(long, value_name = "INDEX|NAME", value_parser = parse_gpu, help = GPU_HELP)]
    gpu: Option<GpuChoice>,
}

/// What `powder run --images` asked for.
#[derive(Clone, Copy)]
struct ImageArgs {
    size: (u32, u32),
    view: powder::export::images::ImageCamera,
    mp4: bool,
}

fn parse_pitch(text: &str) -> std::result::Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(p) if (-89.0..=89.0).contains(&p) => Ok(p),
        _ => Err(format!("expected degrees in [-89, 89], not {text:?}")),
    }
}

/// Runs `powder run`.
pub fn run(args: RunArgs) -> Result<()> {
    let RunArgs {
        scene: scene_path,
        frames,
        out,
        overwrite,
        overrides,
        integrator,
        checkpoint_every,
        resume,
        images,
        camera_yaw,
        camera_pitch,
        mp4,
        surface,
        gpu,
    } = args;
    let defaults = powder::export::images::ImageCamera::default();
    let view = powder::export::images::ImageCamera {
        yaw_degrees: camera_yaw.unwrap_or(defaults.yaw_degrees),
        pitch_degrees: camera_pitch.unwrap_or(defaults.pitch_degrees),
    };
    let images = images.map(|size| ImageArgs { size, view, mp4 });
    let gpu_choice = GpuChoice::or_env(gpu);
    if let Some(dir) = resume {
        return resume_run(&dir, frames, images, surface, gpu_choice.as_ref());
    }
    let frames = frames.unwrap_or(60);
    let (scene, name) = load_scene(scene_path.as_ref(), integrator.as_deref(), &overrides)?;
    // Before the GPU is set up: a refused directory costs nothing and changes nothing.
    let out_dir = OutputDir::inspect(&out, overwrite)?;
    let gpu = Gpu::new_headless_on(gpu_choice.as_ref())?;
    // Emitters are sampled (mesh emitters can take a while), counted and checked against the GPU
    // before the particles are made, once.
    let filling = if std::io::stderr().is_terminal() { ProgressBar::new(0) } else { ProgressBar::hidden() };
    filling.set_style(
        ProgressStyle::with_template("{bar:40} {percent}% of emitters[{msg}]'s lattice  {elapsed} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let limits = powder::sim::capacity::device_limits(&gpu.device);
    let particles = spawn_checked(&scene, limits, &name, &mut |p| {
        filling.set_message(p.emitter.to_string());
        filling.set_length(p.total);
        filling.set_position(p.done);
    })?;
    filling.finish_and_clear();
    let solver = build_solver_with(&gpu, &scene, &particles, &name, SolverOptions::default())?;
    let particle_count = particles.len();
    drop(particles);
    // The colliders are checked before the directory is touched.
    powder::collider::set::ColliderSet::from_scene(&scene, &name)?;
    out_dir.prepare()?;
    let start = BakeStart::fresh();
    bake_frames(BakeJob {
        gpu: &gpu,
        solver,
        scene: &scene,
        name: &name,
        frames,
        checkpoint_every,
        start,
        out_dir: &out_dir,
        particle_count,
        images,
        surface,
    })
}

/// `powder run --resume DIR`: the bake in DIR continued from its checkpoint.
fn resume_run(
    dir: &std::path::Path,
    frames: Option<u32>,
    images: Option<ImageArgs>,
    surface: bool,
    gpu: Option<&GpuChoice>,
) -> Result<()> {
    let path = powder::export::checkpoint::find_checkpoint(dir)?;
    let checkpoint = powder::export::read_checkpoint(&path)?;
    let frames = frames.unwrap_or(checkpoint.frames);
    anyhow::ensure!(
        frames >= checkpoint.frame,
        "--frames {frames}: the checkpoint in {} is of frame {}; resume to that frame or later",
        dir.display(),
        checkpoint.frame
    );
    let out_dir = OutputDir::inspect(dir, true)?;
    let gpu = Gpu::new_headless_on(gpu)?;
    let (scene, solver) = powder::runner::bake::resume_solver(&gpu, &checkpoint, &path)?;
    out_dir.prepare_resume(checkpoint.frame)?;
    eprintln!("resuming {} after frame {}", dir.display(), checkpoint.frame);
    let job = BakeJob {
        gpu: &gpu,
        solver,
        scene: &scene,
        name: &checkpoint.scene_source,
        frames,
        checkpoint_every: checkpoint.checkpoint_every,
        start: BakeStart::after(&checkpoint),
        out_dir: &out_dir,
        particle_count: checkpoint.state.particles.len(),
        images,
        surface,
    };
    drop(checkpoint.state);
    bake_frames(job)
}

/// A bake ready to run: the solver made, the directory prepared.
struct BakeJob<'a> {
    gpu: &'a Gpu,
    solver: powder::sim::Solver,
    scene: &'a Scene,
    name: &'a str,
    frames: u32,
    checkpoint_every: u32,
    start: BakeStart,
    out_dir: &'a OutputDir,
    particle_count: usize,
    images: Option<ImageArgs>,
    surface: bool,
}

/// Runs a bake's frames with a progress bar and reports on it.
fn bake_frames(job: BakeJob<'_>) -> Result<()> {
    let BakeJob { gpu, solver, scene, name, frames, checkpoint_every, start, out_dir, particle_count, images, surface } =
        job;
    let mut sinks: Vec<Box<dyn FrameSink>> = Vec::new();
    if let Some(i) = images {
        sinks.push(Box::new(ImageSequence::new(gpu, scene, out_dir.path(), i.size, i.view)));
    }
    if surface {
        sinks.push(Box::new(powder::export::surface::SurfaceSequence::new(gpu, scene, out_dir.path())));
    }
    let sink: &mut dyn FrameSink = &mut sinks;
    let out = out_dir.path();
    let bar = if std::io::stderr().is_terminal() { ProgressBar::new(frames as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} frames  {elapsed} (eta {eta})  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // The run is described once frame 0 is out, so that a scene refused while the solver is set
    // up (its colliders, say) gets its one line of error and nothing else.
    bar.set_position(start.frame as u64);
    let plan = BakePlan { frames, checkpoint_every, start, sink };
    let summary = bake(gpu, solver, scene, name, plan, out_dir, |frame, stats| {
        if frame == start.frame {
            bar.suspend(|| {
                eprintln!("powder: {name}: {particle_count} particles, {frames} frames → {}", out.display());
                if start.write_first && out_dir.old_frames() > 0 {
                    eprintln!("removed the {} frames of an earlier run from {}", out_dir.old_frames(), out.display());
                }
                eprintln!("GPU: {}", gpu.describe());
            });
        } else {
            bar.inc(1);
        }
        bar.set_message(format!("max speed {:.2} m/s", stats.max_speed));
    })?;
    bar.finish_and_clear();
    let stepping = match scene.integrator {
        Integrator::Explicit => format!(
            "{} substeps, {:.3} s simulated, dt at most {:.3} × the stable dt",
            summary.substeps, summary.simulated_time, summary.max_dt_ratio
        ),
        Integrator::Pbmpm(s) => {
            let (steps, n, time) = (summary.substeps, s.iterations, summary.simulated_time);
            match (s.solver, summary.solve) {
                (powder::sim::pbmpm::PbSolver::Newton, Some(solve)) => format!(
                    "{steps} PB-MPM steps of at most {n} Newton–PCG iterations a Newton step ({:.2} a step on average), \
                     {time:.3} s simulated, largest relative residual {:.2e}",
                    solve.mean_iterations().unwrap_or(0.0),
                    solve.max_residual
                ),
                (powder::sim::pbmpm::PbSolver::Newton, None) => format!(
                    "{steps} PB-MPM steps of {n} constraint iterations (Newton–PCG needs a dense grid), {time:.3} s simulated"
                ),
                (powder::sim::pbmpm::PbSolver::Constraints, _) => {
                    format!("{steps} PB-MPM steps of {n} constraint iterations, {time:.3} s simulated")
                }
            }
        }
        Integrator::Flip(s) => format!(
            "{} water steps ({}, {} preconditioner to {:e}), {:.3} s simulated",
            summary.substeps,
            match s.transfer {
                powder::sim::water::Transfer::Apic => "APIC".to_string(),
                powder::sim::water::Transfer::PicFlip { ratio } => format!("PIC/FLIP {ratio}"),
            },
            s.pressure.preconditioner.name(),
            s.pressure.tolerance,
            summary.simulated_time
        ),
    };
    eprintln!("wrote {} frames to {} ({stepping})", summary.frames_written, out.display());
    if let Some(ImageArgs { mp4: true, .. }) = images {
        match powder::export::images::encode_mp4(out, 1.0 / scene.frame_duration())? {
            Some(video) => eprintln!("encoded the images into {}", video.display()),
            None => eprintln!("ffmpeg is not on the PATH: no mp4 (the PNG images are in {})", out.display()),
        }
    }
    if let Some(f) = &summary.fragments {
        eprintln!("frame {frames}: {}", f.summary());
    }
    if summary.frames_past_stable > 0 {
        eprintln!(
            "warning: {} frames had substeps past the stable dt of the state they stepped (up to {:.2} ×)",
            summary.frames_past_stable, summary.max_dt_ratio
        );
    }
    if summary.overflow_count > 0 {
        eprintln!(
            "warning: {} grid contributions were too large for the fixed-point format and were clamped \
             (this should not happen; please report the scene)",
            summary.overflow_count
        );
    }
    if summary.nonfinite_count > 0 {
        eprintln!("warning: {} particle updates were not finite and were reset to rest", summary.nonfinite_count);
    }
    if summary.capped_frames > 0 {
        eprintln!("warning: {} frames hit the substep cap and ran past the stable dt", summary.capped_frames);
    }
    Ok(())
}
