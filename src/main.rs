//! The `powder` command line: without a subcommand it opens the desktop app on a scene (or, with
//! `--frames N`, runs the real window for N frames, saves a screenshot and a report and exits);
//! `run` simulates a scene headless and writes PLY frames; `bench` times the solver's passes.
//! Errors become messages here, at the binary's edge.

#![warn(missing_docs)]

mod app;
mod commands;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use commands::bake::{ImageArgs, RunArgs, parse_pitch, run};
use commands::bench::{
    BenchArgs, bench, mesh_bench, parse_grid_mode, parse_order, parse_p2g, parse_path, realtime_bench, render_mode_list,
};
use powder::bench::render::RenderBenchOptions;
use powder::render::RenderMode;
use powder::scene::Scene;
use powder::sim::grid_pool::GridMode;
use powder::sim::integrator::Integrator;
use powder::sim::passes::MpmPass;
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
        Some(text) => app::run::script::parse(text).map_err(anyhow::Error::msg)?,
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
        overrides: args.overrides,
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
