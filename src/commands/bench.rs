//! `powder bench`: the solver's passes and whole frames timed on this machine's GPU, the
//! real-time app frames of a scene (`--realtime`), and the CPU's mesh benchmarks (`--sdf`,
//! `--emitter`).

use std::path::PathBuf;

use anyhow::Result;
use powder::bench::render::{RenderBenchOptions, run_render_case};
use powder::bench::{BenchCase, run_case};
use powder::gpu::{Gpu, GpuChoice};
use powder::render::RenderMode;
use powder::sim::grid_pool::GridMode;
use powder::sim::integrator::Integrator;
use powder::sim::passes::MpmPass;
use powder::sim::pressure::Preconditioner;
use powder::sim::sort::bins::SolverPath;

use super::common::{GPU_HELP, change_scene, open_scene, parse_gpu, parse_size};

/// `powder bench`: time each solver pass on this GPU for blocks of snow of the given sizes.
#[derive(clap::Args)]
pub struct BenchCli {
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
    /// Material presets the block is made of, comma-separated (docs/materials.md: e.g.
    /// reference_snow, jelly, dry_sand, water, honey)
    #[arg(long, value_delimiter = ',', default_value = "reference_snow", value_parser = parse_material)]
    material: Vec<&'static str>,
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
    /// reports frames per second and simulated seconds per wall second; for PB-MPM also the cost of
    /// an iteration and, where the GPU has timestamps, a step pass by pass.
    #[arg(long, conflicts_with_all = ["sdf", "emitter"])]
    realtime: bool,
    /// Time the pressure solve on the GPU instead: each preconditioner on the fixed tank problem
    /// (liquid around a submerged sphere, docs/water.md) of --grid cells a side, to a relative
    /// residual of 1e-5: iterations, GPU time of a solve and of an iteration.
    #[arg(long, conflicts_with_all = ["sdf", "emitter", "realtime"])]
    pressure: bool,
    /// Time the water step on the GPU instead: a dam break in a tank of --grid cells along x
    /// (half that across and up; 0.64 · grid³ particles), frames of 1/60 s in steps at the CFL
    /// limit, with the default water settings (or --preconditioner's first); nothing drawn.
    #[arg(long, conflicts_with_all = ["sdf", "emitter", "realtime", "pressure"])]
    water: bool,
    /// With --pressure: preconditioners to time, comma-separated (none, jacobi,
    /// incomplete_poisson, mic0, multigrid). Default: all. With --water: the solve's
    /// preconditioner (default multigrid).
    #[arg(long, value_delimiter = ',', value_parser = parse_preconditioner)]
    preconditioner: Vec<Preconditioner>,
    /// With --realtime: the scene file (default: the built-in default scene).
    #[arg(long, requires = "realtime")]
    scene: Option<PathBuf>,
    /// With --realtime: integrators to time, comma-separated (explicit, pbmpm). Default: the
    /// scene's.
    #[arg(long, value_delimiter = ',', value_parser = Integrator::NAMES, requires = "realtime")]
    integrator: Vec<String>,
    /// With --realtime or --water: timed frames.
    #[arg(long, default_value_t = 120)]
    frames: u32,
    /// With --realtime: override a scene value, e.g. --set grid.resolution=128 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "realtime")]
    overrides: Vec<String>,
    /// With --realtime: what the frames draw (the app's render modes).
    #[arg(long, default_value = "surface", value_parser = RenderMode::NAMES, requires = "realtime")]
    render_mode: String,
    #[arg(long, value_name = "INDEX|NAME", value_parser = parse_gpu, help = GPU_HELP)]
    gpu: Option<GpuChoice>,
}

/// Runs `powder bench`: the CPU mesh benchmarks (`--sdf`, `--emitter`), app frames of a scene
/// (`--realtime`), or the solver's passes (and with `--render` whole frames).
pub fn dispatch(args: BenchCli) -> Result<()> {
    let gpu = GpuChoice::or_env(args.gpu.clone());
    if let Some(triangles) = args.sdf {
        return mesh_bench("--sdf", triangles, &args.grid, 128, powder::bench::sdf::sdf_benchmark);
    }
    if let Some(triangles) = args.emitter {
        return mesh_bench("--emitter", triangles, &args.grid, 64, powder::bench::emitter::emitter_benchmark);
    }
    if args.pressure {
        return pressure_bench(&args.grid, &args.preconditioner, gpu);
    }
    if args.water {
        return water_bench(&args.grid, args.preconditioner.first().copied(), args.frames, gpu);
    }
    if args.realtime {
        let mode = RenderMode::from_name(&args.render_mode).expect("clap checked the name");
        let frames = RealtimeArgs { frames: args.frames, size: args.size, mode, gpu };
        return realtime_bench(args.scene.as_ref(), &args.integrator, &args.overrides, frames);
    }
    let render = args.render.then_some(RenderBenchOptions {
        frames: args.render_frames,
        substeps_per_frame: args.frame_substeps,
        width: args.size.0,
        height: args.size.1,
    });
    bench(BenchArgs {
        particles: args.particles,
        grid: args.grid,
        substeps: args.substeps,
        ppc: args.ppc,
        paths: args.path,
        p2g: args.p2g,
        render,
        render_modes: render_mode_list(&args.render_modes),
        shaders: args.shaders,
        orders: args.order,
        reorder: args.reorder,
        materials: args.material,
        page_particles: args.page_particles,
        grid_mode: args.grid_storage,
        gpu,
    })
}

/// `powder bench --pressure`: the pressure solve at each --grid size.
fn pressure_bench(grids: &[u32], preconditioners: &[Preconditioner], gpu: Option<GpuChoice>) -> Result<()> {
    anyhow::ensure!(grids.iter().all(|n| (4..=512).contains(n)), "--grid must be in [4, 512] with --pressure");
    let gpu = Gpu::new_headless_on(gpu.as_ref())?;
    println!("GPU: {}", gpu.describe());
    let all = if preconditioners.is_empty() { Preconditioner::ALL.to_vec() } else { preconditioners.to_vec() };
    for &n in grids {
        println!("{}", powder::bench::pressure::pressure_benchmark(&gpu, n as usize, &all)?);
    }
    Ok(())
}

/// `powder bench --water`: the water step's dam break at each --grid size.
fn water_bench(
    grids: &[u32],
    preconditioner: Option<Preconditioner>,
    frames: u32,
    gpu: Option<GpuChoice>,
) -> Result<()> {
    anyhow::ensure!(grids.iter().all(|n| (8..=256).contains(n)), "--grid must be in [8, 256] with --water");
    anyhow::ensure!((1..=10_000).contains(&frames), "--frames must be in [1, 10000] with --water");
    let gpu = Gpu::new_headless_on(gpu.as_ref())?;
    println!("GPU: {}", gpu.describe());
    let mut settings = powder::sim::water::WaterSettings::default();
    if let Some(kind) = preconditioner {
        settings.pressure.preconditioner = kind;
    }
    for &n in grids {
        println!("{}", powder::bench::water::water_benchmark(&gpu, n as usize, frames, settings)?);
    }
    Ok(())
}

/// A preconditioner by name (`--preconditioner`).
fn parse_preconditioner(name: &str) -> Result<Preconditioner, String> {
    Preconditioner::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Preconditioner::ALL.iter().map(|p| p.name()).collect();
        format!("no preconditioner '{name}'; one of: {}", names.join(", "))
    })
}

/// What `powder bench --realtime` times besides the scene: frames, output size, render mode, GPU.
struct RealtimeArgs {
    frames: u32,
    size: (u32, u32),
    mode: RenderMode,
    gpu: Option<GpuChoice>,
}

/// `powder bench --realtime`: app frames of the scene with each integrator asked for.
fn realtime_bench(
    path: Option<&PathBuf>,
    integrators: &[String],
    overrides: &[String],
    args: RealtimeArgs,
) -> Result<()> {
    let RealtimeArgs { frames, size: (width, height), mode, gpu } = args;
    anyhow::ensure!((1..=100_000).contains(&frames), "--frames must be in [1, 100000]");
    let (scene, name) = open_scene(path)?;
    let gpu = Gpu::new_headless_on(gpu.as_ref())?;
    println!("GPU: {}", gpu.describe());
    let names: Vec<Option<&str>> =
        if integrators.is_empty() { vec![None] } else { integrators.iter().map(|n| Some(n.as_str())).collect() };
    for integrator in names {
        // The integrator is switched before the overrides, so --set integrator.* reaches it.
        let scene = change_scene(scene.clone(), &name, integrator, overrides)?;
        let result = powder::bench::realtime::run_realtime(&gpu, &scene, frames, (width, height), mode)?;
        println!("{}", result.report(width, height));
    }
    Ok(())
}

/// What `powder bench` (without --sdf, --emitter or --realtime) was asked to do.
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
    /// Preset ids, one case each.
    materials: Vec<&'static str>,
    page_particles: Option<u32>,
    grid_mode: GridMode,
    gpu: Option<GpuChoice>,
}

/// The modes `--render-modes` names (clap checked each name), or all four when it names none.
pub fn render_mode_list(names: &[String]) -> Vec<RenderMode> {
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
        materials,
        page_particles,
        grid_mode,
        gpu,
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
    let gpu = Gpu::new_headless_on(gpu.as_ref())?;
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
            material: materials[0],
        };
        for (&shuffled, &material) in orders.iter().flat_map(|o| materials.iter().map(move |m| (o, m))) {
            case.material = material;
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
        case.material = materials[0];
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

/// A preset's id as `--material` names it.
fn parse_material(id: &str) -> Result<&'static str, String> {
    let presets = powder::sim::presets::material_presets();
    presets.iter().find(|p| p.id == id).map(|p| p.id).ok_or_else(|| {
        let known: Vec<&str> = presets.iter().map(|p| p.id).collect();
        format!("{id:?} is not a material preset; one of {}", known.join(", "))
    })
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::{BenchCli, RenderMode, render_mode_list};

    /// `powder bench`'s arguments alone.
    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        bench: BenchCli,
    }

    /// `--render-modes` as `bench --render` receives it: the modes in the order given, repeats
    /// kept; all four when absent; refused without --render or with an unknown name.
    #[test]
    fn render_modes_keep_their_order_and_repeats() {
        let modes = |args: &[&str]| match Probe::try_parse_from(args) {
            Ok(Probe { bench }) => Ok((render_mode_list(&bench.render_modes), bench.render_frames)),
            Err(e) => Err(e.kind()),
        };
        let given = modes(&["bench", "--render", "--render-modes", "volume,surface,volume", "--render-frames", "60"]);
        assert_eq!(given, Ok((vec![RenderMode::Volume, RenderMode::Surface, RenderMode::Volume], 60)));
        assert_eq!(modes(&["bench", "--render"]), Ok((RenderMode::ALL.to_vec(), 30)));
        assert_eq!(modes(&["bench", "--render-modes", "volume"]), Err(clap::error::ErrorKind::MissingRequiredArgument));
        assert_eq!(modes(&["bench", "--render", "--render-modes", "fog"]), Err(clap::error::ErrorKind::InvalidValue));
        assert_eq!(modes(&["bench", "--render", "--render-frames", "0"]), Err(clap::error::ErrorKind::ValueValidation));
    }
}
