//! Changes to a page after it is made: the grid replaced (a sparse grid's pool grown) or shared
//! from the first page, the colliders set, removed or shared, the substep path and the sorted
//! path's P2G kernel switched. Each rebinds group 0 where a buffer changed.

use super::buffers::{GridBuffers, no_colliders, readable_buffer, storage_buffer};
use super::error::StateError;
use super::particle_page::ParticlePage;
use super::sizes::{cell_bins_bytes, scatter_sources_bytes};
use crate::collider::field::{ColliderFrames, GpuColliderNode, GpuColliderSurface};
use crate::sim::grid_pool::GridStorage;
use crate::sim::params::{GridSpec, SolverParams};
use crate::sim::passes::MpmPass;
use crate::sim::path::SolverPath;
use crate::sim::pipelines::Kernels;

impl ParticlePage {
    /// New zeroed grid buffers for `storage` (a sparse grid's pool grown), for this page and the
    /// pages that [`ParticlePage::share_grid`] of it, and this page's cell counters, which a sparse
    /// grid keeps per pool block. The grid and the counters hold nothing between substeps on the
    /// sorted path (each substep's sort and P2G fill them anew), so nothing is copied; the caller
    /// has checked that the buffers fit ([`crate::sim::capacity::check_limits`]).
    pub fn replace_grid(&mut self, device: &wgpu::Device, kernels: &Kernels, grid: &GridSpec, storage: GridStorage) {
        self.take_grid(device, kernels, GridBuffers::new(device, grid, storage));
    }

    /// Takes the grid buffers of `first`, the page that [`ParticlePage::replace_grid`] updated, and
    /// makes this page's cell counters for its storage.
    pub fn share_grid(&mut self, device: &wgpu::Device, kernels: &Kernels, first: &ParticlePage) {
        let buffers = GridBuffers {
            fixed: first.grid_fixed.clone(),
            velocity: first.grid_velocity.clone(),
            block_slots: first.block_slots.clone(),
            pb_solve: first.pb_solve.clone(),
            storage: first.grid_storage,
        };
        self.take_grid(device, kernels, buffers);
    }

    /// Puts `grid` in this page, with new cell counters for its storage, and rebinds.
    fn take_grid(&mut self, device: &wgpu::Device, kernels: &Kernels, grid: GridBuffers) {
        self.cell_bins = readable_buffer(device, "cell_bins", cell_bins_bytes(self.block_count, grid.storage));
        (self.grid_fixed, self.grid_velocity, self.block_slots, self.pb_solve, self.grid_storage) =
            (grid.fixed, grid.velocity, grid.block_slots, grid.pb_solve, grid.storage);
        self.bind(device, kernels);
    }

    /// Switches the passes a substep runs. The caller clears the grid's sums and the bins before
    /// the next binned substep where the path was not binned ([`crate::sim::Solver::set_path`]): the
    /// naive path leaves the sums in place, the binned paths expect them zero.
    pub fn set_path(&mut self, path: SolverPath) {
        self.path = path;
    }

    /// Chooses the sorted path's P2G kernel (see [`ParticlePage::p2g`]). `p2g_gather` gets its
    /// `scatter_sources` buffer here, and gives it back when another kernel is chosen. The caller
    /// has checked that the kernel's buffers fit ([`crate::sim::capacity::check_limits`]).
    pub fn set_p2g(&mut self, device: &wgpu::Device, kernels: &Kernels, pass: MpmPass) {
        assert!(MpmPass::SORTED_P2G.contains(&pass), "{} is not a sorted-path P2G kernel", pass.name());
        let bytes = scatter_sources_bytes(pass, self.particle_count);
        if self.scatter_sources.size() != bytes {
            self.scatter_sources = storage_buffer(device, "scatter_sources", bytes);
            self.bind(device, kernels);
        }
        self.p2g = pass;
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
        crate::sim::capacity::check_collider_fields(device, params)?;
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
        self.use_colliders(device, kernels, &first.colliders, &first.collider_surfaces);
    }

    /// Takes the collider fields `colliders` (start and end) and `surfaces`, which hold colliders
    /// already uploaded for this page's grid (another state's, on the same grid), where they are
    /// not already this page's (rebinding).
    pub fn use_colliders(
        &mut self,
        device: &wgpu::Device,
        kernels: &Kernels,
        colliders: &[wgpu::Buffer; 2],
        surfaces: &wgpu::Buffer,
    ) {
        if &self.colliders != colliders || &self.collider_surfaces != surfaces {
            self.colliders = colliders.clone();
            self.collider_surfaces = surfaces.clone();
            self.bind(device, kernels);
        }
    }
}
