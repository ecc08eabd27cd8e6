//! The `powder` command line: without a subcommand it opens the desktop app on a scene (or, with
//! `--frames N`, runs the real window for N frames, saves a screenshot and a report and exits);
//! `run` simulates a scene headless and writes PLY frames; `bench` times the solver's passes.
//! Errors become messages here, at the binary's edge.

#![warn(missing_docs)]

mod app;

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

use powder::bench::render::{RenderBenchOptions, run_render_case};
use powder::bench::{BenchCase, run_case};
use powder::export::OutputDir;
use powder::export::images::ImageSequence;
use powder::gpu::Gpu;
use powder::render::RenderMode;
use powder::runner::bake::{BakePlan, BakeStart, FrameSink, bake};
use powder::runner::{build_solver_with, spawn_checked};
use powder::scene::Scene;
use powder::sim::grid_pool::GridMode;
use powder::sim::integrator::Integrator;
use powder::sim::passes::MpmPass;
use powder::sim::solver::SolverOptions;
use powder::sim::sort::bins::SolverPath;

#[derive(Parser)]
#[command(
    name = "powder",
    version,
    about = "A snow simulator: MLS-MPM with the Stomakhin et al. 2013 snow model on the GPU",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    app: AppArgs,
}

/// Options of the desktop app (no subcommand).
#[derive(clap::Args)]
struct AppArgs {
    /// Scene file (JSON, see docs/scene-format.md), or a .glb/.gltf model to drop snow on. Without
    /// one, the built-in default scene.
    scene: Option<PathBuf>,
    /// Close after drawing this many frames (scripted runs; exit status 0 on success).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    frames: Option<u64>,
    /// Save a PNG of the 3D view after the last frame (needs --frames).
    #[arg(long, requires = "frames")]
    screenshot: Option<PathBuf>,
    /// Write a JSON summary of the final state after the last frame (needs --frames): particle
    /// count, simulated time, mean and max particle z, bounding box.
    #[arg(long, requires = "frames")]
    report: Option<PathBuf>,
    /// Override a scene value, e.g. --set material.youngs_modulus=5e4 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Window size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x800", value_parser = parse_size)]
    size: (u32, u32),
    /// How simulated time advances per frame: real-time, substeps (fixed substeps per frame) or
    /// scene-frames (1/fps of the scene per frame, as `powder run`). Default: real-time, or
    /// scene-frames with --frames.
    #[arg(long, value_parser = ["real-time", "substeps", "scene-frames"])]
    stepping: Option<String>,
    /// Start with the side panel hidden (H shows it).
    #[arg(long)]
    hide_ui: bool,
    /// Timed window actions for tests, e.g. "0.5:size=120x90;1:resize-event=0x0;2:size=640x480".
    #[arg(long, hide = true)]
    script: Option<String>,
}

fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let parsed = text.split_once('x').and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if (1..=16384).contains(&w) && (1..=16384).contains(&h) => Ok((w, h)),
        _ => Err(format!("expected WIDTHxHEIGHT with each in [1, 16384], e.g. 1280x800, not {text:?}")),
    }
}

// The command line is parsed once at startup: a large Bench variant costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Simulate a scene without a window and write each frame's particles as binary PLY files.
    Run {
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
        /// Remove the frames (frame_*.ply) an earlier run left in the output directory before
        /// writing (nothing else in it is touched).
        #[arg(long)]
        overwrite: bool,
        /// Override a scene value, e.g. --set material.youngs_modulus=5e4 (repeatable).
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
    },
    /// Count the pieces the snow of PLY frames (from `powder run`) is in: particles closer than 1.5
    /// initial spacings belong to one piece. Prints one row per file: pieces, chunks (pieces of at
    /// least 0.5 % of the mass), the largest share and the eight largest shares.
    Fragments {
        /// Frame files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The scene's initial particle spacing in metres: cell size / cbrt(particles_per_cell),
        /// e.g. 0.015625 for the default scene (2 m / 64 cells, 8 per cell).
        #[arg(long)]
        spacing: f64,
    },
    /// Time each solver pass on this GPU for blocks of snow of the given sizes.
    Bench {
        /// Particle counts, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "100000,1000000")]
        particles: Vec<u64>,
        /// Grid cells per axis: one value for all cases, or one per particle count.
        #[arg(long, value_delimiter = ',', default_value = "128")]
        grid: Vec<u32>,
        /// Timed substeps per case.
        #[arg(long, default_value_t = 200)]
        substeps: u32,
        /// Particles per cell.
        #[arg(long, default_value_t = 8)]
        ppc: u32,
        /// Substep paths to time, comma-separated: naive (one global atomic per contribution,
        /// dense grid passes), sorted (binned particles, workgroup-memory P2G, touched blocks
        /// only) and/or fused (sorted, with g2p and the next P2G in one pass, g2p2g).
        #[arg(long, value_delimiter = ',', default_value = "sorted", value_parser = parse_path)]
        path: Vec<SolverPath>,
        /// The sorted path's P2G kernels to time, comma-separated: p2g_tiled, p2g_tiled_subgroup,
        /// p2g_gather. Default: the one the solver picks for this GPU.
        #[arg(long, value_delimiter = ',', value_parser = parse_p2g)]
        p2g: Vec<MpmPass>,
        /// Also time whole app frames offscreen (substeps + rendering at --size), per render mode.
        #[arg(long)]
        render: bool,
        /// Substeps per rendered frame with --render.
        #[arg(long, default_value_t = 10)]
        frame_substeps: u32,
        /// With --render: the render modes to time, comma-separated, in this order (name one again
        /// to time it again, e.g. volume,surface,volume,surface). Default: all four.
        #[arg(long, value_delimiter = ',', value_parser = RenderMode::NAMES, requires = "render")]
        render_modes: Vec<String>,
        /// With --render: frames timed per mode (medians of these, after 3 warm-up frames).
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=10_000), requires = "render")]
        render_frames: u32,
        /// Output size with --render, WxH.
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: (u32, u32),
        /// Build the MPM kernels from DIR/mpm/*.wgsl (a copy of shaders/, edited) instead of the
        /// built-in sources, to time an edited kernel without rebuilding.
        #[arg(long, value_name = "DIR")]
        shaders: Option<PathBuf>,
        /// Initial particle orders to time, comma-separated: lattice (the emitter's order, which
        /// keeps neighbours in space near in memory) and/or shuffled (a random order: snow that
        /// has mixed).
        #[arg(long, value_delimiter = ',', default_value = "lattice", value_parser = parse_order)]
        order: Vec<bool>,
        /// Substeps between reorders of the particles into block order on the sorted and fused
        /// paths, comma-separated (0: never). Default: the solver's.
        #[arg(long, value_delimiter = ',')]
        reorder: Vec<u32>,
        /// Split the particles into pages of at most this many (default: as many as fit one
        /// storage binding, so one page below tens of millions): times the paged solver on
        /// counts that would fit one page.
        #[arg(long, value_name = "N")]
        page_particles: Option<u32>,
        /// How the grid is stored: dense (every node of the domain), sparse (a pool of the blocks
        /// the snow touches; sorted path only) or auto (dense while it fits the GPU).
        #[arg(long, default_value = "auto", value_parser = parse_grid_mode)]
        grid_storage: GridMode,
        /// Time the collider SDF build instead (CPU): a bumpy closed mesh of this many triangles
        /// on a grid of --grid cells per axis, static and per animated frame, and the reuse of a
        /// frame's end field as the next frame's start.
        #[arg(long, value_name = "TRIANGLES")]
        sdf: Option<usize>,
        /// Time a mesh emitter's fill instead (CPU): a bumpy closed mesh of this many triangles,
        /// and the same mesh with a hole, at 8 particles per cell on a grid of --grid cells per
        /// axis (default 64).
        #[arg(long, value_name = "TRIANGLES", conflicts_with = "sdf")]
        emitter: Option<usize>,
        /// Time whole app frames of a scene instead: each frame simulates 1/60 s with the scene's
        /// integrator (or each of --integrator) and draws it offscreen at --size (--render-mode);
        /// reports frames per second and simulated seconds per wall second.
        #[arg(long, conflicts_with_all = ["sdf", "emitter"])]
        realtime: bool,
        /// With --realtime: the scene file (default: the built-in default scene).
        #[arg(long, requires = "realtime")]
        scene: Option<PathBuf>,
        /// With --realtime: integrators to time, comma-separated (explicit, pbmpm). Default: the
        /// scene's.
        #[arg(long, value_delimiter = ',', value_parser = Integrator::NAMES, requires = "realtime")]
        integrator: Vec<String>,
        /// With --realtime: timed frames.
        #[arg(long, default_value_t = 120, requires = "realtime")]
        frames: u32,
        /// With --realtime: override a scene value, e.g. --set grid.resolution=128 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE", requires = "realtime")]
        overrides: Vec<String>,
        /// With --realtime: what the frames draw (the app's render modes).
        #[arg(long, default_value = "surface", value_parser = RenderMode::NAMES, requires = "realtime")]
        render_mode: String,
    },
}

/// `scene` with its integrator switched to the one called `name` (its settings kept where the kind
/// stays the same).
fn with_integrator(mut scene: Scene, name: Option<&str>) -> Scene {
    if let Some(name) = name
        && scene.integrator.name() != name
    {
        scene.integrator = Integrator::from_name(name).expect("clap checked the name");
    }
    scene
}

/// `powder bench --realtime`: app frames of the scene with each integrator asked for.
fn realtime_bench(
    path: Option<&PathBuf>,
    integrators: &[String],
    frames: u32,
    overrides: &[String],
    (width, height): (u32, u32),
    mode: RenderMode,
) -> Result<()> {
    anyhow::ensure!((1..=100_000).contains(&frames), "--frames must be in [1, 100000]");
    let (scene, _) = load_scene(path, overrides)?;
    let gpu = Gpu::new_headless()?;
    println!("GPU: {}", gpu.describe());
    let names: Vec<Option<&str>> =
        if integrators.is_empty() { vec![None] } else { integrators.iter().map(|n| Some(n.as_str())).collect() };
    for name in names {
        let scene = with_integrator(scene.clone(), name);
        let result = powder::bench::realtime::run_realtime(&gpu, &scene, frames, (width, height), mode)?;
        println!("{}", result.report(width, height));
    }
    Ok(())
}

fn load_scene(path: Option<&PathBuf>, overrides: &[String]) -> Result<(Scene, String)> {
    let (mut scene, name) = match path {
        Some(p) => (Scene::open(p)?, p.display().to_string()),
        None => (Scene::builtin_default(), "built-in default scene".to_string()),
    };
    for item in overrides {
        let (key, value) = item
            .split_once('=')
            .with_context(|| format!("--set {item}: expected KEY=VALUE, e.g. material.youngs_modulus=5e4"))?;
        scene.set_value(key.trim(), value.trim(), &format!("{name} (--set {item})"))?;
    }
    Ok((scene, name))
}

/// What `powder run` was asked to do.
struct RunArgs {
    scene: Option<PathBuf>,
    frames: Option<u32>,
    out: PathBuf,
    overwrite: bool,
    overrides: Vec<String>,
    integrator: Option<String>,
    checkpoint_every: u32,
    resume: Option<PathBuf>,
    images: Option<ImageArgs>,
    surface: bool,
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

fn run(args: RunArgs) -> Result<()> {
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
        surface,
    } = args;
    if let Some(dir) = resume {
        return resume_run(&dir, frames, images, surface);
    }
    let frames = frames.unwrap_or(60);
    let (scene, name) = load_scene(scene_path.as_ref(), &overrides)?;
    let scene = with_integrator(scene, integrator.as_deref());
    // Before the GPU is set up: a refused directory costs nothing and changes nothing.
    let out_dir = OutputDir::inspect(&out, overwrite)?;
    let gpu = Gpu::new_headless()?;
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
fn resume_run(dir: &std::path::Path, frames: Option<u32>, images: Option<ImageArgs>, surface: bool) -> Result<()> {
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
    let gpu = Gpu::new_headless()?;
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
        Integrator::Pbmpm(s) => format!(
            "{} PB-MPM steps of {} iterations, {:.3} s simulated",
            summary.substeps, s.iterations, summary.simulated_time
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

/// What `powder bench` was asked to do.
struct BenchArgs {
    particles: Vec<u64>,
    grid: Vec<u32>,
    substeps: u32,
    ppc: u32,
    paths: Vec<SolverPath>,
    p2g: Vec<MpmPass>,
    render: Option<RenderBenchOptions>,
    /// The modes `--render` times, in order.
    render_modes: Vec<RenderMode>,
    shaders: Option<PathBuf>,
    /// `true` for a shuffled particle order, per value of `--order`.
    orders: Vec<bool>,
    reorder: Vec<u32>,
    page_particles: Option<u32>,
    grid_mode: GridMode,
}

/// The modes `--render-modes` names (clap checked each name), or all four when it names none.
fn render_mode_list(names: &[String]) -> Vec<RenderMode> {
    if names.is_empty() {
        return RenderMode::ALL.to_vec();
    }
    names.iter().map(|n| RenderMode::from_name(n).expect("clap checked the name")).collect()
}

fn parse_grid_mode(name: &str) -> Result<GridMode, String> {
    GridMode::from_name(name).ok_or_else(|| format!("{name:?} is not dense, sparse or auto"))
}

fn bench(args: BenchArgs) -> Result<()> {
    let BenchArgs {
        particles,
        grid,
        substeps,
        ppc,
        paths,
        p2g,
        render,
        render_modes,
        shaders,
        orders,
        reorder,
        page_particles,
        grid_mode,
    } = args;
    anyhow::ensure!(
        grid.len() == 1 || grid.len() == particles.len(),
        "--grid takes one value or one per --particles value ({} given for {} cases)",
        grid.len(),
        particles.len()
    );
    anyhow::ensure!((1..=100_000).contains(&substeps), "--substeps must be in [1, 100000]");
    // The bench's scene takes the grid as its grid.resolution, whose range the scene format sets.
    if let Some(bad) = grid.iter().find(|&&g| !(4..=1024).contains(&g)) {
        anyhow::bail!("--grid {bad} is out of range: grid.resolution must be in [4, 1024]");
    }
    let gpu = Gpu::new_headless()?;
    println!("GPU: {}", gpu.describe());
    for (i, &count) in particles.iter().enumerate() {
        let mut case = BenchCase {
            particles: count,
            grid: if grid.len() == 1 { grid[0] } else { grid[i] },
            substeps,
            particles_per_cell: ppc,
            path: paths[0],
            p2g: None,
            shuffled: orders[0],
            reorder: reorder.first().copied(),
            page_particles,
            grid_mode,
        };
        for &shuffled in &orders {
            case.shuffled = shuffled;
            for &path in &paths {
                case.path = path;
                let kernels: Vec<Option<MpmPass>> = match path {
                    SolverPath::Sorted if !p2g.is_empty() => p2g.iter().copied().map(Some).collect(),
                    _ => vec![None],
                };
                // The naive path never reorders: one case for it.
                let intervals: Vec<Option<u32>> = match path {
                    SolverPath::Naive => vec![None],
                    _ if reorder.is_empty() => vec![None],
                    _ => reorder.iter().copied().map(Some).collect(),
                };
                for kernel in kernels {
                    case.p2g = kernel;
                    for &interval in &intervals {
                        case.reorder = interval;
                        let result = run_case(&gpu, case, shaders.as_deref())?;
                        println!("{}", result.report());
                    }
                }
            }
        }
        case.p2g = None;
        case.shuffled = orders[0];
        case.reorder = reorder.first().copied();
        if let Some(options) = &render {
            for r in run_render_case(&gpu, &case, options, &render_modes)? {
                println!("{}", r.report(options));
            }
            println!();
        }
    }
    Ok(())
}

fn parse_p2g(name: &str) -> Result<MpmPass, String> {
    MpmPass::sorted_p2g_named(name)
        .ok_or_else(|| format!("unknown P2G kernel {name:?}: expected p2g_tiled, p2g_tiled_subgroup or p2g_gather"))
}

fn parse_order(name: &str) -> Result<bool, String> {
    match name {
        "lattice" => Ok(false),
        "shuffled" => Ok(true),
        _ => Err(format!("unknown order {name:?}: expected lattice or shuffled")),
    }
}

fn parse_path(name: &str) -> Result<SolverPath, String> {
    SolverPath::from_name(name).ok_or_else(|| format!("unknown path {name:?}: expected naive, sorted or fused"))
}

fn main() -> std::process::ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            eprintln!("error: {}", clap_one_line(&e.render().to_string()));
            return std::process::ExitCode::from(2);
        }
    };
    if cli.command.is_some() {
        skip_display_probe();
    }
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match dispatch(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            // One clear line, no backtrace for a user's mistake.
            eprintln!("error: {}", one_line(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// clap's message for a command line it refuses, as one line: the error and its tips, without
/// the usage block and the pointer to --help that clap spreads over five or six lines.
fn clap_one_line(rendered: &str) -> String {
    let mut text = String::new();
    let mut in_usage = false;
    for line in rendered.lines().map(str::trim) {
        in_usage = (in_usage || line.starts_with("Usage:")) && !line.is_empty();
        if in_usage || line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        // A list after "...provided:" continues its sentence; anything else (a tip) is a new one.
        let separator = if text.is_empty() {
            ""
        } else if text.ends_with(':') {
            " "
        } else {
            "; "
        };
        text = format!("{text}{separator}{}", line.strip_prefix("error: ").unwrap_or(line));
    }
    format!("{text} (see --help)")
}

/// Keeps `run` and `bench` from probing the window system. wgpu enables every surface extension on
/// its Vulkan instance, windowless or not, and Mesa's implicit device-select layer, seeing
/// `VK_KHR_wayland_surface` enabled, connects to Wayland on each device enumeration to find the
/// compositor's GPU: with no `XDG_RUNTIME_DIR` (ssh sessions, CI, containers) libwayland prints
/// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." twice. The headless commands
/// never present, and wgpu picks their adapter by power preference (a discrete GPU first; the
/// layer's order only breaks ties), so the layer is switched off through the switch its manifest
/// defines (`NODEVICE_SELECT=1`), unless the user has asked it for a device
/// (`MESA_VK_DEVICE_SELECT`, `DRI_PRIME`) or set the switch. The app keeps the layer: it presents.
fn skip_display_probe() {
    let asked = ["NODEVICE_SELECT", "MESA_VK_DEVICE_SELECT", "MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE", "DRI_PRIME"];
    if asked.iter().any(|name| std::env::var_os(name).is_some()) {
        return;
    }
    // SAFETY: called from `main` before anything has started a thread (clap and the environment
    // reads above do not), so nothing can be reading the environment concurrently.
    unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
}

/// The error and its causes joined by ": ", leaving out a cause whose text the line already
/// holds: most of our errors carry their cause in their own message (file, field, allowed range),
/// and anyhow's `{:#}` would print it twice.
fn one_line(e: &anyhow::Error) -> String {
    let mut line = e.to_string();
    for cause in e.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line = format!("{line}: {text}");
        }
    }
    line
}

/// A CPU benchmark of a mesh of `triangles` triangles on a grid of `grid[0]` cells per axis
/// (`default` without one): the ranges checked, the report printed.
fn mesh_bench<R: std::fmt::Display>(
    flag: &str,
    triangles: usize,
    grid: &[u32],
    default: u32,
    bench: fn(usize, u32) -> R,
) -> Result<()> {
    anyhow::ensure!((1..=10_000_000).contains(&triangles), "{flag} must be in [1, 10000000] triangles");
    let resolution = grid.first().copied().unwrap_or(default);
    anyhow::ensure!((4..=512).contains(&resolution), "--grid must be in [4, 512] for {flag}");
    print!("{}", bench(triangles, resolution));
    Ok(())
}

fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Some(Command::Run {
            scene,
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
        }) => {
            let defaults = powder::export::images::ImageCamera::default();
            let view = powder::export::images::ImageCamera {
                yaw_degrees: camera_yaw.unwrap_or(defaults.yaw_degrees),
                pitch_degrees: camera_pitch.unwrap_or(defaults.pitch_degrees),
            };
            let images = images.map(|size| ImageArgs { size, view, mp4 });
            run(RunArgs {
                scene,
                frames,
                out,
                overwrite,
                overrides,
                integrator,
                checkpoint_every,
                resume,
                images,
                surface,
            })
        }
        Some(Command::Fragments { files, spacing }) => {
            print!("{}", powder::fragments::frame_table(&files, spacing)?);
            Ok(())
        }
        Some(Command::Bench { sdf: Some(triangles), grid, .. }) => {
            mesh_bench("--sdf", triangles, &grid, 128, powder::bench::sdf::sdf_benchmark)
        }
        Some(Command::Bench { emitter: Some(triangles), grid, .. }) => {
            mesh_bench("--emitter", triangles, &grid, 64, powder::bench::emitter::emitter_benchmark)
        }
        Some(Command::Bench { realtime: true, scene, integrator, frames, overrides, size, render_mode, .. }) => {
            let mode = RenderMode::from_name(&render_mode).expect("clap checked the name");
            realtime_bench(scene.as_ref(), &integrator, frames, &overrides, size, mode)
        }
        Some(Command::Bench {
            particles,
            grid,
            substeps,
            ppc,
            path,
            p2g,
            render,
            frame_substeps,
            render_modes,
            render_frames,
            size,
            shaders,
            order,
            reorder,
            page_particles,
            grid_storage,
            sdf: None,
            emitter: None,
            ..
        }) => {
            let render = if render {
                let (width, height) = size;
                Some(RenderBenchOptions { frames: render_frames, substeps_per_frame: frame_substeps, width, height })
            } else {
                None
            };
            bench(BenchArgs {
                particles,
                grid,
                substeps,
                ppc,
                paths: path,
                p2g,
                render,
                render_modes: render_mode_list(&render_modes),
                shaders,
                orders: order,
                reorder,
                page_particles,
                grid_mode: grid_storage,
            })
        }
        None => open_app(cli.app),
    }
}

fn open_app(args: AppArgs) -> Result<()> {
    let (scene, scene_name) = load_scene(args.scene.as_ref(), &args.overrides)?;
    let step_mode = match args.stepping.as_deref() {
        Some("substeps") => app::events::StepMode::FixedSubsteps,
        Some("scene-frames") => app::events::StepMode::SceneFrames,
        Some(_) => app::events::StepMode::RealTime,
        None if args.frames.is_some() => app::events::StepMode::SceneFrames,
        None => app::events::StepMode::RealTime,
    };
    let script = match &args.script {
        Some(text) => app::script::parse(text).map_err(anyhow::Error::msg)?,
        None => Vec::new(),
    };
    app::run_app(app::AppOptions {
        scene,
        scene_name,
        window_size: args.size,
        frames: args.frames,
        screenshot: args.screenshot,
        report: args.report,
        step_mode,
        show_ui: !args.hide_ui,
        script,
    })
}

#[cfg(test)]
mod tests {
    use super::{Cli, Command, RenderMode, one_line, render_mode_list};
    use clap::Parser;

    /// `--render-modes` as `bench --render` receives it: the modes in the order given, repeats
    /// kept; all four when absent; refused without --render or with an unknown name.
    #[test]
    fn render_modes_keep_their_order_and_repeats() {
        let modes = |args: &[&str]| match Cli::try_parse_from(args).map(|c| c.command) {
            Ok(Some(Command::Bench { render_modes, render_frames, .. })) => {
                Ok((render_mode_list(&render_modes), render_frames))
            }
            Ok(_) => panic!("not a bench command"),
            Err(e) => Err(e.kind()),
        };
        let given =
            modes(&["powder", "bench", "--render", "--render-modes", "volume,surface,volume", "--render-frames", "60"]);
        assert_eq!(given, Ok((vec![RenderMode::Volume, RenderMode::Surface, RenderMode::Volume], 60)));
        assert_eq!(modes(&["powder", "bench", "--render"]), Ok((RenderMode::ALL.to_vec(), 30)));
        assert_eq!(
            modes(&["powder", "bench", "--render-modes", "volume"]),
            Err(clap::error::ErrorKind::MissingRequiredArgument)
        );
        assert_eq!(
            modes(&["powder", "bench", "--render", "--render-modes", "fog"]),
            Err(clap::error::ErrorKind::InvalidValue)
        );
        assert_eq!(
            modes(&["powder", "bench", "--render", "--render-frames", "0"]),
            Err(clap::error::ErrorKind::ValueValidation)
        );
    }

    #[derive(Debug, thiserror::Error)]
    #[error("scene.json: {source}")]
    struct Carries {
        source: std::io::Error,
    }

    #[test]
    fn an_error_is_one_line_with_each_cause_once() {
        let inner = || std::io::Error::other("grid.resolution must be in [8, 512]");
        // The cause is in the message already: not repeated.
        let e = anyhow::Error::new(Carries { source: inner() });
        assert_eq!(one_line(&e), "scene.json: grid.resolution must be in [8, 512]");
        // Context added on top of an error that carries its cause: each text once, outermost first.
        let e = anyhow::Error::new(Carries { source: inner() }).context("bench");
        assert_eq!(one_line(&e), "bench: scene.json: grid.resolution must be in [8, 512]");
        // A cause not in the message is appended.
        let e = anyhow::Error::new(inner()).context("--set x=1");
        assert_eq!(one_line(&e), "--set x=1: grid.resolution must be in [8, 512]");
    }
}
