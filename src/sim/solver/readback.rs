//! Copies of the solver's state back to the host: particles, grids, the sort's bins and the
//! status counters. Each is one submission and one wait, except [`Solver::request_stats`], whose
//! wait is the caller's; the stepping never reads back more than the clock
//! ([`Solver::step_frame`], [`Solver::batch_clock`]).

use super::error::SolverError;
use super::state::{SolveTotals, Solver};
use super::stats::SolverStats;
use crate::gpu::{Gpu, GpuError, PendingRead};
use crate::sim::params::{GpuParticle, GpuSolverStatus};
use crate::sim::passes::MpmPass;
use crate::sim::record;
use crate::sim::sort::bins::{GpuBinHeader, GpuBlockBin};

/// The `stats` pass on its way back ([`Solver::request_stats`]).
pub struct PendingStats {
    read: PendingRead,
    /// [`Solver`]'s count of recorded steps when the pass was recorded: the state it measures.
    steps_recorded: u64,
    /// The submission it is in.
    pub submission: wgpu::SubmissionIndex,
}

/// The sorted path's bins as the last `sort` left them.
#[derive(Clone, Debug)]
pub struct BinsReadback {
    /// The counters.
    pub header: GpuBinHeader,
    /// The indirect dispatch sizes `bin_dispatch` wrote (workgroups x, y, z, unused): the sorted
    /// P2G kernels' (per occupied block), `grid_update_blocks`'s (per touched block) and
    /// `bin_offsets`'s (eight threads per occupied block).
    pub dispatch_args: [[u32; 4]; 3],
    /// One bin per grid block.
    pub bins: Vec<GpuBlockBin>,
    /// The occupied blocks, in the order `bin_count` found them.
    pub occupied: Vec<u32>,
    /// The touched blocks, in an arbitrary order (each workgroup of `bin_offsets` reserves its list
    /// places and its ranges with separate atomics).
    pub touched: Vec<u32>,
    /// Particle indices (in the host's order, as [`Solver::read_particles`] returns them) in block
    /// order.
    pub order: Vec<u32>,
}

impl Solver {
    /// Copies the counters of every page's last `sort` back, page by page.
    pub fn read_bin_headers(&self, gpu: &Gpu) -> Result<Vec<GpuBinHeader>, SolverError> {
        let buffers: Vec<&wgpu::Buffer> = self.pages.iter().map(|page| &page.bin_header).collect();
        let read = gpu.read_buffers(&buffers)?;
        Ok(read.iter().map(|bytes| bytemuck::pod_read_unaligned(bytes)).collect())
    }

    /// Copies the bins of the first page's last `sort` back, particle order included (for tests of
    /// the sort).
    pub fn read_bins(&self, gpu: &Gpu) -> Result<BinsReadback, SolverError> {
        let s = &self.pages[0];
        let read = gpu.read_buffers(&[
            &s.block_lists,
            &s.bin_header,
            &s.indirect_args,
            &s.block_bins,
            &s.particle_order,
            &s.particles.id,
        ])?;
        let [lists, header, dispatch_args, bins, stored_order, ids]: [Vec<u8>; 6] =
            read.try_into().expect("read_buffers returns one readback per buffer");
        let lists: Vec<u32> = bytemuck::pod_collect_to_vec(&lists);
        let header: GpuBinHeader = bytemuck::pod_read_unaligned(&header);
        let bins = bytemuck::pod_collect_to_vec(&bins);
        // particle_order holds places in the GPU's (reordered) storage; name the particles by
        // their host index instead. A place out of range (a broken sort) stays as it is, for the
        // tests to report.
        let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&ids);
        let ids = &ids[..s.particle_count as usize];
        let stored_order: Vec<u32> = bytemuck::pod_collect_to_vec(&stored_order);
        let order = stored_order.iter().map(|&k| ids.get(k as usize).copied().unwrap_or(k)).collect();
        let blocks = s.block_count as usize;
        Ok(BinsReadback {
            occupied: lists[..(header.occupied_count as usize).min(blocks)].to_vec(),
            touched: lists[blocks..blocks + (header.touched_count as usize).min(blocks)].to_vec(),
            header,
            // bin_dispatch's entries, ahead of the clock's gated ones.
            dispatch_args: bytemuck::pod_read_unaligned(
                &dispatch_args[..crate::sim::sort::bins::INDIRECT_ARGS_BYTES as usize],
            ),
            bins,
            order,
        })
    }

    /// Copies the particles back to the host, in the order the host gave them (page by page);
    /// where water meets snow, the pages' and then the water's, each in the host's order.
    pub fn read_particles(&self, gpu: &Gpu) -> Result<Vec<GpuParticle>, SolverError> {
        let mut particles = Vec::with_capacity(self.particle_count() as usize);
        for page in &self.pages {
            particles.extend(page.particles.read(gpu)?);
        }
        if let Some(water) = &self.companion {
            particles.extend(water.read(gpu)?);
        }
        Ok(particles)
    }

    /// Copies the fixed-point grid back to the host: per node the exact integer sums of mass and
    /// momentum x, y, z (each kept on the GPU as a low and a high i32 word).
    pub fn read_grid_fixed(&self, gpu: &Gpu) -> Result<Vec<[i64; 4]>, SolverError> {
        let (bytes, slots) = self.read_grid_buffer(gpu, &self.pages[0].grid_fixed)?;
        let words: Vec<[u32; 8]> = bytemuck::pod_collect_to_vec(&bytes);
        let wide = |low: u32, high: u32| ((high as i32 as i64) << 32) | low as i64;
        let sums = words.iter().map(|w| [wide(w[0], w[1]), wide(w[2], w[3]), wide(w[4], w[5]), wide(w[6], w[7])]);
        Ok(self.dense_grid(sums.collect(), slots))
    }

    /// Copies the grid velocities (xyz) and masses (w) back to the host, one per node of the dense
    /// grid ([`crate::grid::GridSpec::node_index`]; on a sparse grid zero where a block had no
    /// pool block in the last substep).
    pub fn read_grid_velocity(&self, gpu: &Gpu) -> Result<Vec<[f32; 4]>, SolverError> {
        let (bytes, slots) = self.read_grid_buffer(gpu, &self.pages[0].grid_velocity)?;
        Ok(self.dense_grid(bytemuck::pod_collect_to_vec(&bytes), slots))
    }

    /// Copies `buffer` (one entry per stored node) back, and on a sparse grid the block map the last
    /// sort left, in the same readback.
    fn read_grid_buffer(&self, gpu: &Gpu, buffer: &wgpu::Buffer) -> Result<(Vec<u8>, Option<Vec<u32>>), SolverError> {
        if !self.grid_storage().is_sparse() {
            return Ok((gpu.read_buffer(buffer)?, None));
        }
        let [stored, slots]: [Vec<u8>; 2] = gpu
            .read_buffers(&[buffer, &self.pages[0].block_slots])?
            .try_into()
            .expect("read_buffers returns one readback per buffer");
        Ok((stored, Some(bytemuck::pod_collect_to_vec(&slots))))
    }

    /// `stored` (one entry per stored node) in the dense grid's order: itself on a dense grid; on a
    /// sparse one (whose block map is `slots`) each node's entry found through the map.
    fn dense_grid<T: Copy + Default>(&self, stored: Vec<T>, slots: Option<Vec<u32>>) -> Vec<T> {
        let Some(slots) = slots else {
            return stored;
        };
        let grid = &self.params.grid;
        let d = grid.node_dims();
        let mut dense = vec![T::default(); grid.node_count() as usize];
        for k in 0..d.z {
            for j in 0..d.y {
                for i in 0..d.x {
                    if let Some(place) = crate::sim::grid_pool::sparse_place(grid, &slots, glam::UVec3::new(i, j, k)) {
                        dense[grid.node_index(i, j, k)] = stored[place];
                    }
                }
            }
        }
        dense
    }

    /// Runs the `stats` pass and reads the status back; the counters restart from zero.
    pub fn stats(&self, gpu: &Gpu) -> Result<SolverStats, SolverError> {
        let pending = self.request_stats(gpu);
        gpu.wait_idle();
        match self.take_stats(&pending) {
            Some(result) => result,
            None => Err(GpuError::Readback { label: "status".to_string(), reason: "not mapped".to_string() }.into()),
        }
    }

    /// Submits the `stats` pass and the copy of the status back, without waiting:
    /// [`Solver::take_stats`] reads it once the GPU has done it. The counters restart from zero
    /// after the copy.
    pub fn request_stats(&self, gpu: &Gpu) -> PendingStats {
        // The maxima start fresh for this pass; the counters (first 8 bytes) keep what the passes
        // since the last report added.
        let reset = GpuSolverStatus::reset();
        let maxima = &bytemuck::bytes_of(&reset)[8..24];
        // The status buffer is one of all pages, which the stats pass of each folds into.
        let status_buffer = &self.pages[0].status;
        self.stats_reads.set(self.stats_reads.get() + 1);
        gpu.queue.write_buffer(status_buffer, 8, maxima);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for page in &self.pages {
            record::record_pass(&mut encoder, &self.kernels, page, MpmPass::Stats, None);
        }
        let read = gpu.record_read(&mut encoder, &[status_buffer]);
        encoder.clear_buffer(status_buffer, 0, Some(8));
        // fused_count, the pool's counts and the solve's residual and counts, the struct's last six
        // words (the sort resets grid_blocks_used every substep anyway).
        const TAIL: usize = std::mem::offset_of!(GpuSolverStatus, fused_count);
        const _: () = assert!(TAIL + 24 == size_of::<GpuSolverStatus>());
        encoder.clear_buffer(status_buffer, TAIL as u64, Some(24));
        let submission = gpu.queue.submit([encoder.finish()]);
        read.start();
        PendingStats { read, submission, steps_recorded: self.steps_recorded.get() }
    }

    /// What PB-MPM's Newton–PCG steps did over every stats read since the last call (whoever read
    /// them: the frame planner reads them too), and starts over.
    pub fn take_solve_totals(&self) -> SolveTotals {
        self.solve_totals.take()
    }

    /// The stats [`Solver::request_stats`] asked for, once the GPU has done them and the device
    /// has been polled ([`Gpu::poll`]); `None` before.
    pub fn take_stats(&self, pending: &PendingStats) -> Option<Result<SolverStats, SolverError>> {
        let bytes = match pending.read.take()? {
            Ok(mut parts) => parts.pop().unwrap_or_default(),
            Err(e) => return Some(Err(e.into())),
        };
        let status: GpuSolverStatus = bytemuck::pod_read_unaligned(&bytes[..size_of::<GpuSolverStatus>()]);
        let mut max_speed = f32::from_bits(status.max_speed_bits) as f64;
        if self.companion.is_some() {
            // The pages hold the snow; the water's fastest comes from its last frame.
            max_speed = max_speed.max(self.water_status.get().map_or(0.0, |s| s.fastest));
        }
        let max_hardening = f32::from_bits(status.max_hardening_bits) as f64;
        self.measured_speed.set(Some((pending.steps_recorded, max_speed, max_hardening)));
        let solve = SolveTotals {
            steps: status.solve_steps as u64,
            iterations: status.solve_iterations as u64,
            max_residual: f32::from_bits(status.max_solve_residual_bits) as f64,
        };
        self.solve_totals.set(self.solve_totals.get().and(solve));
        Some(Ok(SolverStats {
            max_speed,
            max_hardening,
            min_plastic_jacobian: f32::from_bits(status.min_plastic_jacobian_bits) as f64,
            max_plastic_jacobian: f32::from_bits(status.max_plastic_jacobian_bits) as f64,
            overflow_count: status.overflow_count,
            nonfinite_count: status.nonfinite_count,
            fused_particles: status.fused_count,
            grid_blocks_peak: status.grid_blocks_peak,
            solve,
        }))
    }
}
