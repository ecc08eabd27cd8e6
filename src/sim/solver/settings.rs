//! Changing a [`Solver`]'s settings between frames: the integrator, the parameters and dt, the
//! tool, the substep path, the sorted path's P2G kernel, the reorder interval, the kernels (hot
//! reload); each rewrites the pages' uniform blocks ([`Solver::write_uniforms`]).

use super::error::SolverError;
use super::state::Solver;
use crate::gpu::Gpu;
use crate::sim::grid_pool::{GridMode, GridStorage};
use crate::sim::integrator::Integrator;
use crate::sim::interaction::Interaction;
use crate::sim::page::StateError;
use crate::sim::params::{PageUniforms, SolverParams};
use crate::sim::passes::MpmPass;
use crate::sim::path::SolverPath;
use crate::sim::pipelines::ShaderError;

impl Solver {
    /// Switches the integrator (its settings checked first). The particles carry over; the next
    /// frame steps with the new one. Switching to or from water where the particles hold liquid
    /// and other materials moves the liquid out of the pages or back ([`super::mixed`]).
    pub fn set_integrator(&mut self, gpu: &Gpu, integrator: Integrator) -> Result<(), SolverError> {
        integrator.validate()?;
        if integrator.water().is_some() && self.pages.len() > 1 {
            return Err(SolverError::WaterPages { pages: self.pages.len() });
        }
        let kind_changed = integrator.name() != self.integrator.name();
        if kind_changed && (integrator.water().is_some() || self.companion.is_some()) {
            let all = self.read_particles(gpu)?;
            let (_, water) = super::mixed::split(&self.params, &integrator, &all);
            if water.is_empty() == self.companion.is_some() {
                let was = std::mem::replace(&mut self.integrator, integrator);
                if let Err(e) = self.replace_keeping_colliders(gpu, &all) {
                    self.integrator = was;
                    return Err(e);
                }
            }
        }
        self.integrator = integrator;
        self.write_uniforms(gpu);
        Ok(())
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
    /// never); see [`crate::sim::sort::reorder`].
    pub fn set_reorder_interval(&mut self, gpu: &Gpu, interval: u32) {
        for page in &mut self.pages {
            page.reorder.set_interval(interval);
        }
        self.write_uniforms(gpu);
    }

    /// Rebuilds the kernels from the shader files on disk (hot reload). On failure the previous
    /// kernels keep running and the error carries naga's message.
    pub fn reload_kernels(&mut self, gpu: &Gpu, dir: &std::path::Path) -> Result<(), ShaderError> {
        let sources = crate::sim::shaders::composed_sources_from(dir)
            .map_err(|e| ShaderError { pass: "(reading sources)", message: e.to_string() })?;
        self.kernels.reload(&gpu.device, &sources)
    }

    pub(crate) fn write_uniforms(&self, gpu: &Gpu) {
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
                pb_tolerance: self.integrator.pbmpm().map_or(0.0, |s| s.tolerance as f32),
            };
            page.write_params(&gpu.queue, &self.params.to_gpu(&state, &self.interaction));
        }
        // A pass run alone ([`Solver::run_pass`]) steps by params.dt at the end of the collider
        // frame, until a frame's first substep sets the clock.
        self.write_clock_dt(gpu, self.params.dt, 1.0);
    }
}
