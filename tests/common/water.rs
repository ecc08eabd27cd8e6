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

/// The pond tests' measure of the water's surface (`tests/snow_water.rs`,
/// `tests/snow_water_solver.rs`): the mean height of each column's highest water particle over the
/// columns (cells of `h` m) farther than `clear` m from the vertical axis at `axis` (x, y), m. (A
/// count of particles per cell misreads a rise: the trilinear share of the surface's particles in
/// the cell above depends on where the surface lies in its cell.)
pub fn open_water_surface(water: impl Iterator<Item = [f64; 3]>, h: f64, axis: [f64; 2], clear: f64) -> f64 {
    let mut tops = std::collections::HashMap::new();
    for [x, y, z] in water {
        let top = tops.entry(((x / h).floor() as i64, (y / h).floor() as i64)).or_insert(f64::NEG_INFINITY);
        *top = f64::max(*top, z);
    }
    let open: Vec<f64> = tops
        .into_iter()
        .filter(|((i, j), _)| ((*i as f64 + 0.5) * h - axis[0]).hypot((*j as f64 + 0.5) * h - axis[1]) >= clear)
        .map(|(_, top)| top)
        .collect();
    open.iter().sum::<f64>() / open.len() as f64
}

/// The snow's volume below a water surface at height `surface`, and its whole volume, m³: each
/// particle (`(height, current volume)`) a cube of its current volume, the share of it below the
/// surface counted.
pub fn submerged(surface: f64, snow: impl Iterator<Item = (f64, f64)>) -> (f64, f64) {
    snow.fold((0.0, 0.0), |(below, total), (z, volume)| {
        (below + volume * ((surface - z) / volume.cbrt() + 0.5).clamp(0.0, 1.0), total + volume)
    })
}
