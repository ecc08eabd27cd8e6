//! [`Solver`]: kernels plus pages of particles over one grid, stepped on the GPU. Built in
//! [`build`] (one path, [`SolverOptions`]), stepped frame by frame in [`frame`], read back in
//! [`readback`]; this file holds its parameters, paths and passes run alone.

use thiserror::Error;

use super::explicit::substep;
use super::grid_pool::{GridMode, GridStorage};
use super::integrator::Integrator;
use super::interaction::Interaction;
use super::page::{ParticlePage, StateError, StateOptions};
use super::params::{GpuParticle, GpuPickRay, GpuSolverStatus, PageUniforms, SolverParams};
use super::passes::MpmPass;
use super::pipelines::{Kernels, ShaderError};
use super::record;
use super::sort::bins::SolverPath;
use crate::collider::field::ColliderFrames;
use crate::gpu::{Gpu, GpuError};

mod build;
mod frame;
mod readback;

pub use build::SolverOptions;
pub use frame::Batch;
pub use readback::{BinsReadback, PendingStats};

/// Failures of the solver.
#[derive(Debug, Error)]
pub enum SolverError {
    /// The state could not be allocated.
    #[error(transparent)]
    State(#[from] StateError),
    /// A GPU operation failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// PB-MPM settings out of range.
    #[error(transparent)]
    PbmpmSettings(#[from] crate::sim::pbmpm::PbmpmSettingsError),
    /// The grid changed; that needs a new state, not new parameters.
    #[error("the grid changed from {from:?} to {to:?}: rebuild the solver state instead")]
    GridChanged {
        /// Old cells.
        from: [u32; 3],
        /// New cells.
        to: [u32; 3],
    },
}

/// What the `stats` pass and the counters report about the current state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverStats {
    /// Largest particle speed, m/s.
    pub max_speed: f64,
    /// Largest hardening factor `exp(ξ(1 − Jp))` (bounded).
    pub max_hardening: f64,
    /// Smallest plastic Jacobian.
    pub min_plastic_jacobian: f64,
    /// Largest plastic Jacobian.
    pub max_plastic_jacobian: f64,
    /// P2G contributions clamped since the last report because they would not fit an i32 (none by
    /// construction of the scales; a guard).
    pub overflow_count: u32,
    /// Particles reset since the last report because their state was not finite.
    pub nonfinite_count: u32,
    /// Particle updates g2p2g made since the last report (the fused path's pass; zero on the
    /// other paths).
    pub fused_particles: u32,
    /// The most pool blocks a substep of a sparse grid asked for since the last report (zero on a
    /// dense grid); more than the pool holds if it ran out ([`super::grid_pool`]).
    pub grid_blocks_peak: u32,
}

/// The largest stable time step: `cfl · h / (v_max + c)` with `c` the P-wave speed at the largest
/// hardening present (see `docs/algorithm.md`).
///
/// Non-finite inputs (a particle that arrived with a NaN velocity, which P2G will reset) fall back
/// to the bounds the solver enforces: `max_speed` and the hardening cap.
pub fn stable_dt(params: &SolverParams, max_speed: f64, max_hardening: f64, cfl: f64) -> f64 {
    let max_speed = if max_speed.is_finite() { max_speed.min(params.max_speed) } else { params.max_speed };
    let max_hardening =
        if max_hardening.is_finite() { max_hardening } else { super::material::MAX_HARDENING_EXPONENT.exp() };
    let wave_speed = params.material.wave_speed(max_hardening.max(0.0));
    cfl * params.grid.cell_size / (max_speed + wave_speed)
}

/// The GPU solver: compiled kernels, the simulation's buffers and its parameters.
pub struct Solver {
    kernels: Kernels,
    /// The particles' pages over one grid ([`ParticlePage::new_pages`]); at least one.
    pages: Vec<ParticlePage>,
    /// Particles per page as asked for (`None`: as many as fit one binding).
    page_capacity: Option<u32>,
    /// Dense or sparse grid, as asked for; `pages[0].grid_storage` is what it is now.
    grid_mode: GridMode,
    /// The scene has colliders, whose fields every grid must fit ([`SolverOptions::colliders`]).
    expects_colliders: bool,
    /// What steps the snow: explicit substeps or PB-MPM steps ([`Solver::set_integrator`]).
    integrator: Integrator,
    params: SolverParams,
    interaction: Interaction,
    collider_count: u32,
    /// The bins, the cell counters and the grid's sums may not be as a binned substep leaves
    /// them, so the next step on a binned path clears them first ([`Solver::record_clean_bins`]):
    /// a pass ran alone ([`Solver::run_pass`]: a sort with no grid update after it, a `bin_clear`
    /// that forgot the last sort's lists), or the path became binned ([`Solver::set_path`]: the
    /// naive path leaves its sums on the grid).
    clear_bins_first: std::cell::Cell<bool>,
    /// The stored stress is not that of the current material and state (after
    /// [`Solver::set_params`] or a new state): the next recording refreshes it first
    /// ([`Solver::record_stale_stress`]), so that these submit nothing of their own (on a software
    /// driver a submission waits for the queue's earlier work, and the app's may be running).
    stress_stale: std::cell::Cell<bool>,
    /// The stable dt last measured (by [`Solver::stable_dt`] or a frame's clock), seconds: how
    /// many substeps the next auto frame's first batch records ([`Solver::step_frame`]).
    last_stable_dt: std::cell::Cell<Option<f64>>,
}

impl Solver {
    /// Fills the particles' stored stress from their F and Jp (the `stress` pass): after an upload,
    /// whose stress stream starts at zero, and after a material change.
    fn refresh_stress(&self, gpu: &Gpu) {
        self.stress_stale.set(true);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.record_stale_stress(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
    }

    /// Switches the integrator (its settings checked first). The particles carry over; the next
    /// frame steps with the new one.
    pub fn set_integrator(&mut self, gpu: &Gpu, integrator: Integrator) -> Result<(), SolverError> {
        integrator.validate()?;
        self.integrator = integrator;
        self.write_uniforms(gpu);
        Ok(())
    }

    /// The integrator that steps the snow.
    pub fn integrator(&self) -> Integrator {
        self.integrator
    }

    /// Replaces the stored stress τ of a solver whose pages hold its particles in the host's
    /// order (just built) with `stress`, one entry per particle in that order, as
    /// [`super::checkpoint::SolverSnapshot`] saved it; the `stress` pass then does not run. The
    /// caller checks the count ([`super::checkpoint::SolverSnapshot::restore_stress`]).
    pub(crate) fn restore_stress(&self, gpu: &Gpu, stress: &[super::checkpoint::StoredStress]) {
        let mut start = 0;
        for page in &self.pages {
            let end = start + page.particle_count as usize;
            gpu.queue.write_buffer(&page.particles.stress, 0, bytemuck::cast_slice(&stress[start..end]));
            start = end;
        }
        self.stress_stale.set(false);
    }

    /// Records the `stress` pass over every page if the stored stress is stale.
    fn record_stale_stress(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.stress_stale.replace(false) {
            for page in &self.pages {
                record::record_pass(encoder, &self.kernels, page, MpmPass::Stress, None);
            }
        }
    }

    /// The current parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Number of particles, over all pages.
    pub fn particle_count(&self) -> u32 {
        self.pages.iter().map(|page| page.particle_count).sum()
    }

    /// The kernels (for recording passes into an outside encoder, e.g. in benchmarks).
    pub fn kernels(&self) -> &Kernels {
        &self.kernels
    }

    /// Rebuilds the kernels from the shader files on disk (hot reload). On failure the previous
    /// kernels keep running and the error carries naga's message.
    pub fn reload_kernels(&mut self, gpu: &Gpu, dir: &std::path::Path) -> Result<(), ShaderError> {
        let sources = super::shaders::composed_sources_from(dir)
            .map_err(|e| ShaderError { pass: "(reading sources)", message: e.to_string() })?;
        self.kernels.reload(&gpu.device, &sources)
    }

    /// GPU bytes the solver's buffers take, as the capacity check counts them
    /// ([`super::capacity::check_fit`]): per particle, the grid (with room for colliders), and the
    /// bins of each page after the first.
    pub fn gpu_bytes(&self) -> u64 {
        let (count, pages) = (self.particle_count() as u64, self.pages.len() as u32);
        let needed =
            super::capacity::needed_bytes(&self.params, count, self.pages[0].p2g(), pages, self.grid_storage());
        // A dense grid's count has the collider fields always; a sparse grid's once it has them.
        let colliders = self.grid_storage().is_sparse() && self.collider_count > 0;
        needed + if colliders { super::capacity::collider_bytes(self.params.grid.node_count()) } else { 0 }
    }

    /// How the grid is stored now: dense, or a pool of blocks of the size it has grown to.
    pub fn grid_storage(&self) -> GridStorage {
        self.pages[0].grid_storage
    }

    /// The grid storage asked for.
    pub fn grid_mode(&self) -> GridMode {
        self.grid_mode
    }

    /// Grows a sparse grid's pool where a substep since the last report needed more than three
    /// quarters of it (`peak` blocks, [`SolverStats::grid_blocks_peak`]); logs a warning if one
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
        let grown = super::grid_pool::grown_pool(&self.params.grid, pool_blocks, peak)?;
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
    fn check_pages_fit(&self, gpu: &Gpu, p2g: MpmPass, storage: GridStorage) -> Result<(), StateError> {
        let (count, page) = (self.particle_count() as usize, Some(self.pages[0].particle_count));
        super::capacity::check_limits(&gpu.device, &self.params, count, p2g, page, storage).map(|_| ())
    }

    /// New zeroed grid buffers stored as `storage` for every page (checked to fit by the caller).
    fn replace_grid(&mut self, gpu: &Gpu, storage: GridStorage) {
        let (first, rest) = self.pages.split_first_mut().expect("a solver has a page");
        first.replace_grid(&gpu.device, &self.kernels, &self.params.grid, storage);
        for page in rest {
            page.share_grid(&gpu.device, &self.kernels, first);
        }
        self.write_uniforms(gpu);
    }

    /// The particle streams of each page, in order (what the renderer draws).
    pub fn particle_pages(&self) -> Vec<&super::particles::ParticleBuffers> {
        self.pages.iter().map(|page| &page.particles).collect()
    }

    /// The GPU buffers, page by page: page k holds the particles after those of the pages before it,
    /// in the host's order.
    pub fn pages(&self) -> &[ParticlePage] {
        &self.pages
    }

    /// Replaces the parameters for the next substeps. The grid must stay the same. Nothing is
    /// submitted: the stored stress of the new material is recorded ahead of the next substeps or
    /// pass run alone.
    pub fn set_params(&mut self, gpu: &Gpu, params: SolverParams) -> Result<(), SolverError> {
        if params.grid != self.params.grid {
            return Err(SolverError::GridChanged {
                from: self.params.grid.cells.to_array(),
                to: params.grid.cells.to_array(),
            });
        }
        self.params = params;
        self.write_uniforms(gpu);
        self.stress_stale.set(true);
        Ok(())
    }

    /// Sets the substep length.
    pub fn set_dt(&mut self, gpu: &Gpu, dt: f64) {
        self.params.dt = dt;
        self.write_uniforms(gpu);
    }

    /// Sets the grab/repel tool for the next substeps.
    pub fn set_interaction(&mut self, gpu: &Gpu, interaction: Interaction) {
        self.interaction = interaction;
        self.write_uniforms(gpu);
    }

    /// The current tool.
    pub fn interaction(&self) -> &Interaction {
        &self.interaction
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
            let bytes = super::capacity::collider_bytes(frames.from.nodes.len() as u64);
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
        self.write_uniforms(gpu);
        Ok(())
    }

    /// Switches to another substep path (see [`SolverPath`]); the particles and
    /// everything else carry over. A sparse grid runs the sorted path only: another is refused,
    /// with the reason the grid is sparse (it was asked for, or the dense grid does not fit), and
    /// the sorted path keeps running.
    pub fn set_path(&mut self, gpu: &Gpu, path: SolverPath) -> Result<(), SolverError> {
        if path != SolverPath::Sorted && self.grid_storage().is_sparse() {
            let reason = match (self.grid_mode, self.check_pages_fit(gpu, self.pages[0].p2g(), GridStorage::Dense)) {
                (GridMode::Auto, Err(e)) => e.to_string(),
                _ => "the solver was asked for a sparse grid".to_string(),
            };
            return Err(StateError::NeedsDenseGrid { path: path.name(), reason }.into());
        }
        if path.is_binned() && !self.path().is_binned() {
            self.clear_bins_first.set(true);
        }
        for page in &mut self.pages {
            page.set_path(path);
        }
        self.write_uniforms(gpu);
        Ok(())
    }

    /// The substep's path.
    pub fn path(&self) -> SolverPath {
        self.pages[0].path
    }

    /// Chooses the sorted path's P2G kernel, one of [`MpmPass::SORTED_P2G`]; all give the same integers.
    /// Returns the kernel now in use: `p2g_tiled` in place of `p2g_tiled_subgroup` on a device
    /// without subgroups, and the current kernel where `p2g_gather`'s per-particle buffer would not
    /// fit the pages (logged as a warning).
    pub fn set_p2g(&mut self, gpu: &Gpu, pass: MpmPass) -> MpmPass {
        match self.check_pages_fit(gpu, pass, self.grid_storage()) {
            Ok(()) => {
                for page in &mut self.pages {
                    page.set_p2g(&gpu.device, &self.kernels, pass);
                }
            }
            Err(e) => log::warn!("{} refused, keeping {}: {e}", pass.name(), self.p2g_pass().name()),
        }
        self.p2g_pass()
    }

    /// Moves the particles into block order every `interval` substeps on the binned paths (0:
    /// never); see [`super::sort::reorder`].
    pub fn set_reorder_interval(&mut self, gpu: &Gpu, interval: u32) {
        for page in &mut self.pages {
            page.reorder.set_interval(interval);
        }
        self.write_uniforms(gpu);
    }

    /// Substeps between two reorders (0: none).
    pub fn reorder_interval(&self) -> u32 {
        self.pages[0].reorder.interval()
    }

    /// The kernel the sorted path's P2G stage runs.
    pub fn p2g_pass(&self) -> MpmPass {
        substep::sorted_p2g(&self.kernels, &self.pages[0])
    }

    /// The names of the four timed stages of a substep as this solver runs them:
    /// [`SolverPath::stage_names`], with the P2G variant in use on the sorted path.
    pub fn stage_names(&self) -> [&'static str; 4] {
        let mut names = self.path().stage_names();
        if self.path() == SolverPath::Sorted {
            names[1] = self.p2g_pass().name();
        }
        names
    }

    /// Number of colliders the grid update applies.
    pub fn collider_count(&self) -> u32 {
        self.collider_count
    }

    fn write_uniforms(&self, gpu: &Gpu) {
        for page in &self.pages {
            let state = PageUniforms {
                particle_count: page.particle_count,
                collider_count: self.collider_count,
                particle_order: page.path.particle_order(page.reorder.interval() > 0),
                keep_grid_sums: self.pages.len() > 1,
                grid_pool_blocks: page.grid_storage.pool_blocks(),
                // The first page's sort hands the pool's blocks out anew; the others' add to them.
                reset_grid_blocks: page.grid_storage.is_sparse() && std::ptr::eq(page, &self.pages[0]),
                pb_relaxation: self.integrator.pbmpm().map_or(0.0, |s| s.relaxation as f32),
                pb_yield_time: self.integrator.pbmpm().map_or(0.0, |s| s.yield_time as f32),
            };
            page.write_params(&gpu.queue, &self.params.to_gpu(&state, &self.interaction));
        }
        // A pass run alone ([`Solver::run_pass`]) steps by params.dt at the end of the collider
        // frame, until a frame's first substep sets the clock.
        self.write_clock_dt(gpu, self.params.dt, 1.0);
    }

    /// Replaces all particles (a reset or a new scene on the same grid and kernels).
    pub fn replace_particles(&mut self, gpu: &Gpu, particles: &[GpuParticle]) -> Result<(), SolverError> {
        self.replace_state(gpu, self.params, particles)
    }

    /// A new state for `particles` on `params`' grid, keeping the path, P2G kernel and reorder
    /// interval; the colliders are gone until set again. On error the old state stays.
    fn replace_state(&mut self, gpu: &Gpu, params: SolverParams, particles: &[GpuParticle]) -> Result<(), SolverError> {
        let (path, p2g, interval) = (self.path(), self.pages[0].p2g(), self.reorder_interval());
        let (device, capacity) = (&gpu.device, self.page_capacity);
        let storage = build::choose_storage(device, &params, particles, p2g, capacity, self.grid_mode)?;
        let path = build::sorted_if_sparse(path, storage);
        let options = StateOptions { path, p2g, page_capacity: capacity, storage };
        self.pages = ParticlePage::new_pages(device, &self.kernels, &params, particles, options)?;
        for page in &mut self.pages {
            page.reorder.set_interval(interval);
        }
        self.params = params;
        self.collider_count = 0;
        self.write_uniforms(gpu);
        self.stress_stale.set(true);
        Ok(())
    }

    /// Moves the simulation onto a new grid (and parameters), keeping the particles where they
    /// are (clamped into the new domain if it is smaller). If the new grid does not fit the GPU,
    /// the error says why and the old state keeps running.
    pub fn rebuild_grid(&mut self, gpu: &Gpu, params: SolverParams) -> Result<(), SolverError> {
        if self.expects_colliders {
            super::capacity::check_collider_fields(&gpu.device, &params)?;
        }
        let mut particles = self.read_particles(gpu)?;
        let (lo, hi) = (params.grid.domain_min.as_vec3(), params.grid.domain_max().as_vec3());
        for p in &mut particles {
            p.position = glam::Vec3::from(p.position).clamp(lo, hi).to_array();
        }
        self.replace_state(gpu, params, &particles)
    }

    /// Runs the passes of one stage of a substep on their own (for tests that check a stage
    /// against the CPU twin): `GridClear`, `P2g`, `GridUpdate`, `G2p` on the current path, or any
    /// other pass alone. On the sorted and fused paths `GridClear` runs the `sort` stage and also
    /// zeroes the grid (in a substep the previous grid update did that), and `P2g` and `GridUpdate`
    /// run [`Solver::p2g_pass`] and grid_update_blocks on the bins of the last sort (of every
    /// page): stage by stage the fused path is the sorted path (g2p2g
    /// runs within [`Solver::step`], or alone as `G2p2g`). `Reorder` or `ReorderCopy` runs a whole
    /// reorder: the rounds of the two interleave. A particle pass runs over every page; a pass over
    /// the grid runs once.
    pub fn run_pass(&self, gpu: &Gpu, pass: MpmPass) {
        let (first, pages) = (&self.pages[0], &self.pages[..]);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.record_stale_stress(&mut encoder);
        let e = &mut encoder;
        let k = &self.kernels;
        self.clear_bins_first.set(true);
        self.write_clock_running(gpu);
        match (first.path, pass) {
            (path, MpmPass::GridClear) if path.is_binned() => {
                // In a substep the previous grid update zeroed the sums and the cell counters; a
                // stage run alone may follow a sort that no grid update did.
                self.record_clean_bins(e);
                record::record_runs(e, k, "sort", &super::sort::bins::sort_runs(pages, |_| false), None);
            }
            (path, MpmPass::P2g) if path.is_binned() => {
                for page in pages {
                    substep::record_sorted_p2g(e, k, page, None);
                }
            }
            (path, MpmPass::GridUpdate) if path.is_binned() => {
                let updates = record::page_runs(pages, |page| {
                    vec![(MpmPass::GridUpdateBlocks, record::dispatch_of(MpmPass::GridUpdateBlocks, page))]
                });
                record::record_runs(e, k, "grid_update_blocks", &updates, None);
            }
            (_, pass) if pass.info().takes_round => {
                record::record_runs(e, k, "reorder", &record::page_runs(pages, super::sort::reorder::dispatches), None);
            }
            (_, MpmPass::GridClear | MpmPass::GridUpdate) => record::record_pass(e, k, first, pass, None),
            _ => {
                // g2p2g finds nodes by their dense index; a sparse grid has no such places.
                assert!(
                    !(first.grid_storage.is_sparse() && pass == MpmPass::G2p2g),
                    "g2p2g does not run on a sparse grid"
                );
                let runs = record::page_runs(pages, |page| vec![(pass, record::dispatch_of(pass, page))]);
                record::record_runs(e, k, pass.name(), &runs, None);
            }
        }
        gpu.queue.submit([encoder.finish()]);
    }

    /// Records the zeroing of the grid's sums, a sparse grid's map and every page's bins, counters
    /// and cell counters: the state no sort has run in. A grid update leaves the sums and cell
    /// counters zero and `bin_clear` empties the bins the last sort listed, but after a pass run
    /// alone or a step on the naive path neither need hold ([`Solver::clear_bins_first`]).
    fn record_clean_bins(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.clear_buffer(&self.pages[0].grid_fixed, 0, None);
        encoder.clear_buffer(&self.pages[0].block_slots, 0, None);
        for page in &self.pages {
            for buffer in [&page.cell_bins, &page.block_bins, &page.bin_header] {
                encoder.clear_buffer(buffer, 0, None);
            }
        }
    }

    /// Distance along the ray from `origin` in unit direction `direction` to the nearest particle
    /// within `radius` of the ray, or `None` if the ray misses the snow.
    pub fn pick(
        &self,
        gpu: &Gpu,
        origin: glam::Vec3,
        direction: glam::Vec3,
        radius: f32,
    ) -> Result<Option<f32>, SolverError> {
        let ray = GpuPickRay { origin: origin.to_array(), radius, direction: direction.to_array(), _pad: 0.0 };
        // The ray and the status are shared by all pages; each page's pick folds into the nearest.
        let first = &self.pages[0];
        gpu.queue.write_buffer(&first.pick_ray, 0, bytemuck::bytes_of(&ray));
        let offset = std::mem::offset_of!(GpuSolverStatus, pick_distance_bits) as u64;
        gpu.queue.write_buffer(&first.status, offset, &f32::INFINITY.to_bits().to_le_bytes());
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for page in &self.pages {
            record::record_pass(&mut encoder, &self.kernels, page, MpmPass::Pick, None);
        }
        gpu.queue.submit([encoder.finish()]);
        let bytes = gpu.read_buffer(&first.status)?;
        let status: GpuSolverStatus = bytemuck::pod_read_unaligned(&bytes);
        let distance = f32::from_bits(status.pick_distance_bits);
        Ok(distance.is_finite().then_some(distance))
    }

    /// The largest stable substep for the current state (runs `stats`), once a frame before its
    /// substeps: a sparse grid's pool grows here if the last frame's substeps came near its end
    /// ([`Solver::fit_grid_pool`]).
    pub fn stable_dt(&mut self, gpu: &Gpu, cfl: f64) -> Result<(f64, SolverStats), SolverError> {
        let s = self.stats(gpu)?;
        Ok((self.stable_dt_of(gpu, &s, cfl), s))
    }

    /// [`Solver::stable_dt`] from stats already read ([`Solver::take_stats`]): the sparse grid's
    /// pool fitted to them, and the stable dt of the state they describe.
    pub fn stable_dt_of(&mut self, gpu: &Gpu, s: &SolverStats, cfl: f64) -> f64 {
        self.fit_grid_pool(gpu, s.grid_blocks_peak);
        let stable = stable_dt(&self.params, s.max_speed, s.max_hardening, cfl);
        self.last_stable_dt.set(Some(stable));
        stable
    }
}
