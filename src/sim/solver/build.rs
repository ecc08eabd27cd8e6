//! Building a [`Solver`]: the one construction path ([`Solver::with_options`]), and the choices it
//! makes for a device (path, P2G kernel, dense or sparse grid).

use super::error::SolverError;
use super::state::Solver;
use crate::gpu::Gpu;
use crate::sim::grid_pool::{GridMode, GridStorage};
use crate::sim::integrator::Integrator;
use crate::sim::interaction::Interaction;
use crate::sim::page::{ParticlePage, StateError, StateOptions};
use crate::sim::params::{GpuParticle, SolverParams};
use crate::sim::passes::MpmPass;
use crate::sim::pipelines::Kernels;
use crate::sim::sort::bins::SolverPath;

/// How a new solver stores its particles and grid. The defaults suit every scene; tests and
/// benchmarks set them to run the paged solver or the sparse grid on small scenes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverOptions {
    /// Particles per page at most (`None`: as many as fit one binding). Smaller pages than the
    /// device needs cost time.
    pub page_capacity: Option<u32>,
    /// Dense, sparse (a pool of blocks, [`crate::sim::grid_pool`]) or [`GridMode::Auto`]: dense
    /// while the dense grid fits the GPU, else sparse.
    pub grid_mode: GridMode,
    /// The scene has colliders. Their fields cover the whole domain whatever the grid's storage,
    /// so the solver refuses a grid (now or on [`Solver::rebuild_grid`]) whose fields do not fit.
    pub colliders: bool,
    /// The integrator that steps the snow ([`Solver::set_integrator`] changes it later).
    pub integrator: Integrator,
}

impl Default for SolverOptions {
    fn default() -> Self {
        Self { page_capacity: None, grid_mode: GridMode::Auto, colliders: false, integrator: Integrator::Explicit }
    }
}

/// The sorted path's P2G kernel of a new [`Solver`]; `POWDER_P2G=p2g_tiled|p2g_tiled_subgroup|p2g_gather`
/// overrides it. Measured (docs/performance.md): on a CPU adapter (lavapipe) `p2g_gather` is the
/// fastest, since it needs no atomics on the sums; on GPUs `p2g_tiled`, ahead of its subgroup
/// variant (docs/performance.md, "P2G kernels").
fn default_p2g(gpu: &Gpu) -> MpmPass {
    let requested = std::env::var("POWDER_P2G").ok().and_then(|name| {
        let pass = MpmPass::sorted_p2g_named(&name);
        if pass.is_none() {
            log::warn!("POWDER_P2G={name:?} is not p2g_tiled, p2g_tiled_subgroup or p2g_gather; using the default");
        }
        pass
    });
    requested.unwrap_or(if gpu.info.device_type == wgpu::DeviceType::Cpu {
        MpmPass::P2gGather
    } else {
        MpmPass::P2gTiled
    })
}

/// The path a new [`Solver`] starts on; `POWDER_SOLVER_PATH=naive|sorted|fused` overrides it (so the
/// whole test suite can run on any path). Measured (docs/performance.md): the sorted path, on GPUs
/// since P2G reads the stored stress (faster than the fused path at every size measured), and on a
/// CPU adapter (lavapipe), whose gather P2G needs no atomics (the fused path's g2p2g sums in a
/// tile, and took as long).
fn default_path() -> SolverPath {
    let requested = std::env::var("POWDER_SOLVER_PATH").ok().and_then(|name| SolverPath::from_name(&name));
    requested.unwrap_or(SolverPath::Sorted)
}

/// The grid storage for `particles` on `params`' grid as `mode` asks: dense, sparse (a pool with
/// room for the blocks the particles touch, [`crate::sim::grid_pool::pool_blocks_for`]), or for
/// [`GridMode::Auto`] dense unless the dense grid does not fit the GPU, and then sparse. A sparse
/// grid runs the sorted path only: the caller switches to it. The caller checks that the result
/// fits.
pub(crate) fn choose_storage(
    device: &wgpu::Device,
    params: &SolverParams,
    particles: &[GpuParticle],
    p2g: MpmPass,
    page_capacity: Option<u32>,
    mode: GridMode,
) -> Result<GridStorage, StateError> {
    let sparse = || {
        let positions = particles.iter().map(|p| glam::Vec3::from(p.position));
        let needed = crate::sim::grid_pool::touched_block_count(&params.grid, positions);
        GridStorage::Sparse { pool_blocks: crate::sim::grid_pool::pool_blocks_for(&params.grid, needed) }
    };
    Ok(match mode {
        GridMode::Dense => GridStorage::Dense,
        GridMode::Sparse => sparse(),
        GridMode::Auto => {
            let dense = crate::sim::capacity::check_limits(
                device,
                params,
                particles.len(),
                p2g,
                page_capacity,
                GridStorage::Dense,
            );
            match dense {
                Err(StateError::GridTooLarge { .. } | StateError::OutOfMemory { .. }) => sparse(),
                _ => GridStorage::Dense,
            }
        }
    })
}

/// `path`, or the sorted path on a sparse grid (the only one that runs there), logged where that
/// changes it.
pub(crate) fn sorted_if_sparse(path: SolverPath, storage: GridStorage) -> SolverPath {
    if storage.is_sparse() && path != SolverPath::Sorted {
        log::info!("the grid is sparse, which only the sorted path runs on: {} → sorted", path.name());
        return SolverPath::Sorted;
    }
    path
}

impl Solver {
    /// Compiles the kernels and uploads `particles` with the default [`SolverOptions`]: as few
    /// pages as the device's binding size allows (one, unless there are tens of millions), the grid
    /// dense while it fits the GPU.
    pub fn new(gpu: &Gpu, params: SolverParams, particles: &[GpuParticle]) -> Result<Self, SolverError> {
        Self::with_options(gpu, params, particles, SolverOptions::default())
    }

    /// Compiles the kernels and uploads `particles` in pages and over a grid as `options` say. A
    /// sparse grid starts the solver on the sorted path, the only one that runs on it.
    pub fn with_options(
        gpu: &Gpu,
        params: SolverParams,
        particles: &[GpuParticle],
        options: SolverOptions,
    ) -> Result<Self, SolverError> {
        let SolverOptions { page_capacity, grid_mode, colliders, integrator } = options;
        if colliders {
            crate::sim::capacity::check_collider_fields(&gpu.device, &params)?;
        }
        let kernels = Kernels::new(&gpu.device);
        let (path, p2g) = (default_path(), default_p2g(gpu));
        let (particles, water) = &super::mixed::split(&params, &integrator, particles);
        let storage = choose_storage(&gpu.device, &params, particles, p2g, page_capacity, grid_mode)?;
        let path = sorted_if_sparse(path, storage);
        let options = StateOptions { path, p2g, page_capacity, storage };
        let pages = ParticlePage::new_pages(&gpu.device, &kernels, &params, particles, options)?;
        let mut solver = Self {
            kernels,
            pages,
            page_capacity,
            grid_mode,
            expects_colliders: colliders,
            integrator,
            params,
            interaction: Interaction::default(),
            collider_count: 0,
            clear_bins_first: std::cell::Cell::new(false),
            stress_stale: std::cell::Cell::new(false),
            last_stable_dt: std::cell::Cell::new(None),
            stats_reads: std::cell::Cell::new(0),
            steps_recorded: std::cell::Cell::new(0),
            measured_speed: std::cell::Cell::new(None),
            solve_totals: std::cell::Cell::new(Default::default()),
            pb_last_dt: std::cell::Cell::new(0.0),
            collider_distance: Vec::new(),
            collider_velocity: Vec::new(),
            collider_generation: 0,
            water: std::cell::RefCell::new(None),
            water_status: std::cell::Cell::new(None),
            water_history: Default::default(),
            water_clock: std::cell::Cell::new(None),
            companion: super::mixed::water_streams(gpu, water),
        };
        // Each page's uniform block as the solver sets it (keep_grid_sums with several pages). The
        // particles were split for `integrator` above, which the solver starts with: setting it
        // again checks it and splits nothing anew.
        solver.set_integrator(gpu, integrator)?;
        solver.refresh_stress(gpu);
        Ok(solver)
    }
}
