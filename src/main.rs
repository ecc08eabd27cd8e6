//! The `powder` command line: without a subcommand it opens the desktop app on a scene (or, with
//! `--frames N`, runs the real window for N frames, saves a screenshot and a report and exits);
//! `run` simulates a scene headless and writes PLY frames; `bench` times the solver's passes;
//! `adapters` lists the GPU adapters `--gpu` chooses from. Each subcommand's arguments and work are
//! in its file of `commands/`.
//! Errors become messages here, at the binary's edge.

#![warn(missing_docs)]

mod app;
mod commands;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

use commands::bake::RunArgs;
use commands::bench::BenchCli;
use commands::common::{GPU_HELP, load_scene, parse_gpu, parse_size};
use powder::gpu::GpuChoice;

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
    #[arg(long, value_name = "INDEX|NAME", value_parser = parse_gpu, help = GPU_HELP)]
    gpu: Option<GpuChoice>,
}

// The command line is parsed once at startup: a large Bench variant costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Simulate a scene without a window and write each frame's particles as binary PLY files.
    Run(RunArgs),
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
    Bench(BenchCli),
    /// List the GPU adapters (index, name, backend, device type) in the order --gpu INDEX counts
    /// them.
    Adapters,
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
        Some(Command::Run(args)) => commands::bake::run(args),
        Some(Command::Fragments { files, spacing }) => {
            print!("{}", powder::fragments::frame_table(&files, spacing)?);
            Ok(())
        }
        Some(Command::Bench(args)) => commands::bench::dispatch(args),
        Some(Command::Adapters) => commands::adapters::list(),
        None => open_app(cli.app),
    }
}

fn open_app(args: AppArgs) -> Result<()> {
    let (scene, scene_name) = load_scene(args.scene.as_ref(), None, &args.overrides)?;
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
        gpu: GpuChoice::or_env(args.gpu),
        overrides: args.overrides,
    })
}

#[cfg(test)]
mod tests {
    use super::one_line;

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
