//! Passes a [`Solver`] runs outside a step: one stage or pass alone (tests against the CPU twin),
//! the pick ray, and the stored stress refreshed or restored.

use super::error::SolverError;
use super::state::Solver;
use crate::gpu::Gpu;
use crate::sim::explicit::substep;
use crate::sim::params::{GpuPickRay, GpuSolverStatus};
use crate::sim::particles::StoredStress;
use crate::sim::passes::MpmPass;
use crate::sim::record;
use crate::sim::sort::bins::sort_runs;
use crate::sim::sort::reorder;

impl Solver {
    /// Fills the particles' stored stress from their F and Jp (the `stress` pass): after an upload,
    /// whose stress stream starts at zero, and after a material change.
    pub(crate) fn refresh_stress(&self, gpu: &Gpu) {
        self.stress_stale.set(true);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.record_stale_stress(&mut encoder);
        gpu.queue.submit([encoder.finish()]);
    }

    /// Replaces the stored stress τ of a solver whose pages hold its particles in the host's
    /// order (just built) with `stress`, one entry per particle in that order, as
    /// [`crate::sim::checkpoint::SolverSnapshot`] saved it; the `stress` pass then does not run. The
    /// caller checks the count ([`crate::sim::checkpoint::SolverSnapshot::restore_stored`]).
    pub(crate) fn restore_stress(&self, gpu: &Gpu, stress: &[StoredStress]) {
        let mut start = 0;
        for page in &self.pages {
            let end = start + page.particle_count as usize;
            gpu.queue.write_buffer(&page.particles.stress, 0, bytemuck::cast_slice(&stress[start..end]));
            start = end;
        }
        self.stress_stale.set(false);
    }

    /// Records the `stress` pass over every page if the stored stress is stale.
    pub(crate) fn record_stale_stress(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.stress_stale.replace(false) {
            for page in &self.pages {
                record::record_pass(encoder, &self.kernels, page, MpmPass::Stress, None);
            }
        }
    }

    /// Refreshes a stale stored stress now ([`Solver::record_stale_stress`] in a submission of its
    /// own), so that what is read back is what the next step would use: a checkpoint taken right
    /// after new particles were added must hold the stress the uninterrupted run steps with.
    pub(crate) fn refresh_stale_stress(&self, gpu: &Gpu) {
        if self.stress_stale.get() {
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            self.record_stale_stress(&mut encoder);
            gpu.queue.submit([encoder.finish()]);
        }
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
        self.note_steps_recorded();
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
                record::record_runs(e, k, "sort", &sort_runs(pages, |_| false), None);
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
                record::record_runs(e, k, "reorder", &record::page_runs(pages, reorder::dispatches), None);
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
    pub(crate) fn record_clean_bins(&self, encoder: &mut wgpu::CommandEncoder) {
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
}
