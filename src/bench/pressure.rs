//! The pressure solve on the GPU ([`crate::sim::pressure::gpu::PressureGpu`]) for each
//! preconditioner, on the fixed problem of [`crate::sim::pressure::problem::sphere_tank`]: the
//! iterations to the tolerance, the GPU time of a whole solve (timestamps at its first and last
//! pass) and per iteration; for multigrid also one V-cycle timed stage by stage.

use std::fmt;

use super::median;
use crate::gpu::{Gpu, GpuError};
use crate::sim::pressure::Preconditioner;
use crate::sim::pressure::gpu::PressureGpu;
use crate::sim::pressure::gpu::multigrid::{GpuMultigrid, Stage};
use crate::sim::pressure::problem::sphere_tank;

/// The relative residual every solve is taken to (the benchmark asks for 1e-5).
pub const TOLERANCE: f64 = 1e-5;
/// Iteration cap of the first solve, which counts the iterations.
pub const CAP: u32 = 1000;
/// Timed solves per preconditioner; the report gives their median.
const REPEATS: usize = 5;

/// One preconditioner's row.
#[derive(Clone, Debug, PartialEq)]
pub struct PressureRow {
    /// Which.
    pub preconditioner: Preconditioner,
    /// Iterations to [`TOLERANCE`] (the cap if it did not get there).
    pub iterations: u32,
    /// The relative residual it stopped at.
    pub residual: f64,
    /// Median GPU milliseconds of a solve of exactly those iterations; `None` without timestamps.
    pub ms: Option<f64>,
}

/// The benchmark at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct PressureBenchReport {
    /// Cells a side.
    pub n: usize,
    /// Unknowns (liquid cells coupled to something).
    pub unknowns: usize,
    /// One row per preconditioner.
    pub rows: Vec<PressureRow>,
    /// One multigrid V-cycle: per level and entry point, its threads and the GPU ms of its
    /// dispatches together, each timed over 20 back-to-back dispatches (empty without multigrid
    /// or timestamps).
    pub vcycle: Vec<VcycleRow>,
}

/// Dispatches of one entry point on one level of a V-cycle.
#[derive(Clone, Debug, PartialEq)]
pub struct VcycleRow {
    /// Level, 0 the finest.
    pub level: usize,
    /// Entry point of `multigrid.wgsl`.
    pub entry: &'static str,
    /// The threads each dispatch runs.
    pub items: u32,
    /// How many a V-cycle makes.
    pub dispatches: usize,
    /// Their GPU ms together.
    pub ms: f64,
}

/// Runs the benchmark at `n` cells a side on `gpu` for `preconditioners`.
pub fn pressure_benchmark(
    gpu: &Gpu,
    n: usize,
    preconditioners: &[Preconditioner],
) -> Result<PressureBenchReport, GpuError> {
    let (op, b) = sphere_tank(n);
    let unknowns = (0..op.diag.len()).filter(|&c| op.active(c)).count();
    let mut rows = Vec::new();
    let mut vcycle = Vec::new();
    for &kind in preconditioners {
        let solver = PressureGpu::new(gpu, &op, kind);
        // Before any solve: a finished solve's `done` flag would make every pass return at once.
        if let Some(mg) = solver.multigrid().filter(|_| gpu.has_timestamps) {
            vcycle = vcycle_profile(gpu, mg)?;
        }
        let first = solver.solve(gpu, &b, TOLERANCE, CAP)?;
        let iterations = first.scalars.iterations;
        let residual = (first.scalars.rr as f64 / first.scalars.bb.max(f32::MIN_POSITIVE) as f64).sqrt();
        // Timed with the cap at the iterations it takes, so no early-out passes are in the time.
        let mut times = Vec::new();
        for _ in 0..REPEATS {
            if let (_, Some(ms)) = solver.solve_timed(gpu, &b, TOLERANCE, iterations.max(1))? {
                times.push(ms);
            }
        }
        let ms = (!times.is_empty()).then(|| median(times));
        rows.push(PressureRow { preconditioner: kind, iterations, residual, ms });
    }
    Ok(PressureBenchReport { n, unknowns, rows, vcycle })
}

/// Dispatches of one stage timed together in [`vcycle_profile`].
const STAGE_REPEATS: u32 = 20;

/// Times each stage of `mg`'s V-cycle as [`STAGE_REPEATS`] back-to-back dispatches in one compute
/// pass between two timestamps, so a dispatch's time includes the barrier before the next, as in
/// a solve; a row's time is that per dispatch times the dispatches a V-cycle makes of it.
fn vcycle_profile(gpu: &Gpu, mg: &GpuMultigrid) -> Result<Vec<VcycleRow>, GpuError> {
    let mut rows: Vec<VcycleRow> = Vec::new();
    for stage in mg.stages() {
        match rows.iter_mut().find(|row| row.level == stage.level && row.entry == stage.entry) {
            Some(row) => row.dispatches += 1,
            None => rows.push(VcycleRow {
                level: stage.level,
                entry: stage.entry,
                items: stage.items,
                dispatches: 1,
                ms: 0.0,
            }),
        }
    }
    let (queries, resolve) = gpu.timestamp_queries("bench.pressure.vcycle", 2 * rows.len() as u32);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    // The side bits a solve computes first: without them the transfers see no unknowns.
    mg.record_sides(&mut encoder.begin_compute_pass(&Default::default()));
    for (k, row) in rows.iter().enumerate() {
        let writes = wgpu::ComputePassTimestampWrites {
            query_set: &queries,
            beginning_of_pass_write_index: Some(2 * k as u32),
            end_of_pass_write_index: Some(2 * k as u32 + 1),
        };
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench.pressure.stage"),
            timestamp_writes: Some(writes),
        });
        let stage = Stage { level: row.level, entry: row.entry, items: row.items };
        for _ in 0..STAGE_REPEATS {
            mg.record_stage(&mut pass, stage);
        }
    }
    encoder.resolve_query_set(&queries, 0..2 * rows.len() as u32, &resolve, 0);
    gpu.queue.submit([encoder.finish()]);
    let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&resolve)?);
    let tick_ms = gpu.queue.get_timestamp_period() as f64 * 1e-6;
    for (k, row) in rows.iter_mut().enumerate() {
        let each = ticks[2 * k + 1].saturating_sub(ticks[2 * k]) as f64 * tick_ms / f64::from(STAGE_REPEATS);
        row.ms = each * row.dispatches as f64;
    }
    Ok(rows)
}

impl fmt::Display for PressureBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "pressure solve: {}³ cells ({} unknowns), to a relative residual of {TOLERANCE:e}, GPU time (median of {REPEATS})",
            self.n, self.unknowns
        )?;
        writeln!(
            f,
            "  {:<20} {:>10} {:>10} {:>12} {:>14}",
            "preconditioner", "iterations", "residual", "ms", "ms/iteration"
        )?;
        for row in &self.rows {
            let (ms, per) = match row.ms {
                Some(ms) => (format!("{ms:.3}"), format!("{:.4}", ms / row.iterations.max(1) as f64)),
                None => ("n/a".to_string(), "n/a".to_string()),
            };
            writeln!(
                f,
                "  {:<20} {:>10} {:>10.2e} {:>12} {:>14}",
                row.preconditioner.name(),
                row.iterations,
                row.residual,
                ms,
                per
            )?;
        }
        if !self.vcycle.is_empty() {
            let total: f64 = self.vcycle.iter().map(|row| row.ms).sum();
            writeln!(
                f,
                "  one multigrid V-cycle, stage by stage ({STAGE_REPEATS} dispatches of each timed together): {total:.3} ms"
            )?;
            writeln!(f, "  {:>5} {:<20} {:>10} {:>10} {:>10}", "level", "entry", "threads", "dispatches", "µs")?;
            for row in &self.vcycle {
                let us = row.ms * 1e3;
                writeln!(
                    f,
                    "  {:>5} {:<20} {:>10} {:>10} {us:>10.1}",
                    row.level, row.entry, row.items, row.dispatches
                )?;
            }
        }
        Ok(())
    }
}
