//! What each pass of a PB-MPM step costs on the GPU, for `powder bench`: every dispatch of the step
//! recorded in a compute pass of its own between two timestamps. A pass alone pays its own launch
//! and the barrier before it, which the step as the app records it (one compute pass) pays too; the
//! sum over passes is therefore close to a step's GPU time, not a measure of the overlap the
//! driver finds between passes.

use super::error::SolverError;
use super::state::Solver;
use crate::gpu::Gpu;
use crate::sim::explicit::clock::FrameStep;
use crate::sim::passes::MpmPass;
use crate::sim::record::{PassTimestamps, record_runs};

/// One pass's share of a profiled step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PassTime {
    /// The pass.
    pub pass: MpmPass,
    /// Its dispatches in one step.
    pub dispatches: f64,
    /// GPU milliseconds of all of them, per step.
    pub ms: f64,
}

impl Solver {
    /// Runs `steps` PB-MPM steps of `dt` seconds as the current settings say, each dispatch timed
    /// alone, and returns each pass's dispatches and milliseconds per step, the costliest first.
    /// `None` where the device has no timestamp queries. It steps the snow on.
    pub fn profile_pbmpm(&self, gpu: &Gpu, steps: u32, dt: f64) -> Result<Option<Vec<PassTime>>, SolverError> {
        if !gpu.has_timestamps || steps == 0 {
            return Ok(None);
        }
        let settings = self.integrator.pbmpm().copied().unwrap_or_default();
        self.begin_frame(gpu, steps as f64 * dt, FrameStep::Fixed { dt, substeps: steps });
        self.note_steps_recorded();
        let period = gpu.queue.get_timestamp_period() as f64 * 1e-6;
        let mut totals: Vec<PassTime> = Vec::new();
        // The queries and their resolve buffer, made again only for a step with more dispatches
        // (the reorder runs on some steps only).
        let mut slots: Option<(wgpu::QuerySet, wgpu::Buffer, u32)> = None;
        for _ in 0..steps {
            let runs = crate::sim::pbmpm::gpu::step_runs(&self.pages, &settings, &self.params);
            let dispatches: Vec<_> =
                runs.iter().flat_map(|(page, list)| list.iter().map(move |&d| (*page, d))).collect();
            let queries = 2 * dispatches.len() as u32;
            if slots.as_ref().is_some_and(|(_, _, capacity)| *capacity < queries) {
                slots = None;
            }
            let (query_set, resolve, _) = slots.get_or_insert_with(|| {
                let (query_set, resolve) = gpu.timestamp_queries("profile", queries);
                (query_set, resolve, queries)
            });
            let mut encoder =
                gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("profile") });
            for (i, &(page, (pass, dispatch))) in dispatches.iter().enumerate() {
                let stamps = PassTimestamps { query_set: &*query_set, first: 2 * i as u32 };
                record_runs(&mut encoder, &self.kernels, pass.name(), &[(page, vec![(pass, dispatch)])], Some(stamps));
            }
            encoder.resolve_query_set(query_set, 0..queries, &*resolve, 0);
            gpu.queue.submit([encoder.finish()]);
            // The buffer may be larger than this step's queries; zip below stops at its dispatches.
            let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(resolve)?);
            for (&(_, (pass, _)), t) in dispatches.iter().zip(ticks.chunks_exact(2)) {
                let ms = t[1].saturating_sub(t[0]) as f64 * period / steps as f64;
                match totals.iter_mut().find(|p| p.pass == pass) {
                    Some(p) => {
                        p.ms += ms;
                        p.dispatches += 1.0 / steps as f64;
                    }
                    None => totals.push(PassTime { pass, dispatches: 1.0 / steps as f64, ms }),
                }
            }
        }
        // As after any PB-MPM steps (record_pbmpm_then).
        self.clear_bins_first.set(true);
        totals.sort_by(|a, b| b.ms.total_cmp(&a.ms));
        Ok(Some(totals))
    }
}
