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
use crate::sim::water::gpu::{DEFAULT_MAX_SPEED, WaterGpu};

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
        )
    }
}
