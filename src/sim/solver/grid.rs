//! What a [`Solver`]'s buffers hold and what they take: the grid (a sparse pool grown, a new grid
//! for new parameters), the colliders' fields, a new particle set, and the GPU memory of it all.

use super::error::SolverError;
use super::state::Solver;
use crate::collider::field::ColliderFrames;
use crate::gpu::Gpu;
use crate::sim::grid_pool::GridStorage;
use crate::sim::page::{ParticlePage, StateError, StateOptions};
use crate::sim::params::{GpuParticle, SolverParams};
use crate::sim::passes::MpmPass;

impl Solver {
    /// GPU bytes the solver's buffers take, as the capacity check counts them
    /// ([`crate::sim::capacity::check_fit`]): per particle, the grid (with room for colliders), and the
    /// bins of each page after the first.
    pub fn gpu_bytes(&self) -> u64 {
        let (count, pages) = (self.particle_count() as u64, self.pages.len() as u32);
        let needed =
            crate::sim::capacity::needed_bytes(&self.params, count, self.pages[0].p2g(), pages, self.grid_storage());
        // A dense grid's count has the collider fields always; a sparse grid's once it has them.
        let colliders = self.grid_storage().is_sparse() && self.collider_count > 0;
        needed + if colliders { crate::sim::capacity::collider_bytes(self.params.grid.node_count()) } else { 0 }
    }

    /// Grows a sparse grid's pool where a substep since the last report needed more than three
    /// quarters of it (`peak` blocks, [`crate::sim::SolverStats::grid_blocks_peak`]); logs a warning if one
    /// needed more than it held, whose nodes past the pool were skipped. Returns the new pool size.
    /// A pool that would not fit the GPU stays as it is, with a warning.
    pub fn fit_grid_pool(&mut self, gpu: &Gpu, peak: u32) -> Option<u32> {
        let GridStorage::Sparse { pool_blocks } = self.grid_storage() else {
            return None;
        };
        if peak > pool_blocks {
            log::warn!(
                "a substep's snow touched {peak} grid blocks, more than the sparse grid's pool of {pool_blocks}: \
                 the nodes of {} blocks were skipped in it",
                peak - pool_blocks
            );
        }
        let grown = crate::sim::grid_pool::grown_pool(&self.params.grid, pool_blocks, peak)?;
        let storage = GridStorage::Sparse { pool_blocks: grown };
        if let Err(e) = self.check_pages_fit(gpu, self.pages[0].p2g(), storage) {
            log::warn!("the sparse grid's pool of {pool_blocks} blocks could not grow to {grown}: {e}");
            return None;
        }
        self.replace_grid(gpu, storage);
        log::info!("sparse grid: pool grown from {pool_blocks} to {grown} blocks ({peak} touched)");
        Some(grown)
    }

    /// Whether the particles as they are paged now fit with the sorted-path P2G kernel `p2g` and
    /// the grid stored as `storage` (the pages stay as they are: the first, the largest, must fit
    /// one binding).
    pub(crate) fn check_pages_fit(&self, gpu: &Gpu, p2g: MpmPass, storage: GridStorage) -> Result<(), StateError> {
        let (count, page) = (self.particle_count() as usize, Some(self.pages[0].particle_count));
        crate::sim::capacity::check_limits(&gpu.device, &self.params, count, p2g, page, storage).map(|_| ())
    }

    /// New zeroed grid buffers stored as `storage` for every page (checked to fit by the caller).
    pub(crate) fn replace_grid(&mut self, gpu: &Gpu, storage: GridStorage) {
        let (first, rest) = self.pages.split_first_mut().expect("a solver has a page");
        first.replace_grid(&gpu.device, &self.kernels, &self.params.grid, storage);
        for page in rest {
            page.share_grid(&gpu.device, &self.kernels, first);
        }
        self.write_uniforms(gpu);
    }

    /// Sets the colliders for the next frame: their state at the frame's start and end, which the
    /// substeps of the next [`Solver::step`] blend. `None` removes them. A new state (reset, new
    /// grid) starts without colliders: the fields belong to a grid, so the caller re-sends them.
    pub fn set_colliders(&mut self, gpu: &Gpu, frames: Option<&ColliderFrames>) -> Result<(), SolverError> {
        // A dense grid's check counted the fields up front; a sparse grid's did not (they cover the
        // whole domain, which it does not store), so they are checked against memory here.
        if let (Some(frames), true, Some(memory)) =
            (frames, self.grid_storage().is_sparse(), crate::gpu::device_memory_bytes(&gpu.device))
        {
            let bytes = crate::sim::capacity::collider_bytes(frames.from.nodes.len() as u64);
            let had = if self.collider_count > 0 { bytes } else { 0 };
            let available = memory.saturating_sub(self.gpu_bytes() - had);
            if bytes > available {
                return Err(StateError::CollidersOutOfMemory { bytes, available }.into());
            }
        }
        let (first, rest) = self.pages.split_first_mut().expect("a solver has a page");
        first.set_colliders(&gpu.device, &gpu.queue, &self.kernels, &self.params, frames)?;
        for page in rest {
            page.share_colliders(&gpu.device, &self.kernels, first);
        }
        self.collider_count = frames.map_or(0, |f| f.surfaces.len() as u32);
        // The water step sees the colliders as they stand at the frame's end.
        self.collider_distance = frames.map(|f| f.to.nodes.iter().map(|n| n.distance).collect()).unwrap_or_default();
        self.collider_velocity = frames.map(|f| f.to.nodes.iter().map(|n| n.velocity).collect()).unwrap_or_default();
        self.collider_generation += 1;
        self.write_uniforms(gpu);
        Ok(())
    }

    /// Replaces all particles (a reset or a new scene on the same grid and kernels).
    pub fn replace_particles(&mut self, gpu: &Gpu, particles: &[GpuParticle]) -> Result<(), SolverError> {
        self.replace_state(gpu, self.params, particles)
    }

    /// Adds `particles` after those the solver holds (a pouring emitter's batches), keeping
    /// everything else: the grid, the parameters and the colliders. The state is read back and
    /// built anew with the new particles at its end (buffers are sized to their particles, so they
    /// cannot grow in place); on error the old state stays.
    pub fn append_particles(&mut self, gpu: &Gpu, particles: &[GpuParticle]) -> Result<(), SolverError> {
        if particles.is_empty() {
            return Ok(());
        }
        let last_dt = self.pb_last_dt.get();
        let mut all = self.read_particles(gpu)?;
        // The particles that were there go on as they were: PB-MPM's next step still follows one
        // of `last_dt`, whose mean velocities they hold, and lets gravity act on them from its
        // middle. The new ones' velocities are instantaneous: given as such a mean, gravity's
        // extra half of the last step taken off, the next step moves them as it would at a start.
        let g = (self.params.gravity * (0.5 * last_dt)).as_vec3();
        all.extend(particles.iter().map(|p| {
            let mut p = *p;
            p.velocity = (glam::Vec3::from(p.velocity) - g).to_array();
            p
        }));
        self.replace_keeping_colliders(gpu, &all)?;
        self.pb_last_dt.set(last_dt);
        Ok(())
    }

    /// A new state for `particles` on the same grid that keeps the colliders it had. On error the
    /// old state stays.
    pub(crate) fn replace_keeping_colliders(
        &mut self,
        gpu: &Gpu,
        particles: &[GpuParticle],
    ) -> Result<(), SolverError> {
        let colliders = self.collider_count;
        let (fields, surfaces) = (self.pages[0].colliders.clone(), self.pages[0].collider_surfaces.clone());
        self.replace_state(gpu, self.params, particles)?;
        if colliders > 0 {
            for page in &mut self.pages {
                page.use_colliders(&gpu.device, &self.kernels, &fields, &surfaces);
            }
            self.collider_count = colliders;
            self.write_uniforms(gpu);
        }
        Ok(())
    }

    /// A new state for `particles` on `params`' grid, keeping the path, P2G kernel and reorder
    /// interval; the colliders are gone until set again. On error the old state stays.
    pub(crate) fn replace_state(
        &mut self,
        gpu: &Gpu,
        params: SolverParams,
        particles: &[GpuParticle],
    ) -> Result<(), SolverError> {
        let (path, p2g, interval) = (self.path(), self.pages[0].p2g(), self.reorder_interval());
        let (particles, water) = &super::mixed::split(&params, &self.integrator, particles);
        let (device, capacity) = (&gpu.device, self.page_capacity);
        let storage = super::build::choose_storage(device, &params, particles, p2g, capacity, self.grid_mode)?;
        let path = super::build::sorted_if_sparse(path, storage);
        let options = StateOptions { path, p2g, page_capacity: capacity, storage };
        self.pages = ParticlePage::new_pages(device, &self.kernels, &params, particles, options)?;
        for page in &mut self.pages {
            page.reorder.set_interval(interval);
        }
        self.params = params;
        self.companion = super::mixed::water_streams(gpu, water);
        self.collider_count = 0;
        self.write_uniforms(gpu);
        self.note_steps_recorded();
        self.stress_stale.set(true);
        self.pb_last_dt.set(0.0);
        Ok(())
    }

    /// Moves the simulation onto a new grid (and parameters), keeping the particles where they
    /// are (clamped into the new domain if it is smaller). If the new grid does not fit the GPU,
    /// the error says why and the old state keeps running.
    pub fn rebuild_grid(&mut self, gpu: &Gpu, params: SolverParams) -> Result<(), SolverError> {
        if self.expects_colliders {
            crate::sim::capacity::check_collider_fields(&gpu.device, &params)?;
        }
        let mut particles = self.read_particles(gpu)?;
        let (lo, hi) = (params.grid.domain_min.as_vec3(), params.grid.domain_max().as_vec3());
        for p in &mut particles {
            p.position = glam::Vec3::from(p.position).clamp(lo, hi).to_array();
        }
        self.replace_state(gpu, params, &particles)
    }
}
