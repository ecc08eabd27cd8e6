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
//!
//! With snow in the water (`occupied` in [`correct`]) the snow's share of each cell counts as filled, and
//! holes are closed too: a cell with no air beside it and too few particles gets `e < 0`, which
//! draws particles in (a snowball's splash otherwise leaves holes that keep the water standing
//! higher: measured 0.73 of the rest packing in the pond's lower layers). Closing holes needs the
//! counts exact at the walls, so there a share landing in the box's solid layer is folded back
//! into the cell inside it (water packed against a wall otherwise counts 7/8 of its packing and is
//! drawn into the wall). Water alone keeps the crowding-only correction: closing holes too slows
//! the standing wave of `tests/water.rs` from +5.3 % to +13.7 % of linear theory's period.

use nalgebra::Vector3;

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
    spread(particles.iter().map(|p| (&p.position, 1.0)), dims, h, false)
}

/// Each point's value (`(position, value)`, positions in m from the domain's corner) shared among
/// the eight cells of `dims` around it by trilinear weights, summed per cell; with `fold`, a share
/// landing in the box's solid layer goes to the cell inside it instead.
pub fn spread<'a>(
    points: impl Iterator<Item = (&'a Vector3<f64>, f64)>,
    dims: [usize; 3],
    h: f64,
    fold: bool,
) -> Vec<f64> {
    let edge = i64::from(fold);
    let mut count = vec![0.0; dims.iter().product()];
    for (x, value) in points {
        let xi: [f64; 3] = std::array::from_fn(|a| x[a] / h + 0.5);
        let base: [i64; 3] = std::array::from_fn(|a| xi[a].floor() as i64);
        for corner in 0..8 {
            let mut w = value;
            let mut at = [0usize; 3];
            for a in 0..3 {
                let far = (corner >> a) & 1;
                let f = xi[a] - base[a] as f64;
                w *= if far == 1 { f } else { 1.0 - f };
                at[a] = (base[a] + far as i64).clamp(edge, dims[a] as i64 - 1 - edge) as usize;
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

/// Whether one of cell `c`'s six neighbours is air.
fn touches_air(cells: &PressureCells, c: usize) -> bool {
    (0..3).any(|a| {
        let stride = cells.stride(a);
        [c.checked_sub(stride), Some(c + stride)]
            .into_iter()
            .flatten()
            .any(|n| cells.kind.get(n) == Some(&CellKind::Air))
    })
}

/// Moves `particles` apart where cells of `cells` (liquid, air, solid as the step classified
/// them) hold more than `rest` each. `occupied`: each cell's share taken by something else
/// (snow), counted as filled, so a cell whose water and snow together overfill it pushes the
/// water out; given it, holes away from air are closed too and the counts are folded at the walls
/// (see the module's text). Returns what the solve did, `None` where no cell is air.
pub fn correct(
    particles: &mut [WaterParticle],
    cells: PressureCells,
    h: f64,
    rest: f64,
    pressure: &PressureSettings,
    occupied: Option<&[f64]>,
) -> Option<PcgReport> {
    // Water filling its container has nowhere to spread to (and no free surface to hold q = 0: the
    // problem would be singular).
    if !cells.kind.contains(&CellKind::Air) {
        return None;
    }
    let count = spread(particles.iter().map(|p| (&p.position, 1.0)), cells.dims, h, occupied.is_some());
    let op = Poisson::new(cells, 1.0);
    let b: Vec<f64> = (0..count.len())
        .map(|c| {
            if !op.active(c) {
                return 0.0;
            }
            let excess = count[c] / rest + occupied.map_or(0.0, |o| o[c]) - 1.0;
            if occupied.is_some() && !touches_air(&op.cells, c) { excess } else { excess.max(0.0) }
        })
        .collect();
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
