//! Recording and submitting whole water steps: one submission a step, so the GPU runs one step
//! while the host records the next (a step is thousands of dispatches, whose recording takes the
//! host milliseconds).

use super::WaterGpu;
use crate::gpu::Gpu;

impl WaterGpu {
    /// Records one step of the length [`WaterGpu::prepare`] set.
    pub fn record_step(&self, encoder: &mut wgpu::CommandEncoder) {
        self.record_step_marked(encoder, &mut |_, _| {});
    }

    /// Submits `steps` steps of the length [`WaterGpu::prepare`] set, a submission each, `last`
    /// recording more into the final one (after its step, or alone where `steps` is 0); returns
    /// that submission.
    pub fn submit_steps(
        &self,
        gpu: &Gpu,
        steps: usize,
        last: &mut dyn FnMut(&mut wgpu::CommandEncoder),
    ) -> wgpu::SubmissionIndex {
        let encoder = || gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("water") });
        for _ in 1..steps {
            let mut step = encoder();
            self.record_step(&mut step);
            gpu.queue.submit([step.finish()]);
        }
        let mut final_step = encoder();
        if steps > 0 {
            self.record_step(&mut final_step);
        }
        last(&mut final_step);
        gpu.queue.submit([final_step.finish()])
    }

    /// Advances `steps` steps of `dt` seconds ([`WaterGpu::submit_steps`]).
    pub fn advance_steps(&mut self, gpu: &Gpu, steps: usize, dt: f64) {
        self.prepare(gpu, dt);
        self.submit_steps(gpu, steps, &mut |_| {});
    }
}
