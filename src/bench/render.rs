//! `powder bench --render`: the app's frame without a window. Each frame runs its substeps and then
//! renders into an offscreen target, timed from the host with a device sync after each part, and
//! where the device has timestamp queries also on the GPU: from before the frame's first pass to
//! after its last (two empty compute passes that carry the timestamps), which leaves out the
//! host's recording and the wait.

use std::time::Instant;

use super::offscreen_view::{FrameTimer, OffscreenView};
use super::{BenchCase, case_solver, median};
use crate::gpu::Gpu;
use crate::render::{RenderMode, RenderSettings};
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
    let sample_count = OffscreenView::sample_count(gpu);
    let mut view = OffscreenView::new(gpu, &solver, scene.particle_spacing(), (options.width, options.height));
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
            view.draw(gpu, &solver, &settings, timer.as_ref());
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
            drawn: view
                .renderer
                .drawn_particle_count(gpu)
                .filter(|_| matches!(mode, RenderMode::Particles | RenderMode::Both)),
            surface_triangles: match mode {
                RenderMode::Surface => view.renderer.read_surface(gpu).and_then(Result::ok).map(|s| s.found),
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
