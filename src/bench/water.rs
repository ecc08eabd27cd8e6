//! The water step on the GPU ([`crate::sim::water::gpu::WaterGpu`]) on a dam break: frames of
//! 1/60 s, each split into steps at the CFL limit (the fastest speed read back once a frame),
//! timed by the wall clock from the first frame's submission to the last frame's readback.
//! Nothing is drawn.

use std::fmt;
use std::time::Instant;

use nalgebra::Vector3;

use crate::gpu::{Gpu, GpuError};
use crate::sim::water::WaterSettings;
use crate::sim::water::cpu::WaterParticle;
use crate::sim::water::gpu::{DEFAULT_MAX_SPEED, STAGES, WaterGpu};

/// A frame's simulated time, s.
pub const FRAME: f64 = 1.0 / 60.0;
/// Gravity, m/s².
const G: f64 = 9.81;
/// Frames run before the timed ones (pipelines warm, the dam already falling).
const WARMUP: u32 = 10;

/// The dam break at `n`: a tank `n × n/2 × n/2` cells of 1/n m, water 2 × 2 × 2 particles a cell
/// in the block `x < 0.4`, `z < 0.4` m (the whole 0.5 m width): 0.64 n³ particles.
pub fn dam_break(n: usize) -> ([usize; 3], f64, Vec<WaterParticle>) {
    let cells = [n, n / 2, n / 2];
    let h = 1.0 / n as f64;
    let mut particles = Vec::new();
    let block = [(0.4 * n as f64).round() as usize, cells[1], (0.4 * n as f64).round() as usize];
    for k in 0..2 * block[2] {
        for j in 0..2 * block[1] {
            for i in 0..2 * block[0] {
                let x = Vector3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5) * (0.5 * h);
                particles.push(WaterParticle::at_rest(x));
            }
        }
    }
    (cells, h, particles)
}

/// What the benchmark measured.
#[derive(Clone, Debug, PartialEq)]
pub struct WaterBenchReport {
    /// Cells along x.
    pub n: usize,
    /// Particles.
    pub particles: usize,
    /// Timed frames.
    pub frames: u32,
    /// Steps over the timed frames.
    pub steps: usize,
    /// Wall seconds of the timed frames.
    pub seconds: f64,
    /// The last step's pressure solve: iterations and relative residual.
    pub last_solve: (u32, f64),
    /// Solves of the timed frames that stopped before the tolerance.
    pub unconverged: u32,
    /// The settings.
    pub settings: WaterSettings,
    /// GPU ms per step spent in each of [`STAGES`] (medians of [`PROFILED_STEPS`] steps timed
    /// after the frames, between timestamps written at the stages' bounds); empty where the GPU
    /// has no timestamps.
    pub stages: Vec<(&'static str, f64)>,
}

/// Steps timed stage by stage after the timed frames.
pub const PROFILED_STEPS: u32 = 9;

/// Times [`PROFILED_STEPS`] steps of `dt` of `water` stage by stage: per stage the median GPU ms,
/// in the order they ran; empty without timestamps. Each bound is an empty compute pass that
/// writes a timestamp as it begins: the passes run in order, so the time between two is the
/// stage's.
fn profile(gpu: &Gpu, water: &mut WaterGpu, dt: f64) -> Result<Vec<(&'static str, f64)>, GpuError> {
    if !gpu.has_timestamps {
        return Ok(Vec::new());
    }
    let bounds = STAGES.len() as u32 + 1;
    let count = bounds * PROFILED_STEPS;
    let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench.water.stages"),
        ty: wgpu::QueryType::Timestamp,
        count,
    });
    let mut runs: Vec<Vec<(&'static str, u32)>> = Vec::new();
    let mut next = 0u32;
    for _ in 0..PROFILED_STEPS {
        water.prepare(gpu, dt);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let mut marks = Vec::new();
        water.record_step_marked(&mut encoder, &mut |encoder, stage| {
            let writes = wgpu::ComputePassTimestampWrites {
                query_set: &queries,
                beginning_of_pass_write_index: Some(next),
                end_of_pass_write_index: None,
            };
            drop(encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("bench.water.mark"),
                timestamp_writes: Some(writes),
            }));
            marks.push((stage, next));
            next += 1;
        });
        gpu.queue.submit([encoder.finish()]);
        water.finish_frame(gpu)?;
        runs.push(marks);
    }
    let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench.water.resolve"),
        size: 8 * u64::from(next.max(1)),
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.resolve_query_set(&queries, 0..next, &resolve, 0);
    gpu.queue.submit([encoder.finish()]);
    let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&resolve)?);
    let ms = gpu.queue.get_timestamp_period() as f64 * 1e-6;
    let mut out = Vec::new();
    for (k, (stage, _)) in runs[0].iter().enumerate().take(runs[0].len() - 1) {
        let mut times: Vec<f64> = runs
            .iter()
            .map(|marks| ticks[marks[k + 1].1 as usize].saturating_sub(ticks[marks[k].1 as usize]) as f64 * ms)
            .collect();
        times.sort_by(f64::total_cmp);
        out.push((*stage, times[times.len() / 2]));
    }
    Ok(out)
}

/// Runs `frames` timed frames of [`dam_break`] at `n` with `settings`.
pub fn water_benchmark(
    gpu: &Gpu,
    n: usize,
    frames: u32,
    settings: WaterSettings,
) -> Result<WaterBenchReport, GpuError> {
    let (cells, h, particles) = dam_break(n);
    let gravity = Vector3::new(0.0, 0.0, -G);
    let mut water = WaterGpu::new(gpu, cells, h, gravity, settings, &particles);
    let mut fastest = 0.0;
    let mut steps = 0;
    let mut unconverged = 0;
    let mut start = Instant::now();
    for frame in 0..WARMUP + frames {
        if frame == WARMUP {
            start = Instant::now();
            steps = 0;
            unconverged = 0;
        }
        // As a scene's frames are planned (the speed can grow by g · FRAME within the frame).
        let (count, dt) = settings.plan_frame(FRAME, fastest, DEFAULT_MAX_SPEED, h, G);
        water.advance_steps(gpu, count as usize, dt);
        steps += count as usize;
        let status = water.finish_frame(gpu)?;
        fastest = status.fastest;
        unconverged += status.unconverged;
    }
    let seconds = start.elapsed().as_secs_f64();
    let solve = water.last_solve(gpu)?;
    let (_, dt) = settings.plan_frame(FRAME, fastest, DEFAULT_MAX_SPEED, h, G);
    let stages = profile(gpu, &mut water, dt)?;
    let residual = (solve.rr as f64 / solve.bb.max(f32::MIN_POSITIVE) as f64).sqrt();
    Ok(WaterBenchReport {
        n,
        particles: particles.len(),
        frames,
        steps,
        seconds,
        last_solve: (solve.iterations, residual),
        unconverged,
        settings,
        stages,
    })
}

impl fmt::Display for WaterBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let simulated = self.frames as f64 * FRAME;
        let s = &self.settings;
        writeln!(
            f,
            "water dam break: {} × {} × {} cells, {} particles, {:?}, {} to {:e} (cap {}), volume correction {}",
            self.n,
            self.n / 2,
            self.n / 2,
            self.particles,
            s.transfer,
            s.pressure.preconditioner.name(),
            s.pressure.tolerance,
            s.pressure.max_iterations,
            if s.volume_correction { "on" } else { "off" }
        )?;
        writeln!(
            f,
            "  {} frames of 1/60 s in {:.3} s: {:.3} simulated s per wall s, {:.1} frames/s, {:.2} steps a frame, \
             {:.3} ms a step; last solve {} iterations to {:.1e}; {} solves stopped short of the tolerance",
            self.frames,
            self.seconds,
            simulated / self.seconds,
            self.frames as f64 / self.seconds,
            self.steps as f64 / self.frames as f64,
            1e3 * self.seconds / self.steps as f64,
            self.last_solve.0,
            self.last_solve.1,
            self.unconverged
        )?;
        if !self.stages.is_empty() {
            let total: f64 = self.stages.iter().map(|(_, ms)| ms).sum();
            writeln!(f, "  one step by stage (GPU ms, median of {PROFILED_STEPS} steps after the frames):")?;
            for (stage, ms) in &self.stages {
                writeln!(f, "    {stage:<28} {ms:8.3}  {:5.1} %", 100.0 * ms / total)?;
            }
            writeln!(f, "    {:<28} {total:8.3}", "all")?;
        }
        Ok(())
    }
}
