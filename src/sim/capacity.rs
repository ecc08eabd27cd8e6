//! The solver's capacity check: before anything is allocated, whether a grid and a particle set
//! fit the device, and how the particles are split into pages ([`super::page::ParticlePage`]). Each
//! buffer must fit one binding and all of them the GPU's memory; past that the check refuses with
//! the numbers (needed and available, and the most that fit). GPU-free apart from reading the
//! device's limits, so `tests/capacity.rs` checks it against the H100's.

use super::grid_pool::{GridStorage, grid_blocks};
use super::page::error::StateError;
use super::page::sizes::{
    GRID_FIXED_NODE_BYTES, GRID_VELOCITY_NODE_BYTES, cell_bins_bytes, scatter_source_bytes_per_particle,
};
use super::params::SolverParams;
use super::particles::PARTICLE_BYTES;
use super::particles::WIDEST_STREAM_BYTES;
use super::passes::MpmPass;
use super::sort::blocks::{BLOCK_CELLS, GpuBlockBin};
use super::sort::reorder_clock::SCRATCH_BYTES_PER_PARTICLE;
use crate::collider::field::GpuColliderNode;

/// The largest storage buffer the device allows.
pub fn max_storage_bytes(device: &wgpu::Device) -> u64 {
    let limits = device.limits();
    limits.max_storage_buffer_binding_size.min(limits.max_buffer_size)
}

/// How a particle set is split into pages ([`super::page::ParticlePage`]): `pages` of at most `capacity` particles,
/// each page's buffers within one binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLayout {
    /// Most particles in one page.
    pub capacity: u32,
    /// Pages of the particle set.
    pub pages: u32,
}

impl PageLayout {
    /// Pages of `count` particles, `capacity` per page (at least one page).
    fn of(count: u64, capacity: u32) -> Self {
        Self { capacity, pages: count.div_ceil(capacity as u64).max(1) as u32 }
    }
}

/// Checks, before anything is allocated, that a grid and particle set fit the device: each buffer
/// within the binding size limit, and all of them within the GPU's memory, and says how the
/// particles are split into pages. `p2g` is the sorted path's P2G kernel (`p2g_gather` needs a
/// buffer more per particle); `page_capacity` asks for pages of that many particles instead of the
/// most that fit one binding; `storage` is the grid's, dense or a pool of blocks.
pub fn check_limits(
    device: &wgpu::Device,
    params: &SolverParams,
    particle_count: usize,
    p2g: MpmPass,
    page_capacity: Option<u32>,
    storage: GridStorage,
) -> Result<PageLayout, StateError> {
    check_fit(params, particle_count, p2g, device_limits(device), page_capacity, storage)
}

/// The limits of `device` that [`check_fit`] checks against.
pub fn device_limits(device: &wgpu::Device) -> DeviceLimits {
    DeviceLimits { binding_bytes: max_storage_bytes(device), memory_bytes: crate::gpu::device_memory_bytes(device) }
}

/// What [`check_fit`] checks against: a device's limits.
#[derive(Clone, Copy, Debug)]
pub struct DeviceLimits {
    /// The largest storage buffer binding, bytes.
    pub binding_bytes: u64,
    /// The device-local memory, bytes, where known.
    pub memory_bytes: Option<u64>,
}

/// The most particles one page holds with the sorted-path P2G kernel `p2g`: as many as the widest
/// per-particle buffer fits in one binding of `binding_bytes`.
pub fn max_page_capacity(binding_bytes: u64, p2g: MpmPass) -> u32 {
    (binding_bytes / widest_buffer_bytes(p2g)).min(u32::MAX as u64) as u32
}

/// [`check_limits`] against given limits.
pub fn check_fit(
    params: &SolverParams,
    particle_count: usize,
    p2g: MpmPass,
    limits: DeviceLimits,
    page_capacity: Option<u32>,
    storage: GridStorage,
) -> Result<PageLayout, StateError> {
    if particle_count == 0 {
        return Err(StateError::NoParticles);
    }
    let limit = limits.binding_bytes;
    let grid = &params.grid;
    let nodes = grid.node_count();
    // The widest buffer over the grid: grid_fixed over the stored nodes, or the block bins over every
    // block of the domain (16 bytes a block), which bound a sparse grid's domain. Node indices are
    // u32 in the shaders, and eight i32 per stored node are addressed as 8·place; cell numbers,
    // block · 64 + cell, are u32 too.
    let stored = storage.stored_nodes(grid);
    let bytes = (stored * GRID_FIXED_NODE_BYTES).max(bin_cells(params) / BLOCK_CELLS as u64 * BLOCK_BIN_BYTES);
    if bytes > limit || stored * 8 > u32::MAX as u64 || bin_cells(params) > u32::MAX as u64 {
        let max_nodes = match storage {
            GridStorage::Dense => (limit / GRID_FIXED_NODE_BYTES).min(u32::MAX as u64 / 8),
            GridStorage::Sparse { .. } => (limit / BLOCK_BIN_BYTES * BLOCK_CELLS as u64).min(u32::MAX as u64),
        } as f64;
        let cells = grid.cells.as_dvec3();
        let longest = cells.max_element();
        // Nodes ≈ Π(cells_a · s + 5) for a scale s of the resolution (a sparse grid's bins: rounded
        // up to whole blocks); solve approximately by bisection.
        let edge = super::sort::blocks::BLOCK_EDGE as f64;
        let per_axis = |n: glam::DVec3| if storage.is_sparse() { (n / edge).ceil() * edge } else { n };
        let fits = |s: f64| per_axis((cells * s).ceil() + 5.0).element_product() <= max_nodes;
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if fits(mid) { lo = mid } else { hi = mid }
        }
        if storage.is_sparse() {
            // A pool past one binding: its blocks scale with the resolution cubed.
            lo = lo.min((limit as f64 / (stored * GRID_FIXED_NODE_BYTES) as f64).cbrt());
        }
        return Err(StateError::GridTooLarge {
            nodes,
            dims: grid.node_dims().to_array(),
            bytes,
            limit,
            max_resolution: (longest * lo).floor() as u32,
        });
    }
    // The host counts particles in u32 (ids, `Solver::particle_count`).
    if particle_count as u64 > u32::MAX as u64 {
        return Err(StateError::TooManyParticles { count: particle_count, max_count: u32::MAX as u64 });
    }
    let widest_per_particle = widest_buffer_bytes(p2g);
    let most = max_page_capacity(limit, p2g);
    // A page asked for larger than the particles is as large as they are.
    let capacity = match page_capacity.map(|asked| asked.min(particle_count as u32)) {
        Some(asked) if asked as u64 * widest_per_particle > limit || asked == 0 => {
            return Err(StateError::PageTooLarge {
                count: asked as u64,
                bytes: asked as u64 * widest_per_particle,
                per_particle: widest_per_particle,
                limit,
                max_count: most as u64,
            });
        }
        Some(asked) => asked,
        None => most,
    };
    let layout = PageLayout::of(particle_count as u64, capacity);
    if let Some(available) = limits.memory_bytes {
        let (per_particle, grid_bytes, page_bytes) =
            (particle_bytes(p2g), grid_bytes(params, storage), page_bytes(params, storage));
        let needed = needed_bytes(params, particle_count as u64, p2g, layout.pages, storage);
        if needed > available {
            // The most that fit: for each page count p, as many particles as the memory left after
            // p pages' bins holds, if that many need p pages.
            let by_particles = available.saturating_sub(grid_bytes) / per_particle;
            let cap = capacity as u64;
            let max_count = (1..=PageLayout::of(by_particles, capacity).pages as u64)
                .filter_map(|p| {
                    let budget = available.checked_sub(grid_bytes + (p - 1) * page_bytes)?;
                    let n = (budget / per_particle).min(p * cap);
                    (n > (p - 1) * cap).then_some(n)
                })
                .max()
                .unwrap_or(0);
            return Err(StateError::OutOfMemory {
                count: particle_count,
                nodes,
                needed,
                per_particle,
                grid: grid_bytes,
                available,
                max_count,
            });
        }
    }
    Ok(layout)
}

/// Checks, before the particles are made on the host, that `count` particles could fit the device
/// at all on `params`' grid: within the host's u32 indices and, where the GPU's memory is known,
/// with the cheapest sorted-path P2G kernel's buffers next to the smallest grid the solver could
/// choose (dense where that fits, else a sparse pool of the fewest blocks). A necessary condition
/// only, so it never refuses what the solver would take; [`check_limits`] checks the particles in
/// full when the solver is made. The error names the most particles that fit.
pub fn check_particle_count(params: &SolverParams, count: u64, limits: DeviceLimits) -> Result<(), StateError> {
    if count == 0 {
        return Ok(());
    }
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let cheapest = MpmPass::SORTED_P2G.into_iter().min_by_key(|&p| particle_bytes(p)).unwrap_or(MpmPass::P2gTiled);
    match check_fit(params, count, cheapest, limits, None, GridStorage::Dense) {
        Err(StateError::GridTooLarge { .. } | StateError::OutOfMemory { .. }) => {
            let sparse = GridStorage::Sparse { pool_blocks: super::grid_pool::pool_blocks_for(&params.grid, 0) };
            check_fit(params, count, cheapest, limits, None, sparse).map(|_| ())
        }
        other => other.map(|_| ()),
    }
}

/// Checks that the collider fields of `params`' grid fit the device: one frame's field, 32 bytes per
/// node of the whole domain (dense on any grid), in one binding. The error names the largest
/// resolution that fits. A scene with colliders is checked with this before its solver is made,
/// since a grid past the dense limit would otherwise go sparse and then have no room for them.
pub fn check_collider_fields(device: &wgpu::Device, params: &SolverParams) -> Result<(), StateError> {
    collider_fields_fit(params, device_limits(device).binding_bytes)
}

/// [`check_collider_fields`] against a binding size limit.
pub fn collider_fields_fit(params: &SolverParams, binding_bytes: u64) -> Result<(), StateError> {
    let bytes = params.grid.node_count() * size_of::<GpuColliderNode>() as u64;
    if bytes <= binding_bytes {
        return Ok(());
    }
    // A field takes as many bytes per node as the dense grid_fixed: the dense grid's bound is the
    // fields' bound.
    let limits = DeviceLimits { binding_bytes, memory_bytes: None };
    let max_resolution = match check_fit(params, 1, MpmPass::P2gTiled, limits, None, GridStorage::Dense) {
        Err(StateError::GridTooLarge { max_resolution, .. }) => max_resolution,
        _ => params.grid.cells.max_element(),
    };
    Err(StateError::CollidersTooLarge { bytes, limit: binding_bytes, max_resolution })
}

/// GPU bytes of `count` particles in `pages` pages on `params`' grid stored as `storage` with the
/// sorted-path P2G kernel `p2g`: the particles, the grid, and the bins of each page after the
/// first. What [`check_fit`] compares with the GPU's memory.
pub fn needed_bytes(params: &SolverParams, count: u64, p2g: MpmPass, pages: u32, storage: GridStorage) -> u64 {
    particle_bytes(p2g) * count + grid_bytes(params, storage) + (pages.max(1) as u64 - 1) * page_bytes(params, storage)
}

/// Bytes of one block's bin.
const BLOCK_BIN_BYTES: u64 = size_of::<GpuBlockBin>() as u64;

/// Cells of the grid's blocks, [`BLOCK_CELLS`] per block: the numbers the shaders give cells.
fn bin_cells(params: &SolverParams) -> u64 {
    grid_blocks(&params.grid) as u64 * BLOCK_CELLS as u64
}

/// Bytes of the collider fields of two frames (start and end) over `nodes` grid nodes.
pub fn collider_bytes(nodes: u64) -> u64 {
    2 * nodes * size_of::<GpuColliderNode>() as u64
}

/// Bytes per particle of the widest per-particle buffer: a particle stream or the reorder scratch
/// (48 bytes both), or `p2g_gather`'s scatter sources where that is the sorted path's P2G.
pub fn widest_buffer_bytes(p2g: MpmPass) -> u64 {
    WIDEST_STREAM_BYTES.max(SCRATCH_BYTES_PER_PARTICLE).max(scatter_source_bytes_per_particle(p2g))
}

/// GPU bytes per particle: the streams and its id, its share of the reorder scratch, its place in
/// `particle_order`, and its scatter source where the sorted path's P2G is `p2g_gather`.
pub fn particle_bytes(p2g: MpmPass) -> u64 {
    PARTICLE_BYTES + 4 + SCRATCH_BYTES_PER_PARTICLE + 4 + scatter_source_bytes_per_particle(p2g)
}

/// GPU bytes of the grid for `params` stored as `storage`: fixed-point sums and velocities of the
/// stored nodes, and the first page's bins. A dense grid also counts PB-MPM's Newton–PCG vectors
/// and the collider fields of two frames (allocated once a scene has colliders, counted always so
/// that adding one cannot fail);
/// a sparse one its block map instead, and its collider fields, dense, are checked when a scene
/// sets them ([`super::page::ParticlePage::set_colliders`]).
pub fn grid_bytes(params: &SolverParams, storage: GridStorage) -> u64 {
    let stored = storage.stored_nodes(&params.grid) * (GRID_FIXED_NODE_BYTES + GRID_VELOCITY_NODE_BYTES);
    let extra = match storage {
        // PB-MPM's Newton–PCG vectors are made with every dense grid (a placeholder where they
        // would pass the binding limit; counted in full here, so the count never falls short).
        GridStorage::Dense => {
            collider_bytes(params.grid.node_count())
                + 16 * super::page::sizes::newton_solve_len(params.grid.node_dims())
        }
        GridStorage::Sparse { .. } => 4 * grid_blocks(&params.grid) as u64,
    };
    stored + extra + page_bytes(params, storage)
}

/// GPU bytes each page has besides its particles: its bins over the grid's blocks and its two
/// block lists, its cell counters (per block of the domain, or per pool block of a sparse grid),
/// its uniform block and its counters (rounded up to 1 KiB).
pub fn page_bytes(params: &SolverParams, storage: GridStorage) -> u64 {
    let blocks = grid_blocks(&params.grid);
    blocks as u64 * (BLOCK_BIN_BYTES + 2 * 4) + cell_bins_bytes(blocks, storage) + 1024
}
