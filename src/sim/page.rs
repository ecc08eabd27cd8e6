//! The simulation's GPU data: particles, grid and parameters, and the bind group that exposes them
//! to the kernels. Rebuilt when a scene loads or the grid changes; the kernels are not.

use thiserror::Error;
use wgpu::util::DeviceExt;

use super::capacity::check_limits;
use super::explicit::GpuScatterSource;
use super::grid_pool::GridStorage;
use super::params::{GpuParticle, GpuPickRay, GpuSimParams, GpuSolverStatus, SolverParams};
use super::particles::ParticleBuffers;
use super::passes::MpmPass;
use super::pipelines::Kernels;
use super::sort::bins::{BLOCK_CELLS, GpuBinHeader, GpuBlockBin, SolverPath};
use super::sort::reorder::SCRATCH_BYTES_PER_PARTICLE;
use crate::collider::field::{ColliderFrames, GpuColliderNode, GpuColliderSurface};

/// Bytes per grid node in the fixed-point buffer: mass and three momentum components, each a
/// 64-bit sum kept in two i32 words.
pub const GRID_FIXED_NODE_BYTES: u64 = 32;
/// Bytes per grid node in the velocity buffer: `vec4<f32>`.
pub const GRID_VELOCITY_NODE_BYTES: u64 = 16;

/// Why the solver state could not be created.
#[derive(Debug, Error)]
pub enum StateError {
    /// The grid needs a buffer larger than the adapter allows.
    #[error(
        "grid of {nodes} nodes ({dims:?} incl. padding) needs a {bytes}-byte buffer, but this GPU \
         allows at most {limit} bytes per storage buffer: lower grid.resolution to at most {max_resolution}"
    )]
    GridTooLarge {
        /// Nodes requested.
        nodes: u64,
        /// Node dimensions.
        dims: [u32; 3],
        /// Buffer size needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
        /// Largest resolution along the longest axis that fits.
        max_resolution: u32,
    },
    /// A page of particles needs a buffer larger than one binding may be (a page size asked for,
    /// or a P2G kernel whose per-particle buffer is wider than the pages were made for).
    #[error(
        "a page of {count} particles needs a {bytes}-byte buffer for its widest per-particle data ({per_particle} \
         bytes each), but this GPU allows at most {limit} bytes per storage buffer: at most {max_count} particles \
         fit in one page"
    )]
    PageTooLarge {
        /// Particles in the page.
        count: u64,
        /// Size of the widest per-particle buffer.
        bytes: u64,
        /// Its bytes per particle.
        per_particle: u64,
        /// The adapter's limit.
        limit: u64,
        /// Most particles whose buffers fit one binding.
        max_count: u64,
    },
    /// More particles than 32-bit indices can count.
    #[error("{count} particles are more than the solver can index: at most {max_count}")]
    TooManyParticles {
        /// Particles requested.
        count: usize,
        /// The most it can index.
        max_count: u64,
    },
    /// The particles and grid need more memory than the GPU has.
    #[error(
        "{count} particles on a grid of {nodes} nodes need {needed} bytes of GPU memory ({per_particle} per \
         particle, {grid} for the grid), but this GPU has {available}: at most {max_count} particles fit on this \
         grid"
    )]
    OutOfMemory {
        /// Particles requested.
        count: usize,
        /// Grid nodes.
        nodes: u64,
        /// Bytes the solver's buffers need in all.
        needed: u64,
        /// Bytes per particle (streams and id, reorder scratch, sort order, scatter sources).
        per_particle: u64,
        /// Bytes of the grid, its bins and the collider fields.
        grid: u64,
        /// The device-local memory of the GPU.
        available: u64,
        /// Most particles that fit next to this grid.
        max_count: u64,
    },
    /// The collider fields need a buffer larger than the adapter allows.
    #[error(
        "the colliders' distance fields need a {bytes}-byte buffer, but this GPU allows at most {limit} bytes per \
         storage buffer: lower grid.resolution to at most {max_resolution} (a scene without colliders may go \
         further, on a sparse grid)"
    )]
    CollidersTooLarge {
        /// Buffer size needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
        /// Largest resolution along the longest axis whose fields fit.
        max_resolution: u32,
    },
    /// There are no particles to simulate.
    #[error("the scene has no particles")]
    NoParticles,
    /// The collider fields of a sparse grid's domain need more memory than the GPU has left.
    #[error(
        "the colliders' distance fields need {bytes} bytes of GPU memory over the sparse grid's whole domain, but \
         {available} are left: lower grid.resolution"
    )]
    CollidersOutOfMemory {
        /// Bytes of the two collider frames.
        bytes: u64,
        /// Device memory less what the solver has.
        available: u64,
    },
    /// A path other than the sorted one on a grid that must stay sparse.
    #[error("the {path} path needs a dense grid, and {reason}; keeping the sorted path on the sparse grid")]
    NeedsDenseGrid {
        /// The path asked for.
        path: &'static str,
        /// Why the grid cannot be dense: the dense grid's own capacity error, or that the solver
        /// was asked for a sparse grid.
        reason: String,
    },
}

/// GPU buffers of one page of a simulation: its particles, their bins and its uniform block, and
/// the grid, counters and colliders that all pages of the simulation share
/// ([`ParticlePage::new_pages`]). Most simulations are one page; a particle set past one binding's
/// size limit takes several.
pub struct ParticlePage {
    /// Uniform block ([`GpuSimParams`]), the page's own: `particle_count` is the page's.
    pub params: wgpu::Buffer,
    /// Particles, as six streams and their ids ([`ParticleBuffers`]).
    pub particles: ParticleBuffers,
    /// The reorder's scratch: one round's share of every particle's streams
    /// ([`super::sort::reorder::SCRATCH_BYTES_PER_PARTICLE`] each).
    pub reorder_scratch: wgpu::Buffer,
    /// Which substeps of the binned paths reorder the particles ([`super::sort::reorder`]).
    pub reorder: super::sort::reorder::ReorderClock,
    /// Fixed-point mass and momentum, four i32 per stored node ([`ParticlePage::grid_storage`]).
    pub grid_fixed: wgpu::Buffer,
    /// Node velocity and mass, `vec4<f32>` per stored node.
    pub grid_velocity: wgpu::Buffer,
    /// A sparse grid's map from grid block to pool block (one u32 per block, stored one up so that
    /// 0 is "none": `block_slot` in `types.wgsl`), or a one-entry placeholder on a dense grid.
    pub block_slots: wgpu::Buffer,
    /// Whether the grid is dense or a pool of blocks ([`super::grid_pool`]).
    pub grid_storage: GridStorage,
    /// Counters and maxima ([`GpuSolverStatus`]).
    pub status: wgpu::Buffer,
    /// The ray of the pick pass ([`GpuPickRay`]).
    pub pick_ray: wgpu::Buffer,
    /// Collider state at the frame's start and at its end ([`GpuColliderNode`] per node, a
    /// buffer each, so that each is one binding of 32 bytes per node like `grid_fixed`), or one
    /// placeholder entry each while there are no colliders.
    pub colliders: [wgpu::Buffer; 2],
    /// One [`GpuColliderSurface`] per collider (a placeholder while there are none).
    pub collider_surfaces: wgpu::Buffer,
    /// The substep clock ([`super::explicit::clock::GpuSubstepClock`]), one of all pages.
    pub clock: wgpu::Buffer,
    /// Counters of the bin passes ([`GpuBinHeader`]).
    pub bin_header: wgpu::Buffer,
    /// One [`GpuBlockBin`] per grid block.
    pub block_bins: wgpu::Buffer,
    /// The occupied blocks, then the touched blocks: `2 × block_count` u32.
    pub block_lists: wgpu::Buffer,
    /// Particle indices in block order, and in cell order within a block (one u32 per particle).
    pub particle_order: wgpu::Buffer,
    /// One counter per cell, block by block ([`BLOCK_CELLS`] per block; per pool block on a sparse
    /// grid): counts, then first places within the block, then `bin_scatter`'s cursors.
    pub cell_bins: wgpu::Buffer,
    /// The sorted path's P2G kernel as requested (one of [`MpmPass::SORTED_P2G`]). Private:
    /// `scatter_sources` is sized for it ([`ParticlePage::set_p2g`]).
    p2g: MpmPass,
    /// `p2g_gather`'s particle data in block order ([`GpuScatterSource`] per particle), or a
    /// one-entry placeholder while another P2G kernel is chosen.
    pub scatter_sources: wgpu::Buffer,
    /// Indirect dispatch arguments: of the sorted P2G kernels, `grid_update_blocks` and
    /// `bin_offsets`, written by `bin_dispatch` each sort through group 1; then the gated ones of
    /// every other substep dispatch, which `clock_gate` sets, and their template
    /// ([`super::record::Items`], [`ParticlePage::write_gate_template`]).
    pub indirect_args: wgpu::Buffer,
    /// Group 0 of every pass.
    pub bind_group: wgpu::BindGroup,
    /// Group 1 of `bin_dispatch` and `clock_gate`: `indirect_args` ([`Kernels::dispatch_args_layout`]).
    pub dispatch_args_group: wgpu::BindGroup,
    /// Number of particles in the page.
    pub particle_count: u32,
    /// Number of grid nodes.
    pub node_count: u32,
    /// Number of grid blocks ([`super::sort::bins::BLOCK_EDGE`]³ nodes each, covering the grid).
    pub block_count: u32,
    /// Which passes a substep runs.
    pub path: SolverPath,
}

// A collider frame takes no more bytes per node than grid_fixed, so a grid the capacity check
// admits (grid_fixed within one binding) has room for its colliders, a binding per frame.
const _: () = assert!(size_of::<GpuColliderNode>() as u64 <= GRID_FIXED_NODE_BYTES);

/// Number of bindings in group 0 (see `types.wgsl`).
pub const BINDINGS: usize = 24;

/// The buffers of one page's group 0, by name: [`Group0::bind`] puts them in binding order, so
/// that order is written once (`types.wgsl` declares the same).
struct Group0<'a> {
    params: &'a wgpu::Buffer,
    particles: &'a ParticleBuffers,
    grid_fixed: &'a wgpu::Buffer,
    grid_velocity: &'a wgpu::Buffer,
    status: &'a wgpu::Buffer,
    pick_ray: &'a wgpu::Buffer,
    colliders: &'a [wgpu::Buffer; 2],
    collider_surfaces: &'a wgpu::Buffer,
    bin_header: &'a wgpu::Buffer,
    block_bins: &'a wgpu::Buffer,
    block_lists: &'a wgpu::Buffer,
    particle_order: &'a wgpu::Buffer,
    cell_bins: &'a wgpu::Buffer,
    scatter_sources: &'a wgpu::Buffer,
    reorder_scratch: &'a wgpu::Buffer,
    block_slots: &'a wgpu::Buffer,
    clock: &'a wgpu::Buffer,
}

impl Group0<'_> {
    /// The bind group: binding 0 the uniform block, 1–6 the particle streams, 7–18 the grid, the
    /// counters, the colliders at the frame's start and the bins, 19 the particle ids, 20 the
    /// reorder scratch, 21 the colliders at the frame's end, 22 the sparse grid's block map, 23 the
    /// substep clock.
    fn bind(&self, device: &wgpu::Device, kernels: &Kernels) -> wgpu::BindGroup {
        let buffers: Vec<&wgpu::Buffer> = std::iter::once(self.params)
            .chain(self.particles.buffers())
            .chain([
                self.grid_fixed,
                self.grid_velocity,
                self.status,
                self.pick_ray,
                &self.colliders[0],
                self.collider_surfaces,
                self.bin_header,
                self.block_bins,
                self.block_lists,
                self.particle_order,
                self.cell_bins,
                self.scatter_sources,
                &self.particles.id,
                self.reorder_scratch,
                &self.colliders[1],
                self.block_slots,
                self.clock,
            ])
            .collect();
        assert_eq!(buffers.len(), BINDINGS, "group 0 has BINDINGS bindings");
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mpm.state"),
            layout: &kernels.layout,
            entries: &entries,
        })
    }
}

/// Bytes of one page's cell counters ([`BLOCK_CELLS`] u32 per block): every block of the grid's
/// `block_count` on a dense grid, every pool block on a sparse one.
pub(super) fn cell_bins_bytes(block_count: u32, storage: GridStorage) -> u64 {
    let blocks = match storage {
        GridStorage::Dense => block_count,
        GridStorage::Sparse { pool_blocks } => pool_blocks,
    };
    4 * BLOCK_CELLS as u64 * blocks as u64
}

/// The one-entry stand-ins for the two collider frames while there are no colliders.
fn no_colliders(device: &wgpu::Device) -> [wgpu::Buffer; 2] {
    ["colliders_start", "colliders_end"]
        .map(|label| placeholder(device, label, bytemuck::bytes_of(&GpuColliderNode::default())))
}

/// A read-only storage buffer holding `contents` (the one-entry stand-ins for absent colliders).
fn placeholder(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

/// Bytes of `scatter_sources` for the sorted P2G kernel `p2g`: one [`GpuScatterSource`] per
/// particle for `p2g_gather`, else a single placeholder entry (a binding cannot be empty).
fn scatter_sources_bytes(p2g: MpmPass, particle_count: u32) -> u64 {
    let entries = if p2g == MpmPass::P2gGather { particle_count.max(1) } else { 1 };
    entries as u64 * size_of::<GpuScatterSource>() as u64
}

/// Bytes per particle of `scatter_sources` with the sorted P2G kernel `p2g` (0 but for `p2g_gather`).
pub(super) fn scatter_source_bytes_per_particle(p2g: MpmPass) -> u64 {
    if p2g == MpmPass::P2gGather { size_of::<GpuScatterSource>() as u64 } else { 0 }
}

/// A storage buffer the host also copies from (readbacks) and into: the grid, the bins, the order.
fn readable_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: READABLE_STORAGE,
        mapped_at_creation: false,
    })
}

/// The usage of [`readable_buffer`]s.
const READABLE_STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

fn storage_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The buffers all pages of one simulation share: the grid, the counters, the pick ray and the
/// colliders (wgpu buffers are shared handles; each page's bind group names the same ones).
#[derive(Clone)]
struct Shared {
    grid: GridBuffers,
    status: wgpu::Buffer,
    pick_ray: wgpu::Buffer,
    colliders: [wgpu::Buffer; 2],
    collider_surfaces: wgpu::Buffer,
    clock: wgpu::Buffer,
}

/// The grid's buffers: its nodes and, on a sparse grid, the map from grid block to pool block.
#[derive(Clone)]
struct GridBuffers {
    fixed: wgpu::Buffer,
    velocity: wgpu::Buffer,
    block_slots: wgpu::Buffer,
    storage: GridStorage,
}

impl GridBuffers {
    /// Buffers for `storage` of `grid`: the nodes zeroed, a sparse grid's map "none" throughout.
    fn new(device: &wgpu::Device, grid: &super::params::GridSpec, storage: GridStorage) -> Self {
        let nodes = storage.stored_nodes(grid);
        let blocks = if storage.is_sparse() { super::grid_pool::grid_blocks(grid) as u64 } else { 1 };
        Self {
            fixed: readable_buffer(device, "grid_fixed", nodes * GRID_FIXED_NODE_BYTES),
            velocity: readable_buffer(device, "grid_velocity", nodes * GRID_VELOCITY_NODE_BYTES),
            // Stored one up (`block_slot` in types.wgsl), so the zeros it is made with mean "none".
            block_slots: readable_buffer(device, "block_slots", 4 * blocks),
            storage,
        }
    }
}

impl Shared {
    fn new(device: &wgpu::Device, grid: &super::params::GridSpec, storage: GridStorage) -> Self {
        Self {
            grid: GridBuffers::new(device, grid, storage),
            status: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("solver_status"),
                contents: bytemuck::bytes_of(&GpuSolverStatus::reset()),
                usage: READABLE_STORAGE,
            }),
            pick_ray: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("pick_ray"),
                contents: bytemuck::bytes_of(&GpuPickRay::default()),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            colliders: no_colliders(device),
            collider_surfaces: placeholder(device, "collider_surfaces", &[0; size_of::<GpuColliderSurface>()]),
            clock: readable_buffer(
                device,
                "substep_clock",
                size_of::<super::explicit::clock::GpuSubstepClock>() as u64,
            ),
        }
    }
}

/// How [`ParticlePage::new_pages`] lays out a simulation's buffers.
#[derive(Clone, Copy, Debug)]
pub struct StateOptions {
    /// The substep path the pages start on.
    pub path: SolverPath,
    /// The sorted path's P2G kernel, one of [`MpmPass::SORTED_P2G`].
    pub p2g: MpmPass,
    /// Most particles per page (`None`: as many as fit one binding).
    pub page_capacity: Option<u32>,
    /// Dense grid, or a pool of blocks (the sorted path only).
    pub storage: GridStorage,
}

impl ParticlePage {
    /// Uploads `particles` as pages of at most `options.page_capacity` particles (by default as
    /// many as fit one binding: [`check_limits`]) on one grid for `params`, stored as
    /// `options.storage`, to be stepped on `options.path` with the sorted-path P2G kernel
    /// `options.p2g`. Page k holds particles `k·capacity ..` in the host's order; each has its own
    /// buffers, bins and uniform block, and all share the grid ([`super::explicit::substep::record_substep`]
    /// says how a substep runs over them).
    pub fn new_pages(
        device: &wgpu::Device,
        kernels: &Kernels,
        params: &SolverParams,
        particles: &[GpuParticle],
        options: StateOptions,
    ) -> Result<Vec<Self>, StateError> {
        let StateOptions { path, p2g, page_capacity, storage } = options;
        assert!(MpmPass::SORTED_P2G.contains(&p2g), "{} is not a sorted-path P2G kernel", p2g.name());
        assert!(!storage.is_sparse() || path == SolverPath::Sorted, "a sparse grid runs the sorted path only");
        let layout = check_limits(device, params, particles.len(), p2g, page_capacity, storage)?;
        let shared = Shared::new(device, &params.grid, storage);
        let pages = particles
            .chunks(layout.capacity as usize)
            .map(|chunk| Self::page(device, kernels, params, chunk, path, p2g, shared.clone()))
            .collect();
        Ok(pages)
    }

    /// One page of particles over the `shared` grid.
    fn page(
        device: &wgpu::Device,
        kernels: &Kernels,
        params: &SolverParams,
        particles: &[GpuParticle],
        path: SolverPath,
        p2g: MpmPass,
        shared: Shared,
    ) -> Self {
        let particle_count = particles.len() as u32;
        let node_count = params.grid.node_count() as u32;
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("sim_params"),
            contents: bytemuck::bytes_of(&params.to_gpu(
                &super::params::PageUniforms { particle_count, ..Default::default() },
                &super::interaction::Interaction::default(),
            )),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let particle_buffers = ParticleBuffers::new(device, particles, READABLE_STORAGE);
        let reorder_scratch =
            storage_buffer(device, "reorder_scratch", SCRATCH_BYTES_PER_PARTICLE * particle_count.max(1) as u64);
        let Shared { grid, status, pick_ray, colliders, collider_surfaces, clock } = shared;
        let block_count = super::grid_pool::grid_blocks(&params.grid);
        let bin_header = readable_buffer(device, "bin_header", size_of::<GpuBinHeader>() as u64);
        let block_bins = readable_buffer(device, "block_bins", block_count as u64 * size_of::<GpuBlockBin>() as u64);
        let block_lists = readable_buffer(device, "block_lists", 2 * 4 * block_count as u64);
        let cell_bins = readable_buffer(device, "cell_bins", cell_bins_bytes(block_count, grid.storage));
        let particle_order = readable_buffer(device, "particle_order", 4 * particle_count as u64);
        let scatter_sources = storage_buffer(device, "scatter_sources", scatter_sources_bytes(p2g, particle_count));
        let indirect_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("indirect_args"),
            size: super::record::INDIRECT_ARGS_BYTES,
            usage: wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = Group0 {
            params: &params_buffer,
            particles: &particle_buffers,
            grid_fixed: &grid.fixed,
            grid_velocity: &grid.velocity,
            status: &status,
            pick_ray: &pick_ray,
            colliders: &colliders,
            collider_surfaces: &collider_surfaces,
            bin_header: &bin_header,
            block_bins: &block_bins,
            block_lists: &block_lists,
            particle_order: &particle_order,
            cell_bins: &cell_bins,
            scatter_sources: &scatter_sources,
            reorder_scratch: &reorder_scratch,
            block_slots: &grid.block_slots,
            clock: &clock,
        }
        .bind(device, kernels);
        Self {
            params: params_buffer,
            particles: particle_buffers,
            reorder_scratch,
            reorder: super::sort::reorder::ReorderClock::new(super::sort::reorder::default_interval()),
            grid_fixed: grid.fixed,
            grid_velocity: grid.velocity,
            block_slots: grid.block_slots,
            grid_storage: grid.storage,
            status,
            pick_ray,
            colliders,
            collider_surfaces,
            clock,
            bin_header,
            block_bins,
            block_lists,
            particle_order,
            cell_bins,
            p2g,
            scatter_sources,
            dispatch_args_group: device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("mpm.dispatch_args"),
                layout: &kernels.dispatch_args_layout,
                entries: &[wgpu::BindGroupEntry { binding: 0, resource: indirect_args.as_entire_binding() }],
            }),
            indirect_args,
            bind_group,
            particle_count,
            node_count,
            block_count,
            path,
        }
    }

    /// Recreates the bind group over the current buffers (after a collider buffer changed).
    fn bind(&mut self, device: &wgpu::Device, kernels: &Kernels) {
        self.bind_group = Group0 {
            params: &self.params,
            particles: &self.particles,
            grid_fixed: &self.grid_fixed,
            grid_velocity: &self.grid_velocity,
            status: &self.status,
            pick_ray: &self.pick_ray,
            colliders: &self.colliders,
            collider_surfaces: &self.collider_surfaces,
            bin_header: &self.bin_header,
            block_bins: &self.block_bins,
            block_lists: &self.block_lists,
            particle_order: &self.particle_order,
            cell_bins: &self.cell_bins,
            scatter_sources: &self.scatter_sources,
            reorder_scratch: &self.reorder_scratch,
            block_slots: &self.block_slots,
            clock: &self.clock,
        }
        .bind(device, kernels);
    }

    /// New zeroed grid buffers for `storage` (a sparse grid's pool grown), for this page and the
    /// pages that [`ParticlePage::share_grid`] of it, and this page's cell counters, which a sparse
    /// grid keeps per pool block. The grid and the counters hold nothing between substeps on the
    /// sorted path (each substep's sort and P2G fill them anew), so nothing is copied; the caller
    /// has checked that the buffers fit ([`check_limits`]).
    pub fn replace_grid(
        &mut self,
        device: &wgpu::Device,
        kernels: &Kernels,
        grid: &super::params::GridSpec,
        storage: GridStorage,
    ) {
        self.take_grid(device, kernels, GridBuffers::new(device, grid, storage));
    }

    /// Takes the grid buffers of `first`, the page that [`ParticlePage::replace_grid`] updated, and
    /// makes this page's cell counters for its storage.
    pub fn share_grid(&mut self, device: &wgpu::Device, kernels: &Kernels, first: &ParticlePage) {
        let buffers = GridBuffers {
            fixed: first.grid_fixed.clone(),
            velocity: first.grid_velocity.clone(),
            block_slots: first.block_slots.clone(),
            storage: first.grid_storage,
        };
        self.take_grid(device, kernels, buffers);
    }

    /// Puts `grid` in this page, with new cell counters for its storage, and rebinds.
    fn take_grid(&mut self, device: &wgpu::Device, kernels: &Kernels, grid: GridBuffers) {
        self.cell_bins = readable_buffer(device, "cell_bins", cell_bins_bytes(self.block_count, grid.storage));
        (self.grid_fixed, self.grid_velocity, self.block_slots, self.grid_storage) =
            (grid.fixed, grid.velocity, grid.block_slots, grid.storage);
        self.bind(device, kernels);
    }

    /// Switches the passes a substep runs. The caller clears the grid's sums and the bins before
    /// the next binned substep where the path was not binned ([`super::Solver::set_path`]): the
    /// naive path leaves the sums in place, the binned paths expect them zero.
    pub fn set_path(&mut self, path: SolverPath) {
        self.path = path;
    }

    /// Chooses the sorted path's P2G kernel (see [`ParticlePage::p2g`]). `p2g_gather` gets its
    /// `scatter_sources` buffer here, and gives it back when another kernel is chosen. The caller
    /// has checked that the kernel's buffers fit ([`check_limits`]).
    pub fn set_p2g(&mut self, device: &wgpu::Device, kernels: &Kernels, pass: MpmPass) {
        assert!(MpmPass::SORTED_P2G.contains(&pass), "{} is not a sorted-path P2G kernel", pass.name());
        let bytes = scatter_sources_bytes(pass, self.particle_count);
        if self.scatter_sources.size() != bytes {
            self.scatter_sources = storage_buffer(device, "scatter_sources", bytes);
            self.bind(device, kernels);
        }
        self.p2g = pass;
    }

    /// The sorted path's P2G kernel as requested ([`super::explicit::substep::sorted_p2g`] says which runs).
    pub fn p2g(&self) -> MpmPass {
        self.p2g
    }

    /// Uploads one frame of collider state, or removes the colliders (`None`). The buffers are
    /// reallocated (and the bind group rebuilt) only when their size changes, so animated
    /// colliders re-upload every frame without allocating.
    pub fn set_colliders(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        kernels: &Kernels,
        params: &SolverParams,
        frames: Option<&ColliderFrames>,
    ) -> Result<(), StateError> {
        let Some(frames) = frames else {
            if self.colliders[0].size() > size_of::<GpuColliderNode>() as u64 {
                self.colliders = no_colliders(device);
                self.bind(device, kernels);
            }
            return Ok(());
        };
        let n = self.node_count as usize;
        assert!(frames.from.nodes.len() == n && frames.to.nodes.len() == n, "collider fields must match the grid");
        let bytes = n as u64 * size_of::<GpuColliderNode>() as u64;
        super::capacity::check_collider_fields(device, params)?;
        let surfaces: Vec<GpuColliderSurface> = frames.surfaces.iter().map(|&s| s.into()).collect();
        let surface_bytes = (surfaces.len().max(1) * size_of::<GpuColliderSurface>()) as u64;
        let mut rebind = false;
        if self.colliders[0].size() != bytes {
            self.colliders = ["colliders_start", "colliders_end"].map(|label| storage_buffer(device, label, bytes));
            rebind = true;
        }
        if self.collider_surfaces.size() != surface_bytes {
            self.collider_surfaces = storage_buffer(device, "collider_surfaces", surface_bytes);
            rebind = true;
        }
        if rebind {
            self.bind(device, kernels);
        }
        queue.write_buffer(&self.colliders[0], 0, bytemuck::cast_slice(&frames.from.nodes));
        queue.write_buffer(&self.colliders[1], 0, bytemuck::cast_slice(&frames.to.nodes));
        if !surfaces.is_empty() {
            queue.write_buffer(&self.collider_surfaces, 0, bytemuck::cast_slice(&surfaces));
        }
        Ok(())
    }

    /// Takes the collider buffers of `first`, the page that [`ParticlePage::set_colliders`] updated,
    /// where they are not already this page's (rebinding).
    pub fn share_colliders(&mut self, device: &wgpu::Device, kernels: &Kernels, first: &ParticlePage) {
        if self.colliders != first.colliders || self.collider_surfaces != first.collider_surfaces {
            self.colliders = first.colliders.clone();
            self.collider_surfaces = first.collider_surfaces.clone();
            self.bind(device, kernels);
        }
    }

    /// Writes the template of the page's gated dispatches ([`super::record::Items`]) and turns
    /// them on: done at the start of every frame, so the sizes follow the grid (a sparse grid's
    /// pool grows between frames).
    pub fn write_gate_template(&self, queue: &wgpu::Queue) {
        use super::record::Items;
        let args: Vec<[u32; 4]> = Items::ALL
            .iter()
            .map(|&items| {
                let (x, y) = super::record::dispatch_size(super::record::item_threads(items, self));
                [x, y, 1, 0]
            })
            .collect();
        let bytes: &[u8] = bytemuck::cast_slice(&args);
        queue.write_buffer(&self.indirect_args, Items::Particles.offset(), bytes);
        queue.write_buffer(&self.indirect_args, Items::Particles.template_offset(), bytes);
    }

    /// Number of i32 words in the fixed-point grid, every stored node's (one `grid_clear` thread
    /// each).
    pub fn grid_fixed_words(&self) -> u32 {
        (self.grid_fixed.size() / 4) as u32
    }

    /// Writes new parameters (e.g. a new dt) for the next submission.
    pub fn write_params(&self, queue: &wgpu::Queue, params: &GpuSimParams) {
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(params));
    }
}
