//! Fixed-point scales for the particle-to-grid atomics.
//!
//! WGSL has no portable float atomics, so P2G accumulates mass and momentum into `atomic<i32>` as
//! `round(value · scale)`. The scales are chosen per scene so that neither range nor precision is
//! lost:
//!
//! * **Mass range.** A node holds about `ρ h³` (the *nominal node mass*) at the scene's density.
//!   Snow compacts (ice is ~2.3× denser than fresh snow), so we leave [`MASS_HEADROOM`] = 16× room
//!   below 2³⁰: `mass_scale = 2³⁰ / (16 ρ h³)`.
//! * **Momentum range and precision.** `momentum_scale = mass_scale / MOMENTUM_UNIT_SPEED` (4 m/s):
//!   a node at nominal mass can move at 128 m/s before its momentum passes `i32::MAX`, one compacted
//!   4× at 32 m/s. This is a trade against precision: rounding drops each contribution smaller than
//!   half a unit, which biases momentum toward zero (seen as a free-falling block lagging gravity by
//!   0.75 % when the scale was 50× coarser). At this scale one particle at 8 particles per cell moves
//!   ~5·10⁵ units per m/s, so the worst-case loss is ~10⁻⁵ m/s per substep.
//! * **Overflow.** P2G checks the value each `atomicAdd` returns. If a sum would pass its limit
//!   (2³⁰ for mass, `i32::MAX` for momentum) the contribution is subtracted back out and an
//!   overflow is counted, which the host reports. The sums saturate; they never wrap silently.
//! * **Precision of mass.** One mass unit is `16 ρ h³ / 2³⁰ ≈ 1.5·10⁻⁸` of a nominal node mass; a
//!   particle's mass spans ~8·10⁶ units, so rounding is at the level of f32's own epsilon.

use serde::{Deserialize, Serialize};

/// Room left above the nominal node mass `ρ h³` before the fixed-point mass would overflow.
pub const MASS_HEADROOM: f64 = 16.0;
/// The speed (m/s) at which one momentum unit per mass unit is reached: `momentum_scale =
/// mass_scale / MOMENTUM_UNIT_SPEED`.
pub const MOMENTUM_UNIT_SPEED: f64 = 4.0;
/// The largest fixed-point mass a node may hold: 2³⁰, half of `i32::MAX`.
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
    /// Scales for snow of `density` (kg/m³) on cells of edge `cell_size` (m).
    pub fn for_scene(density: f64, cell_size: f64) -> Self {
        let nominal_node_mass = density * cell_size.powi(3);
        let mass_scale = FIXED_MASS_LIMIT as f64 / (MASS_HEADROOM * nominal_node_mass);
        Self { mass_scale, momentum_scale: mass_scale / MOMENTUM_UNIT_SPEED, mass_limit: FIXED_MASS_LIMIT }
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
    fn nominal_mass_sits_16x_below_the_limit() {
        let h = 1.0f64 / 64.0;
        let fp = FixedPoint::for_scene(400.0, h);
        let nominal = 400.0 * h.powi(3);
        // By construction: nominal · scale · 16 = 2^30 (up to f64 rounding, far below 1 unit).
        assert!((nominal * fp.mass_scale * MASS_HEADROOM - FIXED_MASS_LIMIT as f64).abs() < 1e-3);
        // A nominal node reaches i32::MAX momentum at 2 · 16 · 4 = 128 m/s.
        let overflow_speed = i32::MAX as f64 / (nominal * fp.momentum_scale);
        assert!((overflow_speed - 128.0).abs() < 1e-6, "{overflow_speed}");
    }
}
