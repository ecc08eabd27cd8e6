//! The frame both render benchmarks draw (`--render` in [`super::render`], `--realtime` in
//! [`super::realtime`]): the solver's particles, offscreen, with the app's renderer and the camera
//! framing the domain.

use crate::gpu::Gpu;
use crate::render::offscreen::{DEFAULT_OFFSCREEN_FORMAT, OffscreenTarget};
use crate::render::{Camera, FrameInputs, RenderSettings, Renderer};
use crate::sim::Solver;

/// An offscreen target, the renderer drawing into it and the camera framing a solver's domain.
pub(crate) struct OffscreenView {
    target: OffscreenTarget,
    /// The renderer (its counts of drawn particles and surface triangles are read after a frame).
    pub(crate) renderer: Renderer,
    camera: Camera,
    particle_radius: f32,
}

impl OffscreenView {
    /// A `width`×`height` view of `solver`'s domain, drawing particles of `particle_spacing` (the
    /// scene's) at the renderer's recommended sample count for this GPU.
    pub(crate) fn new(gpu: &Gpu, solver: &Solver, particle_spacing: f64, (width, height): (u32, u32)) -> Self {
        let format = DEFAULT_OFFSCREEN_FORMAT;
        let target = OffscreenTarget::new(&gpu.device, width, height, format);
        let mut renderer = Renderer::new(&gpu.device, format, Self::sample_count(gpu));
        renderer.resize(&gpu.device, width, height);
        let grid = solver.params().grid;
        let mut camera = Camera::default();
        camera.frame(grid.domain_min.as_vec3(), grid.domain_max().as_vec3());
        Self { target, renderer, camera, particle_radius: 0.5 * particle_spacing as f32 }
    }

    /// Samples per pixel the view draws with on `gpu`.
    pub(crate) fn sample_count(gpu: &Gpu) -> u32 {
        Renderer::recommended_sample_count(&gpu.info)
    }

    /// Draws `solver`'s particles with `settings` and waits for the GPU; with `timer`, timestamps
    /// before and after the drawing. Every frame splats the volume, as a frame whose snow moved does.
    pub(crate) fn draw(&mut self, gpu: &Gpu, solver: &Solver, settings: &RenderSettings, timer: Option<&FrameTimer>) {
        let grid = solver.params().grid;
        let inputs = FrameInputs {
            camera: &self.camera,
            settings,
            particles: solver.particle_pages(),
            particle_count: solver.particle_count(),
            particle_radius: self.particle_radius,
            domain_min: grid.domain_min.as_vec3(),
            domain_max: grid.domain_max().as_vec3(),
            moved: None,
        };
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        if let Some(t) = timer {
            t.mark(&mut encoder, 0);
        }
        self.renderer.render(&gpu.device, &gpu.queue, &mut encoder, self.target.view(), &inputs);
        if let Some(t) = timer {
            t.mark(&mut encoder, 1);
        }
        gpu.queue.submit([encoder.finish()]);
        gpu.wait_idle();
    }
}

/// Two timestamps around a frame's rendering, written by empty compute passes (a pass is where
/// plain timestamp queries may be written), resolved and read back after the frame.
pub(crate) struct FrameTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
}

impl FrameTimer {
    pub(crate) fn new(gpu: &Gpu) -> Self {
        let (queries, resolve) = gpu.timestamp_queries("bench.render.timestamps", 2);
        Self { queries, resolve, period: gpu.queue.get_timestamp_period() as f64 }
    }

    /// Writes timestamp `index` (0 before the frame, 1 after it; 1 also resolves both).
    pub(crate) fn mark(&self, encoder: &mut wgpu::CommandEncoder, index: u32) {
        let writes = wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: (index == 0).then_some(0),
            end_of_pass_write_index: (index == 1).then_some(1),
        };
        drop(encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench.render.timestamp"),
            timestamp_writes: Some(writes),
        }));
        if index == 1 {
            encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
        }
    }

    /// The milliseconds between the two timestamps of the last frame (waits for the GPU).
    pub(crate) fn read_ms(&self, gpu: &Gpu) -> Result<f64, crate::gpu::GpuError> {
        let bytes = gpu.read_buffer(&self.resolve)?;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(ticks[1].saturating_sub(ticks[0]) as f64 * self.period * 1e-6)
    }
}
