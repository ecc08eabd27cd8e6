//! Fixed-point scales for the particle-to-grid atomics.
//!
//! WGSL has no portable float atomics, so P2G accumulates mass and momentum into `atomic<i32>` as
//! `round(value · scale)`. The scales are chosen per scene so that neither range nor precision is
//! lost:
//!
//! * **Range.** A node's mass is at most its share of the particles around it. At the scene's
//!   particles-per-cell and density, a node holds about `ρ h³` (the *nominal node mass*). Snow
//!   compacts, so we leave [`MASS_HEADROOM`] = 64× room: `mass_scale = 2³⁰ / (64 ρ h³)`. Even so a
//!   pathological pile-up could pass that, so P2G checks the value `atomicAdd` returns and, when the
//!   sum would pass [`FixedPoint::mass_limit`] (2³⁰), takes its contribution back out and counts an
//!   overflow that the host reports. The sum never wraps.
//! * **Momentum.** P2G clamps each contribution's velocity-equivalent `v + C·d` (plus the stress
//!   term) to the solver's `max_speed`, and `momentum_scale = mass_scale / max_speed`. Then every
//!   momentum component in fixed units is at most the mass in fixed units, so a node whose mass is
//!   within the limit has momentum within it too, with a factor of two to spare below `i32::MAX`.
//! * **Precision.** One mass unit is `64 ρ h³ / 2³⁰ ≈ 6·10⁻⁸` of a nominal node mass; with
//!   8 particles per cell a particle's mass spans ~2·10⁷ units, so rounding is at the level of f32's
//!   own epsilon. One momentum unit, per node mass, is `6·10⁻⁸ · max_speed`: 3 µm/s at 50 m/s,
//!   far below the velocity gravity adds in one substep (~1 mm/s at dt = 10⁻⁴ s).

use serde::{Deserialize, Serialize};

/// Room left above the nominal node mass `ρ h³` before the fixed-point mass would overflow.
pub const MASS_HEADROOM: f64 = 64.0;
/// The largest fixed-point mass a node may hold: 2³⁰, half of `i32::MAX`, so that momentum (bounded
/// by mass) plus rounding can never reach `i32::MAX`.
pub const FIXED_MASS_LIMIT: i32 = 1 << 30;

/// Scales from SI units to the i32 units of the grid atomics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedPoint {
    /// Fixed-point units per kilogram.
    pub mass_scale: f64,
    /// Fixed-point units per kg·m/s.
    pub momentum_scale: f64,
    /// Saturation threshold of a node's fixed-point mass.
    pub mass_limit: i32,
}

impl FixedPoint {
    /// Scales for snow of `density` (kg/m³) on cells of edge `cell_size` (m) moving at most at
    /// `max_speed` (m/s).
    pub fn for_scene(density: f64, cell_size: f64, max_speed: f64) -> Self {
        let nominal_node_mass = density * cell_size.powi(3);
        let mass_scale = FIXED_MASS_LIMIT as f64 / (MASS_HEADROOM * nominal_node_mass);
        Self { mass_scale, momentum_scale: mass_scale / max_speed, mass_limit: FIXED_MASS_LIMIT }
    }

    /// Size of one mass unit, in kg: the resolution to which grid mass is conserved per contribution.
    pub fn mass_quantum(&self) -> f64 {
        1.0 / self.mass_scale
    }

    /// Size of one momentum unit, in kg·m/s.
    pub fn momentum_quantum(&self) -> f64 {
        1.0 / self.momentum_scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nominal_mass_sits_64x_below_the_limit() {
        let fp = FixedPoint::for_scene(400.0, 1.0 / 64.0, 50.0);
        let nominal = 400.0 * (1.0f64 / 64.0).powi(3);
        // By construction: nominal · scale · 64 = 2^30 (up to f64 rounding, far below 1 unit).
        assert!((nominal * fp.mass_scale * MASS_HEADROOM - FIXED_MASS_LIMIT as f64).abs() < 1e-3);
        // A contribution at max_speed has as many momentum units as mass units.
        assert!((nominal * 50.0 * fp.momentum_scale - nominal * fp.mass_scale).abs() < 1e-6);
    }
}
