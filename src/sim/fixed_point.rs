//! Fixed-point scales for the particle-to-grid atomics.
//!
//! WGSL has no portable float atomics, so P2G accumulates mass and momentum as integers: each
//! contribution is `round(value · scale)`, an i32, added into a **64-bit sum kept in two i32
//! words** (the low word read as unsigned, the high word signed). The thread whose add carries out
//! of the low word, or borrows from it, adds ±1 to the high word, so almost every add is a single
//! `atomicAdd` and the sum is exact and cannot overflow (2⁶³ units is 2³² maximal contributions).
//!
//! Why not one i32 word with saturation: a checked add that takes an overshooting contribution back
//! out races with other threads' adds, and the tests caught a node's momentum wrapping to the
//! opposite sign with 50 particles in flight. And one word forces a trade between range and
//! precision: an early 50× coarser momentum scale rounded small contributions to zero and made a
//! free-falling block lag gravity by 0.75 %.
//!
//! With the range problem gone, the scales only have to keep **each contribution** inside i32:
//!
//! * a particle's mass is at most the nominal node mass `ρ h³` (one particle per cell), and a
//!   weight is at most 1, so `mass_scale = 2³⁰ / (ρ h³)` keeps every mass contribution below 2³⁰;
//! * P2G caps each contribution's velocity at `max_speed`, so `momentum_scale = 2³⁰ / (ρ h³ ·
//!   max_speed)` keeps every momentum component below 2³⁰ too.
//!
//! That leaves a factor of two below `i32::MAX` for f32 rounding of `value · scale`. P2G still
//! clamps a contribution that would pass `contribution_limit` and counts it, so a bug could not
//! wrap silently either.
//!
//! Precision: at 8 particles per cell a particle's mass is 2²⁷ units, its momentum
//! `2²⁷ · |v| / max_speed` units (2.7·10⁶ per m/s at 50 m/s). Rounding each of its 27
//! contributions to the nearest unit moves its velocity by at most `13.5 / 2.7·10⁶ ≈ 5·10⁻⁶ m/s`
//! per substep, and that is the worst case; the grid update then divides two sums converted to f32,
//! which adds f32's own relative error.

use serde::{Deserialize, Serialize};

/// Units of the largest possible single mass or momentum contribution: 2³⁰.
pub const CONTRIBUTION_UNITS: f64 = (1u64 << 30) as f64;

/// Scales from SI units to the integer units of the grid atomics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedPoint {
    /// Fixed-point units per kilogram.
    pub mass_scale: f64,
    /// Fixed-point units per kg·m/s.
    pub momentum_scale: f64,
}

impl FixedPoint {
    /// Scales for snow of `density` (kg/m³) on cells of edge `cell_size` (m), with particle and
    /// grid speeds capped at `max_speed` (m/s).
    pub fn for_scene(density: f64, cell_size: f64, max_speed: f64) -> Self {
        let nominal_node_mass = density * cell_size.powi(3);
        Self {
            mass_scale: CONTRIBUTION_UNITS / nominal_node_mass,
            momentum_scale: CONTRIBUTION_UNITS / (nominal_node_mass * max_speed),
        }
    }

    /// Size of one mass unit, in kg.
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
    fn the_largest_contribution_fits_i32_with_a_factor_two_to_spare() {
        let h = 1.0f64 / 64.0;
        let fp = FixedPoint::for_scene(400.0, h, 50.0);
        let nominal = 400.0 * h.powi(3);
        // A whole-cell particle with weight 1 at max_speed: 2^30 units of each.
        assert!((nominal * fp.mass_scale - CONTRIBUTION_UNITS).abs() < 1e-3);
        assert!((nominal * 50.0 * fp.momentum_scale - CONTRIBUTION_UNITS).abs() < 1e-3);
        assert!(2.0 * CONTRIBUTION_UNITS <= i32::MAX as f64 + 1.0);
    }
}
