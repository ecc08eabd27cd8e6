//! [`ParticlePage`]: the GPU buffers of one page of particles over the simulation's grid, and how
//! a particle set becomes pages ([`ParticlePage::new_pages`]).

use wgpu::util::DeviceExt;

use super::buffers::{Group0, READABLE_STORAGE, Shared, readable_buffer, storage_buffer};
use super::error::StateError;
use super::sizes::{cell_bins_bytes, scatter_sources_bytes};
use crate::sim::capacity::check_limits;
use crate::sim::grid_pool::GridStorage;
use crate::sim::interaction::Interaction;
use crate::sim::params::{GpuParticle, GpuSimParams, PageUniforms, SolverParams};
use crate::sim::particles::ParticleBuffers;
use crate::sim::passes::MpmPass;
use crate::sim::path::SolverPath;
use crate::sim::pipelines::Kernels;
use crate::sim::sort::blocks::{GpuBinHeader, GpuBlockBin};
use crate::sim::sort::reorder_clock::{ReorderClock, SCRATCH_BYTES_PER_PARTICLE, default_interval};

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
    /// ([`crate::sim::sort::reorder::SCRATCH_BYTES_PER_PARTICLE`] each).
    pub reorder_scratch: wgpu::Buffer,
    /// Which substeps of the binned paths reorder the particles ([`crate::sim::sort::reorder`]).
    pub reorder: ReorderClock,
    /// Fixed-point mass and momentum, four i32 per stored node ([`ParticlePage::grid_storage`]).
    pub grid_fixed: wgpu::Buffer,
    /// Node velocity and mass, `vec4<f32>` per stored node.
    pub grid_velocity: wgpu::Buffer,
    /// PB-MPM's Newton–PCG vectors (`pb_solve` in `shaders/mpm/pbmpm/newton.wgsl`), shared by
    /// every page like the grid.
    pub pb_solve: wgpu::Buffer,
    /// A sparse grid's map from grid block to pool block (one u32 per block, stored one up so that
    /// 0 is "none": `block_slot` in `types.wgsl`), or a one-entry placeholder on a dense grid.
    pub block_slots: wgpu::Buffer,
    /// Whether the grid is dense or a pool of blocks ([`crate::sim::grid_pool`]).
    pub grid_storage: GridStorage,
    /// Counters and maxima ([`crate::sim::params::GpuSolverStatus`]).
    pub status: wgpu::Buffer,
    /// The ray of the pick pass ([`crate::sim::params::GpuPickRay`]).
    pub pick_ray: wgpu::Buffer,
    /// Collider state at the frame's start and at its end ([`crate::collider::field::GpuColliderNode`] per node, a
    /// buffer each, so that each is one binding of 32 bytes per node like `grid_fixed`), or one
    /// placeholder entry each while there are no colliders.
    pub colliders: [wgpu::Buffer; 2],
    /// One [`crate::collider::field::GpuColliderSurface`] per collider (a placeholder while there are none).
    pub collider_surfaces: wgpu::Buffer,
    /// The substep clock ([`crate::sim::explicit::clock::GpuSubstepClock`]), one of all pages.
    pub clock: wgpu::Buffer,
    /// Counters of the bin passes ([`GpuBinHeader`]).
    pub bin_header: wgpu::Buffer,
    /// One [`GpuBlockBin`] per grid block.
    pub block_bins: wgpu::Buffer,
    /// The occupied blocks, then the touched blocks: `2 × block_count` u32.
    pub block_lists: wgpu::Buffer,
    /// Particle indices in block order, and in cell order within a block (one u32 per particle).
    pub particle_order: wgpu::Buffer,
    /// One counter per cell, block by block ([`crate::sim::sort::blocks::BLOCK_CELLS`] per block; per pool block on a sparse
    /// grid): counts, then first places within the block, then `bin_scatter`'s cursors.
    pub cell_bins: wgpu::Buffer,
    /// The sorted path's P2G kernel as requested (one of [`MpmPass::SORTED_P2G`]). Private:
    /// `scatter_sources` is sized for it ([`ParticlePage::set_p2g`]).
    pub(crate) p2g: MpmPass,
    /// `p2g_gather`'s particle data in block order ([`crate::sim::explicit::GpuScatterSource`] per particle), or a
    /// one-entry placeholder while another P2G kernel is chosen.
    pub scatter_sources: wgpu::Buffer,
    /// Indirect dispatch arguments: of the sorted P2G kernels, `grid_update_blocks` and
    /// `bin_offsets`, written by `bin_dispatch` each sort through group 1; then the gated ones of
    /// every other substep dispatch, which `clock_gate` sets, and their template
    /// ([`crate::sim::indirect::Items`], [`crate::sim::record::write_gate_template`]).
    pub indirect_args: wgpu::Buffer,
    /// Group 0 of every pass.
    pub bind_group: wgpu::BindGroup,
    /// Group 1 of `bin_dispatch` and `clock_gate`: `indirect_args` ([`Kernels::dispatch_args_layout`]).
    pub dispatch_args_group: wgpu::BindGroup,
    /// Number of particles in the page.
    pub particle_count: u32,
    /// Number of grid nodes.
    pub node_count: u32,
    /// Grid nodes along each axis.
    pub node_dims: glam::UVec3,
    /// Number of grid blocks ([`crate::sim::sort::bins::BLOCK_EDGE`]³ nodes each, covering the grid).
    pub block_count: u32,
    /// Which passes a substep runs.
    pub path: SolverPath,
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
    /// Whether the grid has PB-MPM's Newton–PCG vectors (a dense grid small enough for them to be
    /// bound; otherwise `pb_solve` is a one-entry placeholder).
    pub fn has_newton_buffer(&self) -> bool {
        self.pb_solve.size() > super::buffers::NEWTON_PLACEHOLDER_BYTES
    }

    /// Uploads `particles` as pages of at most `options.page_capacity` particles (by default as
    /// many as fit one binding: [`check_limits`]) on one grid for `params`, stored as
    /// `options.storage`, to be stepped on `options.path` with the sorted-path P2G kernel
    /// `options.p2g`. Page k holds particles `k·capacity ..` in the host's order; each has its own
    /// buffers, bins and uniform block, and all share the grid ([`crate::sim::explicit::substep::record_substep`]
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
        let node_dims = params.grid.node_dims();
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("sim_params"),
            contents: bytemuck::bytes_of(
                &params.to_gpu(&PageUniforms { particle_count, ..Default::default() }, &Interaction::default()),
            ),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let particle_buffers = ParticleBuffers::new(device, particles, READABLE_STORAGE);
        let reorder_scratch =
            storage_buffer(device, "reorder_scratch", SCRATCH_BYTES_PER_PARTICLE * particle_count.max(1) as u64);
        let Shared { grid, status, pick_ray, colliders, collider_surfaces, clock } = shared;
        let block_count = crate::sim::grid_pool::grid_blocks(&params.grid);
        let bin_header = readable_buffer(device, "bin_header", size_of::<GpuBinHeader>() as u64);
        let block_bins = readable_buffer(device, "block_bins", block_count as u64 * size_of::<GpuBlockBin>() as u64);
        let block_lists = readable_buffer(device, "block_lists", 2 * 4 * block_count as u64);
        let cell_bins = readable_buffer(device, "cell_bins", cell_bins_bytes(block_count, grid.storage));
        let particle_order = readable_buffer(device, "particle_order", 4 * particle_count as u64);
        let scatter_sources = storage_buffer(device, "scatter_sources", scatter_sources_bytes(p2g, particle_count));
        let indirect_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("indirect_args"),
            size: crate::sim::indirect::INDIRECT_ARGS_BYTES,
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
            pb_solve: &grid.pb_solve,
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
            reorder: ReorderClock::new(default_interval()),
            grid_fixed: grid.fixed,
            grid_velocity: grid.velocity,
            pb_solve: grid.pb_solve,
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
            node_dims,
            block_count,
            path,
        }
    }

    /// Recreates the bind group over the current buffers (after a collider buffer changed).
    pub(crate) fn bind(&mut self, device: &wgpu::Device, kernels: &Kernels) {
        self.bind_group = Group0 {
            params: &self.params,
            particles: &self.particles,
            grid_fixed: &self.grid_fixed,
            grid_velocity: &self.grid_velocity,
            pb_solve: &self.pb_solve,
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

    /// The sorted path's P2G kernel as requested ([`crate::sim::explicit::substep::sorted_p2g`] says which runs).
    pub fn p2g(&self) -> MpmPass {
        self.p2g
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
