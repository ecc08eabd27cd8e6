//! The volume correction: particles that crowd together (the projection sees only whether a cell
//! holds liquid, not how much) are pushed apart so the water keeps its volume, after Kugelstadt et
//! al. 2019 ("Implicit density projection for volume conserving liquids"), as the seeds' Blub
//! does it.
//!
//! Each liquid cell's excess `e = max(n / n₀ − 1, 0)` (n its particles, n₀ the particles a cell
//! starts with) is the divergence a displacement field must have to spread it: with the pressure
//! operator, `A q = e` and the face displacements `Δ = −h (q₊ − q₋)` give `Σ (Δ₊ − Δ₋)/h = e`.
//! Each particle moves by the displacement interpolated at it. Only crowding is corrected: a cell
//! with too few particles is a surface cell partly filled, not a hole to close.

use super::faces::FaceGrid;
use super::particle::WaterParticle;
use crate::sim::pressure::PressureSettings;
use crate::sim::pressure::cells::{CellKind, PressureCells};
use crate::sim::pressure::cpu::operator::Poisson;
use crate::sim::pressure::cpu::pcg::{PcgReport, solve};
use crate::sim::pressure::cpu::precond::Precond;

/// Particles per cell of a grid of `dims` cells (the solid layer included), each particle shared
/// among the eight cells around it by trilinear weights: a count by nearest cell jumps by whole
/// particles as they move, and as only crowding is corrected, that noise alone would spread the
/// water step after step.
pub fn particles_per_cell(particles: &[WaterParticle], dims: [usize; 3], h: f64) -> Vec<f64> {
    let mut count = vec![0.0; dims.iter().product()];
    for p in particles {
        let xi: [f64; 3] = std::array::from_fn(|a| p.position[a] / h + 0.5);
        let base: [i64; 3] = std::array::from_fn(|a| xi[a].floor() as i64);
        for corner in 0..8 {
            let mut w = 1.0;
            let mut at = [0usize; 3];
            for a in 0..3 {
                let far = (corner >> a) & 1;
                let f = xi[a] - base[a] as f64;
                w *= if far == 1 { f } else { 1.0 - f };
                at[a] = (base[a] + far as i64).clamp(0, dims[a] as i64 - 1) as usize;
            }
            count[at[0] + dims[0] * (at[1] + dims[1] * at[2])] += w;
        }
    }
    count
}

/// The water's volume as the cells its particles fill, m³: `Σ min(n / n₀, 1) h³`, a crowded cell
/// counting as full (so crowding shows as lost volume), a partly filled one as its share.
pub fn filled_volume(particles: &[WaterParticle], dims: [usize; 3], h: f64, rest: f64) -> f64 {
    particles_per_cell(particles, dims, h).iter().map(|n| (n / rest).min(1.0)).sum::<f64>() * h.powi(3)
}

/// Moves `particles` apart where cells of `cells` (liquid, air, solid as the step classified
/// them) hold more than `rest` each. Returns what the solve did, `None` where no cell is air.
pub fn correct(
    particles: &mut [WaterParticle],
    cells: PressureCells,
    h: f64,
    rest: f64,
    pressure: &PressureSettings,
) -> Option<PcgReport> {
    // Water filling its container has nowhere to spread to (and no free surface to hold q = 0: the
    // problem would be singular).
    if !cells.kind.contains(&CellKind::Air) {
        return None;
    }
    let count = particles_per_cell(particles, cells.dims, h);
    let op = Poisson::new(cells, 1.0);
    let b: Vec<f64> =
        (0..count.len()).map(|c| if op.active(c) { (count[c] / rest - 1.0).max(0.0) } else { 0.0 }).collect();
    let (q, report) =
        solve(&op, &Precond::new(pressure.preconditioner, &op), &b, pressure.tolerance, pressure.max_iterations);
    let mut grid = FaceGrid::new(op.cells.dims, h);
    grid.close_solid_faces(&op.cells);
    grid.subtract_gradient(&op.cells, &q, h);
    grid.extrapolate(2);
    for p in particles.iter_mut() {
        p.position += grid.sample(&p.position);
    }
    Some(report)
}
