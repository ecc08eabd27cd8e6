//! The pressure solve on the GPU ([`crate::sim::pressure::gpu::PressureGpu`]) for each
//! preconditioner, on the fixed problem of [`crate::sim::pressure::problem::sphere_tank`]: the
//! iterations to the tolerance, the GPU time of a whole solve (timestamps at its first and last
//! pass) and per iteration.

use std::fmt;

use super::median;
use crate::gpu::{Gpu, GpuError};
use crate::sim::pressure::Preconditioner;
use crate::sim::pressure::gpu::PressureGpu;
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
    for &kind in preconditioners {
        let solver = PressureGpu::new(gpu, &op, kind);
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
    Ok(PressureBenchReport { n, unknowns, rows })
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
        Ok(())
    }
}
