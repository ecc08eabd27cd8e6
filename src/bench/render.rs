//! `powder bench --render`: the app's frame without a window. Each frame runs its substeps and then
//! renders into an offscreen target, timed from the host with a device sync after each part, and
//! where the device has timestamp queries also on the GPU: from before the frame's first pass to
//! after its last (two empty compute passes that carry the timestamps), which leaves out the
//! host's recording and the wait.

use std::time::Instant;

use super::{BenchCase, case_solver, median};
use crate::gpu::Gpu;
use crate::render::offscreen::OffscreenTarget;
use crate::render::{Camera, FrameInputs, RenderMode, RenderSettings, Renderer};
use crate::runner::RunError;

/// Output size and frame count of a render benchmark.
#[derive(Clone, Copy, Debug)]
pub struct RenderBenchOptions {
    /// Frames timed (after 3 warm-up frames).
    pub frames: u32,
    /// Substeps per frame.
    pub substeps_per_frame: u32,
    /// Output width in pixels.
    pub width: u32,
    /// Output height in pixels.
    pub height: u32,
}

/// Median times of one render benchmark case, in milliseconds.
#[derive(Clone, Debug)]
pub struct RenderBenchResult {
    /// Particles simulated and drawn.
    pub particle_count: u32,
    /// What was drawn.
    pub mode: RenderMode,
    /// Samples per pixel (4× MSAA on GPUs, 1 on software drivers).
    pub sample_count: u32,
    /// Median simulation time per frame (all substeps).
    pub sim_ms: f64,
    /// Median render time per frame.
    pub render_ms: f64,
    /// Median of sim + render per frame.
    pub frame_ms: f64,
    /// Median GPU time of the rendering per frame, from timestamps (`None` without them).
    pub gpu_render_ms: Option<f64>,
    /// Particles the last frame drew as impostors after culling (`None` in the modes without them).
    pub drawn: Option<u32>,
    /// Triangles of the last frame's snow surface (`Surface` mode only).
    pub surface_triangles: Option<u32>,
}

/// Runs the frame loop of `case` offscreen in each of `modes`.
pub fn run_render_case(
    gpu: &Gpu,
    case: &BenchCase,
    options: &RenderBenchOptions,
    modes: &[RenderMode],
) -> Result<Vec<RenderBenchResult>, RunError> {
    let (solver, scene) = case_solver(gpu, case, None)?;
    let format = crate::render::offscreen::DEFAULT_OFFSCREEN_FORMAT;
    let target = OffscreenTarget::new(&gpu.device, options.width, options.height, format);
    let sample_count = Renderer::recommended_sample_count(&gpu.info);
    let mut renderer = Renderer::new(&gpu.device, format, sample_count);
    renderer.resize(&gpu.device, options.width, options.height);
    let grid = solver.params().grid;
    let (domain_min, domain_max) = (grid.domain_min.as_vec3(), grid.domain_max().as_vec3());
    let mut camera = Camera::default();
    camera.frame(domain_min, domain_max);
    let particle_radius = 0.5 * scene.particle_spacing() as f32;
    let timer = gpu.has_timestamps.then(|| FrameTimer::new(gpu));
    let mut results = Vec::new();
    for &mode in modes {
        let settings = RenderSettings { mode, ..RenderSettings::default() };
        let (mut sim, mut render, mut frame, mut gpu_render) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..options.frames + 3 {
            let start = Instant::now();
            solver.step(gpu, options.substeps_per_frame);
            gpu.wait_idle();
            let simulated = Instant::now();
            let inputs = FrameInputs {
                camera: &camera,
                settings: &settings,
                particles: solver.particle_pages(),
                particle_count: solver.particle_count(),
                particle_radius,
                domain_min,
                domain_max,
                // Every frame splats the volume, as a frame whose snow moved does.
                moved: None,
            };
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            if let Some(t) = &timer {
                t.mark(&mut encoder, 0);
            }
            renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
            if let Some(t) = &timer {
                t.mark(&mut encoder, 1);
            }
            gpu.queue.submit([encoder.finish()]);
            gpu.wait_idle();
            let done = Instant::now();
            if i >= 3 {
                sim.push((simulated - start).as_secs_f64() * 1e3);
                render.push((done - simulated).as_secs_f64() * 1e3);
                frame.push((done - start).as_secs_f64() * 1e3);
                if let Some(t) = &timer {
                    gpu_render.push(t.read_ms(gpu).map_err(|_| RunError::DeviceLost { frame: i })?);
                }
            }
        }
        results.push(RenderBenchResult {
            particle_count: solver.particle_count(),
            mode,
            sample_count,
            sim_ms: median(sim),
            render_ms: median(render),
            frame_ms: median(frame),
            gpu_render_ms: (!gpu_render.is_empty()).then(|| median(gpu_render)),
            drawn: renderer
                .drawn_particle_count(gpu)
                .filter(|_| matches!(mode, RenderMode::Particles | RenderMode::Both)),
            surface_triangles: match mode {
                RenderMode::Surface => renderer.read_surface(gpu).and_then(Result::ok).map(|s| s.found),
                _ => None,
            },
        });
    }
    Ok(results)
}

impl RenderBenchResult {
    /// One line of the report.
    pub fn report(&self, options: &RenderBenchOptions) -> String {
        format!(
            "  render {:?} {}x{} ({} sample(s)/px), {} substeps/frame: sim {:.3} ms + render {:.3} ms{} = {:.3} ms/frame ({:.0} fps), medians of {} frames{}",
            self.mode,
            options.width,
            options.height,
            self.sample_count,
            options.substeps_per_frame,
            self.sim_ms,
            self.render_ms,
            self.gpu_render_ms.map_or(String::new(), |ms| format!(" (GPU {ms:.3} ms)")),
            self.frame_ms,
            1e3 / self.frame_ms,
            options.frames,
            self.drawn.map_or(String::new(), |n| format!("; {n} of {} particles drawn", self.particle_count))
                + &self.surface_triangles.map_or(String::new(), |n| format!("; {n} surface triangles"))
        )
    }
}

/// Two timestamps around a frame's rendering, written by empty compute passes (a pass is where
/// plain timestamp queries may be written), resolved and read back after the frame.
struct FrameTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
}

impl FrameTimer {
    fn new(gpu: &Gpu) -> Self {
        let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench.render.timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench.render.timestamps"),
            size: 16,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Self { queries, resolve, period: gpu.queue.get_timestamp_period() as f64 }
    }

    /// Writes timestamp `index` (0 before the frame, 1 after it; 1 also resolves both).
    fn mark(&self, encoder: &mut wgpu::CommandEncoder, index: u32) {
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
    fn read_ms(&self, gpu: &Gpu) -> Result<f64, crate::gpu::GpuError> {
        let bytes = gpu.read_buffer(&self.resolve)?;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(ticks[1].saturating_sub(ticks[0]) as f64 * self.period * 1e-6)
    }
}
