//! The snow constitutive model of Stomakhin et al. 2013 ("A material point method for snow
//! simulation"), host side: parameters, Lamé constants, the bounded hardening factor and the elastic
//! wave speed that limits the stable time step.
//!
//! The per-particle math (stress, plasticity) lives in `shaders/mpm/snow.wgsl` and, in f64, in the
//! CPU twin (`src/sim/cpu/`). Both use the constants defined here.

use serde::{Deserialize, Serialize};

/// Largest exponent `ξ(1 − Jp)` the hardening factor may reach.
///
/// `exp(5) ≈ 148`: a fully compacted particle is at most ~150× stiffer than fresh snow. Without a
/// bound `exp(ξ(1 − Jp))` overflows f32 once `Jp < 1 − 88/ξ` (Jp < −7.8 for ξ = 10, reachable only
/// through inverted elements, but then everything turns to NaN). The bound also caps how far the
/// stable time step can shrink: by `sqrt(148) ≈ 12×`.
pub const MAX_HARDENING_EXPONENT: f64 = 5.0;
/// Smallest exponent `ξ(1 − Jp)`: stretched snow softens, but never below `exp(-10)` of its
/// stiffness, so the stress stays a normal f32 and stretched regions still hold together weakly.
pub const MIN_HARDENING_EXPONENT: f64 = -10.0;
/// Bounds on the plastic volume ratio `Jp`. Physical snow stays within ~[0.3, 3]; the bounds only
/// keep `Jp` finite and positive when a particle is crushed or torn far past anything physical.
pub const PLASTIC_JACOBIAN_MIN: f64 = 1.0e-3;
/// See [`PLASTIC_JACOBIAN_MIN`].
pub const PLASTIC_JACOBIAN_MAX: f64 = 1.0e3;

/// Snow material parameters (Stomakhin et al. 2013, Table 2 "reference" snow by default).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SnowMaterial {
    /// Young's modulus E of fresh snow, in pascals.
    pub youngs_modulus: f64,
    /// Poisson's ratio ν, dimensionless, in [0, 0.5).
    pub poisson_ratio: f64,
    /// Hardening coefficient ξ, dimensionless: stiffness scales as `exp(ξ(1 − Jp))`.
    pub hardening: f64,
    /// Critical compression θc: singular values of the elastic deformation are clamped below at `1 − θc`.
    pub critical_compression: f64,
    /// Critical stretch θs: singular values of the elastic deformation are clamped above at `1 + θs`.
    pub critical_stretch: f64,
    /// Initial density ρ of the snow, in kg/m³.
    pub density: f64,
}

impl Default for SnowMaterial {
    fn default() -> Self {
        Self {
            youngs_modulus: 1.4e5,
            poisson_ratio: 0.2,
            hardening: 10.0,
            critical_compression: 2.5e-2,
            critical_stretch: 7.5e-3,
            density: 400.0,
        }
    }
}

impl SnowMaterial {
    /// Shear modulus μ₀ = E / (2(1 + ν)), in pascals.
    pub fn mu0(&self) -> f64 {
        self.youngs_modulus / (2.0 * (1.0 + self.poisson_ratio))
    }

    /// First Lamé parameter λ₀ = Eν / ((1 + ν)(1 − 2ν)), in pascals.
    pub fn lambda0(&self) -> f64 {
        let nu = self.poisson_ratio;
        self.youngs_modulus * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))
    }

    /// The hardening factor `exp(ξ(1 − Jp))` with its exponent bounded (see [`MAX_HARDENING_EXPONENT`]).
    pub fn hardening_factor(&self, plastic_jacobian: f64) -> f64 {
        (self.hardening * (1.0 - plastic_jacobian)).clamp(MIN_HARDENING_EXPONENT, MAX_HARDENING_EXPONENT).exp()
    }

    /// Speed of the P wave `sqrt((λ + 2μ) / ρ)` in m/s for a particle whose hardening factor is
    /// `hardening_factor`. This is the speed at which the explicit scheme must resolve information.
    pub fn wave_speed(&self, hardening_factor: f64) -> f64 {
        ((self.lambda0() + 2.0 * self.mu0()) * hardening_factor / self.density).sqrt()
    }
}
