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

/// The default [`SnowMaterial::tensile_strength`], Pa (docs/breakage.md explains the choice).
pub const DEFAULT_TENSILE_STRENGTH: f64 = 3000.0;

/// How a material yields: which return mapping moves the trial elastic deformation back into its
/// elastic range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MaterialKind {
    /// Snow (Stomakhin et al. 2013): singular values clamped to `[1 − θc, 1 + θs]`, the rest moved
    /// into `Jp`.
    #[default]
    Snow,
    /// Sand: Drucker–Prager plasticity on the Hencky strain (Klár et al. 2016), with the volume
    /// correction of Tampubolon et al. 2017 kept in `Jp` (`ln Jp` is the volume the sand gained
    /// when pulled apart, given back when it is pressed again). θc and θs play no part.
    Sand,
    /// A weakly compressible liquid: no shear stiffness, a pressure `−K (J − 1)` from its volume
    /// ratio `J` with the bulk modulus `K`, a Newtonian viscous stress of its viscosity, and the
    /// deformation reset to its volumetric part every step (the elastic F keeps only `J`). E, ν, ξ,
    /// θc, θs and cracking play no part.
    Liquid,
    /// A visco-plastic fluid (honey, mud): the Bingham model (Herschel–Bulkley with flow index 1)
    /// as an elasto-viscoplastic solid after Yue et al. 2015, with a von Mises yield stress and a
    /// viscosity on the deviatoric Hencky strain (Perzyna overstress). E and ν set its elastic
    /// response below the yield stress; ξ, θc, θs and cracking play no part.
    #[serde(rename = "visco_plastic")]
    ViscoPlastic,
}

impl MaterialKind {
    /// The code the GPU reads (`params.plasticity` in `shaders/mpm/types.wgsl`).
    pub fn gpu_code(self) -> u32 {
        match self {
            Self::Snow => 0,
            Self::Sand => 1,
            Self::Liquid => 2,
            Self::ViscoPlastic => 3,
        }
    }

    /// Whether PB-MPM's Newton solve returns this kind's stress to its yield surface inside the
    /// step (sand, visco-plastic: `docs/pbmpm.md`, "Yielding inside the Newton solve"). Such a kind ends
    /// each PB-MPM step with the whole return, not the yield relaxation's partial one.
    pub fn yields_in_solve(self) -> bool {
        matches!(self, Self::Sand | Self::ViscoPlastic)
    }
}

/// The elastic energy a material stores: how its stress grows with its elastic deformation. Both
/// laws have the Lamé moduli μ and λ at rest (the same small-strain response, so the same wave
/// speed and step rules); they part ways at large strain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Elasticity {
    /// Fixed corotated (Stomakhin et al. 2013, the snow paper's):
    /// `τ = 2μ (F − R) Fᵀ + λ (J − 1) J I`. Its volume term stays finite as `J → 0`, so a particle
    /// can be crushed flat.
    #[default]
    FixedCorotated,
    /// Compressible neo-Hookean (Bonet & Wood 2008, eq. 6.28):
    /// `τ = μ (F Fᵀ − I) + λ ln J · I`. Its volume term grows without bound as `J → 0`, so it
    /// resists being crushed ever harder: rubber and jelly that keep their volume under large
    /// squashing.
    NeoHookean,
}

impl Elasticity {
    /// The code the GPU reads (`Material::elasticity` in `shaders/mpm/materials.wgsl`).
    pub fn gpu_code(self) -> u32 {
        match self {
            Self::FixedCorotated => 0,
            Self::NeoHookean => 1,
        }
    }
}

/// The smallest volume ratio J the neo-Hookean law takes the logarithm of: a particle crushed or
/// inverted past it is treated as this crushed (its stress then pushes it back open). The same
/// guard as `NEO_HOOKEAN_MIN_J` in `shaders/mpm/snow.wgsl`.
pub const NEO_HOOKEAN_MIN_J: f64 = 1.0e-4;

/// The default [`SnowMaterial::friction_angle`], degrees.
pub const DEFAULT_FRICTION_ANGLE: f64 = 30.0;
/// The default [`SnowMaterial::bulk_modulus`], Pa: water made compressible enough for explicit
/// steps, its sound speed `√(K/ρ)` = 31.6 m/s at 1000 kg/m³, ten times the speed of water that
/// fell half a metre, so its density stays within 1 % of rest (docs/materials.md, "Liquid").
pub const DEFAULT_BULK_MODULUS: f64 = 1.0e6;
/// The default [`SnowMaterial::viscosity`], Pa·s: water's at 20 °C.
pub const DEFAULT_VISCOSITY: f64 = 1.0e-3;

/// Material parameters (Stomakhin et al. 2013, Table 2 "reference" snow by default).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SnowMaterial {
    /// How it yields: snow (the default) or sand.
    pub kind: MaterialKind,
    /// The elastic law: fixed corotated (the default, the snow paper's) or neo-Hookean.
    pub elasticity: Elasticity,
    /// Sand's friction angle φ, degrees: the slope its piles keep (Drucker–Prager). Unused by snow.
    pub friction_angle: f64,
    /// Sand's cohesion c, Pa (Mohr–Coulomb): the shear strength it has under no pressure, which
    /// the water between the grains of wet sand gives it. 0 for dry sand. Unused by the other kinds.
    pub cohesion: f64,
    /// A liquid's bulk modulus K, Pa (its pressure is `−K (J − 1)`). Unused by snow and sand,
    /// whose stiffness is E and ν.
    pub bulk_modulus: f64,
    /// A visco-plastic fluid's yield stress τ_y in shear, Pa: below it the fluid holds as a solid.
    pub yield_stress: f64,
    /// Viscosity η, Pa·s: a liquid's (Newtonian, its viscous stress `2η` times the deviatoric
    /// strain rate), or a visco-plastic fluid's past its yield stress (shear stress `τ_y + η γ̇` in
    /// steady simple shear). Unused by snow and sand.
    pub viscosity: f64,
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
    /// Tensile strength σ_F, in pascals: a particle whose largest principal (Cauchy) stress exceeds
    /// it cracks for good, and from then on carries no tension, only compression and shear
    /// (a brittle Rankine criterion after Wolper et al. 2019). 0 turns cracking off.
    pub tensile_strength: f64,
}

impl Default for SnowMaterial {
    fn default() -> Self {
        Self {
            kind: MaterialKind::Snow,
            elasticity: Elasticity::FixedCorotated,
            friction_angle: DEFAULT_FRICTION_ANGLE,
            cohesion: 0.0,
            bulk_modulus: DEFAULT_BULK_MODULUS,
            yield_stress: 0.0,
            viscosity: DEFAULT_VISCOSITY,
            youngs_modulus: 1.4e5,
            poisson_ratio: 0.2,
            hardening: 10.0,
            critical_compression: 2.5e-2,
            critical_stretch: 7.5e-3,
            density: 400.0,
            tensile_strength: DEFAULT_TENSILE_STRENGTH,
        }
    }
}

impl SnowMaterial {
    /// Shear modulus μ₀ = E / (2(1 + ν)), in pascals; 0 for a liquid.
    pub fn mu0(&self) -> f64 {
        match self.kind {
            MaterialKind::Liquid => 0.0,
            _ => self.youngs_modulus / (2.0 * (1.0 + self.poisson_ratio)),
        }
    }

    /// First Lamé parameter λ₀ = Eν / ((1 + ν)(1 − 2ν)), in pascals; a liquid's bulk modulus K
    /// (with μ₀ = 0 the fixed corotated stress is then `τ = K (J − 1) J I`, the liquid's).
    pub fn lambda0(&self) -> f64 {
        let nu = self.poisson_ratio;
        match self.kind {
            MaterialKind::Liquid => self.bulk_modulus,
            _ => self.youngs_modulus * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)),
        }
    }

    /// The hardening coefficient in effect: ξ for snow and sand, 0 for liquids and visco-plastic
    /// fluids (whose Jp stays 1).
    pub fn effective_hardening(&self) -> f64 {
        match self.kind {
            MaterialKind::Snow | MaterialKind::Sand => self.hardening,
            MaterialKind::Liquid | MaterialKind::ViscoPlastic => 0.0,
        }
    }

    /// The tensile strength in effect: σ_F for snow, 0 (no cracking) for the other kinds, which
    /// yield through their return mappings instead.
    pub fn effective_tensile_strength(&self) -> f64 {
        if self.kind == MaterialKind::Snow { self.tensile_strength } else { 0.0 }
    }

    /// The hardening factor `exp(ξ(1 − Jp))` with its exponent bounded (see [`MAX_HARDENING_EXPONENT`]).
    pub fn hardening_factor(&self, plastic_jacobian: f64) -> f64 {
        (self.effective_hardening() * (1.0 - plastic_jacobian))
            .clamp(MIN_HARDENING_EXPONENT, MAX_HARDENING_EXPONENT)
            .exp()
    }

    /// The principal Kirchhoff stresses of an elastic deformation with singular values `sigma`
    /// (hardened by `plastic_jacobian`, uncracked), `J = σ₁σ₂σ₃`:
    /// - fixed corotated: `τᵢ = hc (2μ₀ (σᵢ − 1) σᵢ + λ₀ (J − 1) J)`;
    /// - neo-Hookean: `τᵢ = hc (μ₀ (σᵢ² − 1) + λ₀ ln J)`, J at least [`NEO_HOOKEAN_MIN_J`].
    pub fn principal_stress(&self, sigma: [f64; 3], plastic_jacobian: f64) -> [f64; 3] {
        let hc = self.hardening_factor(plastic_jacobian);
        let j = sigma[0] * sigma[1] * sigma[2];
        let (mu, lambda) = (self.mu0() * hc, self.lambda0() * hc);
        match self.elasticity {
            Elasticity::FixedCorotated => sigma.map(|s| 2.0 * mu * (s - 1.0) * s + lambda * (j - 1.0) * j),
            Elasticity::NeoHookean => {
                let volume = lambda * j.max(NEO_HOOKEAN_MIN_J).ln();
                sigma.map(|s| mu * (s * s - 1.0) + volume)
            }
        }
    }

    /// Whether a particle cracks, given the singular values `trial` of its deformation before the
    /// plastic projection and `sigma` after it, and its new `plastic_jacobian`: it was stretched
    /// past `1 + θs · strength`, or its largest principal Cauchy stress `max τᵢ / J` exceeds the
    /// tensile strength times `strength` (the particle's own, relative to the material's). Never
    /// with a material tensile strength of 0.
    pub fn cracks(&self, trial: [f64; 3], sigma: [f64; 3], plastic_jacobian: f64, strength: f64) -> bool {
        if self.effective_tensile_strength() <= 0.0 {
            return false;
        }
        if trial.iter().any(|&s| s > 1.0 + self.critical_stretch * strength) {
            return true;
        }
        let j = sigma[0] * sigma[1] * sigma[2];
        let tau = self.principal_stress(sigma, plastic_jacobian);
        let largest = tau[0].max(tau[1]).max(tau[2]);
        j > 0.0 && largest > self.tensile_strength * strength * j
    }

    /// The Drucker–Prager coefficient `α = √(2/3) · 2 sin φ / (3 − sin φ)` of the friction angle
    /// (Klár et al. 2016): the cone `‖dev ε‖ ≤ −α (3λ + 2μ)/(2μ) tr ε` in Hencky strain.
    pub fn drucker_prager_alpha(&self) -> f64 {
        let s = self.friction_angle.to_radians().sin();
        (2.0f64 / 3.0).sqrt() * 2.0 * s / (3.0 - s)
    }

    /// Where sand's cone has its apex: the volumetric Hencky strain `tr ε` at which cohesive sand
    /// holds its largest hydrostatic tension, `c cot φ / K` with `K = λ₀ + 2μ₀/3` (the apex of
    /// the Mohr–Coulomb surface, at mean stress `−c cot φ`, as a strain). 0 without cohesion, so
    /// dry sand's cone is Klár et al.'s unchanged; φ is taken as at least 1° so that a cohesive
    /// sand without friction still has a finite apex.
    pub fn cohesion_strain(&self) -> f64 {
        if self.cohesion <= 0.0 {
            return 0.0;
        }
        let bulk = self.lambda0() + 2.0 * self.mu0() / 3.0;
        self.cohesion / (self.friction_angle.max(1.0).to_radians().tan() * bulk)
    }

    /// Speed of the P wave `sqrt((λ + 2μ) / ρ)` in m/s for a particle whose hardening factor is
    /// `hardening_factor`. This is the speed at which the explicit scheme must resolve information.
    pub fn wave_speed(&self, hardening_factor: f64) -> f64 {
        ((self.lambda0() + 2.0 * self.mu0()) * hardening_factor / self.density).sqrt()
    }
}
