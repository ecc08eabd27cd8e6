//! `powder bench`: the solver's passes and whole frames timed on this machine's GPU, the
//! real-time app frames of a scene (`--realtime`), and the CPU's mesh benchmarks (`--sdf`,
//! `--emitter`).

use std::path::PathBuf;

use anyhow::Result;
use powder::bench::render::{RenderBenchOptions, run_render_case};
use powder::bench::{BenchCase, run_case};
use powder::gpu::Gpu;
use powder::render::RenderMode;
use powder::sim::grid_pool::GridMode;
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;

use crate::{load_scene, with_integrator};

/// `powder bench --realtime`: app frames of the scene with each integrator asked for.
pub(crate) fn realtime_bench(
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

/// What `powder bench` was asked to do.
pub(crate) struct BenchArgs {
    pub(crate) particles: Vec<u64>,
    pub(crate) grid: Vec<u32>,
    pub(crate) substeps: u32,
    pub(crate) ppc: u32,
    pub(crate) paths: Vec<SolverPath>,
    pub(crate) p2g: Vec<MpmPass>,
    pub(crate) render: Option<RenderBenchOptions>,
    /// The modes `--render` times, in order.
    pub(crate) render_modes: Vec<RenderMode>,
    pub(crate) shaders: Option<PathBuf>,
    /// `true` for a shuffled particle order, per value of `--order`.
    pub(crate) orders: Vec<bool>,
    pub(crate) reorder: Vec<u32>,
    pub(crate) page_particles: Option<u32>,
    pub(crate) grid_mode: GridMode,
}

/// The modes `--render-modes` names (clap checked each name), or all four when it names none.
pub(crate) fn render_mode_list(names: &[String]) -> Vec<RenderMode> {
    if names.is_empty() {
        return RenderMode::ALL.to_vec();
    }
    names.iter().map(|n| RenderMode::from_name(n).expect("clap checked the name")).collect()
}

pub(crate) fn parse_grid_mode(name: &str) -> Result<GridMode, String> {
    GridMode::from_name(name).ok_or_else(|| format!("{name:?} is not dense, sparse or auto"))
}

pub(crate) fn bench(args: BenchArgs) -> Result<()> {
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

pub(crate) fn parse_p2g(name: &str) -> Result<MpmPass, String> {
    MpmPass::sorted_p2g_named(name)
        .ok_or_else(|| format!("unknown P2G kernel {name:?}: expected p2g_tiled, p2g_tiled_subgroup or p2g_gather"))
}

pub(crate) fn parse_order(name: &str) -> Result<bool, String> {
    match name {
        "lattice" => Ok(false),
        "shuffled" => Ok(true),
        _ => Err(format!("unknown order {name:?}: expected lattice or shuffled")),
    }
}

pub(crate) fn parse_path(name: &str) -> Result<SolverPath, String> {
    SolverPath::from_name(name).ok_or_else(|| format!("unknown path {name:?}: expected naive, sorted or fused"))
}

/// A CPU benchmark of a mesh of `triangles` triangles on a grid of `grid[0]` cells per axis
/// (`default` without one): the ranges checked, the report printed.
pub(crate) fn mesh_bench<R: std::fmt::Display>(
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
