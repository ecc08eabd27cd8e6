//! Water for the water tests (`tests/water.rs`, `tests/water_gpu.rs`): particles on a lattice.

use nalgebra::Vector3;
use powder::sim::water::cpu::WaterParticle;

/// Gravity's magnitude, m/s².
pub const G: f64 = 9.81;

/// Particles 2 × 2 × 2 to a cell (at the quarter points) in a box of `cells` cells of `h` m where
/// `keep(x, z)` holds, at rest.
pub fn fill(cells: [usize; 3], h: f64, keep: impl Fn(f64, f64) -> bool) -> Vec<WaterParticle> {
    let mut out = Vec::new();
    for k in 0..2 * cells[2] {
        for j in 0..2 * cells[1] {
            for i in 0..2 * cells[0] {
                let x = Vector3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5) * (0.5 * h);
                if keep(x.x, x.z) {
                    out.push(WaterParticle::at_rest(x));
                }
            }
        }
    }
    out
}
