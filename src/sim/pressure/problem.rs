//! The fixed Poisson problem the pressure solve is tested and benchmarked on
//! (`tests/pressure_solve.rs`, `powder bench --pressure`): a box of n³ cells, liquid below 0.7 n and
//! air above, around a solid sphere of radius 0.2 n centred at (0.5, 0.5, 0.35) n.

use super::cells::{CellKind, PressureCells};
use super::cpu::operator::Poisson;

/// Samples per face side of the sphere's open fractions (4 × 4 points a face).
const FACE_SAMPLES: usize = 4;

/// The problem at `n` cells a side: cells whose centre is inside the sphere are solid, each face's
/// open fraction is the share of 4 × 4 points on it outside the sphere, and `b` is a fixed
/// pseudo-random field in [−1, 1] on the unknowns (a divergence with every scale in it), the same
/// on every machine.
pub fn sphere_tank(n: usize) -> (Poisson, Vec<f64>) {
    let nf = n as f64;
    let centre = [0.5 * nf, 0.5 * nf, 0.35 * nf];
    let radius = 0.2 * nf;
    let inside = |p: [f64; 3]| (0..3).map(|a| (p[a] - centre[a]).powi(2)).sum::<f64>() < radius * radius;
    let surface = (0.7 * nf) as usize;
    let mut cells = PressureCells::walled([n, n, n], |i, j, k| {
        if inside([i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5]) {
            CellKind::Solid
        } else if k < surface {
            CellKind::Liquid
        } else {
            CellKind::Air
        }
    });
    for a in 0..3 {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let mut dims = cells.dims;
        dims[a] += 1;
        for f in 0..cells.open[a].len() {
            if cells.open[a][f] == 0.0 {
                continue;
            }
            let at = [f % dims[0], (f / dims[0]) % dims[1], f / (dims[0] * dims[1])];
            let mut outside = 0;
            for s in 0..FACE_SAMPLES * FACE_SAMPLES {
                let mut p = [0.0; 3];
                p[a] = at[a] as f64;
                p[b] = at[b] as f64 + ((s % FACE_SAMPLES) as f64 + 0.5) / FACE_SAMPLES as f64;
                p[c] = at[c] as f64 + ((s / FACE_SAMPLES) as f64 + 0.5) / FACE_SAMPLES as f64;
                if !inside(p) {
                    outside += 1;
                }
            }
            cells.open[a][f] = outside as f64 / (FACE_SAMPLES * FACE_SAMPLES) as f64;
        }
    }
    let op = Poisson::new(cells, 1.0);
    // A linear congruential sequence (Knuth's MMIX constants).
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let b = (0..op.diag.len())
        .map(|c| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            if op.active(c) { (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0 } else { 0.0 }
        })
        .collect();
    (op, b)
}
