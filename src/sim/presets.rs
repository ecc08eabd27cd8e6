//! Named materials: the app's Material panel offers them, and a scene names one as
//! `"material": {"preset": ID}` (fields it also gives override the preset's).
//!
//! The snow presets are the reference snow of Stomakhin et al. 2013 ("A material point method for
//! snow simulation", Table 2) and the variations of it the paper compares in its snowball smash
//! figure, each changing one or two parameters; two more are powder's own, and say so.
//!
//! The elastic presets (jelly, rubber) are the same model with its plasticity, hardening and
//! cracking turned off: Stomakhin's snow is the fixed corotated elastic solid
//! (`τ = 2μ(F − R)Fᵀ + λ(J − 1)J I`) with the singular values of F clamped to `[1 − θc, 1 + θs]`,
//! stiffened by `exp(ξ(1 − Jp))` and, in powder, cracking past a tensile strength. With
//! `θc = 0.99999` and `θs = 10⁶` no clamp is ever reached, `ξ = 0` keeps the moduli, and a tensile
//! strength of 0 never cracks: what is left is the fixed corotated solid, in both integrators.

use super::material::{Elasticity, MaterialKind, SnowMaterial};

/// A named material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialPreset {
    /// The name a scene file gives (`"material": {"preset": ID}`).
    pub id: &'static str,
    /// Name shown in the UI.
    pub name: &'static str,
    /// Where the numbers come from and what they change.
    pub note: &'static str,
    /// The parameters.
    pub material: SnowMaterial,
}

/// An elastic solid of Young's modulus `e` (Pa), Poisson's ratio `nu` and density `rho`: the snow
/// model with no plasticity, no hardening and no cracking (the module's documentation says why
/// that is the fixed corotated solid).
pub fn elastic(e: f64, nu: f64, rho: f64) -> SnowMaterial {
    SnowMaterial {
        youngs_modulus: e,
        poisson_ratio: nu,
        hardening: 0.0,
        critical_compression: 0.99999,
        critical_stretch: 1.0e6,
        density: rho,
        tensile_strength: 0.0,
        ..SnowMaterial::default()
    }
}

/// Every material preset, the reference snow first.
pub fn material_presets() -> Vec<MaterialPreset> {
    let r = SnowMaterial::default();
    vec![
        MaterialPreset {
            id: "reference_snow",
            name: "Reference snow (paper)",
            note: "Stomakhin et al. 2013, Table 2: E 1.4e5 Pa, ν 0.2, ξ 10, θc 2.5e-2, θs 7.5e-3, ρ 400 kg/m³",
            material: r,
        },
        MaterialPreset {
            id: "lower_hardening",
            name: "Lower hardening (paper)",
            note: "Stomakhin et al. 2013: ξ = 5 instead of 10; compacted snow stiffens less",
            material: SnowMaterial { hardening: 5.0, ..r },
        },
        MaterialPreset {
            id: "lower_youngs_modulus",
            name: "Lower Young's modulus (paper)",
            note: "Stomakhin et al. 2013: E = 4.8e4 Pa instead of 1.4e5; softer, squishier snow",
            material: SnowMaterial { youngs_modulus: 4.8e4, ..r },
        },
        MaterialPreset {
            id: "lower_critical_compression",
            name: "Lower critical compression (paper)",
            note: "Stomakhin et al. 2013: θc = 1.9e-2 instead of 2.5e-2; yields sooner under compression",
            material: SnowMaterial { critical_compression: 1.9e-2, ..r },
        },
        MaterialPreset {
            id: "lower_critical_stretch",
            name: "Lower critical stretch (paper)",
            note: "Stomakhin et al. 2013: θs = 5e-3 instead of 7.5e-3; breaks apart sooner (more brittle)",
            material: SnowMaterial { critical_stretch: 5e-3, ..r },
        },
        MaterialPreset {
            id: "lower_critical_compression_and_stretch",
            name: "Lower θc and θs (paper)",
            note: "Stomakhin et al. 2013: θc = 1.9e-2 and θs = 5e-3; the most brittle of the paper's variants",
            material: SnowMaterial { critical_compression: 1.9e-2, critical_stretch: 5e-3, ..r },
        },
        MaterialPreset {
            id: "stiffer_snow",
            name: "Stiffer, E × 2 (powder, not in the paper)",
            note: "powder's own variation: E = 2.8e5 Pa; keeps its shape better (smaller stable dt)",
            material: SnowMaterial { youngs_modulus: 2.8e5, ..r },
        },
        MaterialPreset {
            id: "more_plastic_snow",
            name: "More plastic, θc = 0.1 (powder, not in the paper)",
            note: "powder's own variation: θc = 0.1; packs down a lot before it resists",
            material: SnowMaterial { critical_compression: 0.1, ..r },
        },
        MaterialPreset {
            id: "powder_snow",
            name: "Powder snow",
            note: "Fresh, light snow (powder's choice, not measured): ρ 200 kg/m³, within the 50–200 kg/m³ of \
                   new snow; E 4.8e4 Pa, the paper's softer variant, for the weaker bonds of light snow; \
                   tensile strength 1000 Pa. Packs down a long way and crumbles",
            material: SnowMaterial { density: 200.0, youngs_modulus: 4.8e4, tensile_strength: 1000.0, ..r },
        },
        MaterialPreset {
            id: "packed_snow",
            name: "Packed snow",
            note: "Old, dense snow (powder's choice, not measured): ρ 500 kg/m³; E 2.8e5 Pa and tensile strength \
                   6000 Pa for stronger bonds; θc 1.9e-2 and θs 5e-3, the paper's brittle variant: hard, and it \
                   breaks into chunks rather than packing",
            material: SnowMaterial {
                density: 500.0,
                youngs_modulus: 2.8e5,
                tensile_strength: 6000.0,
                critical_compression: 1.9e-2,
                critical_stretch: 5e-3,
                ..r
            },
        },
        MaterialPreset {
            id: "wet_snow",
            name: "Wet snow",
            note: "Snow near melting (powder's choice, not measured): ρ 500 kg/m³; θs 2e-2, nearly three times the \
                   reference, and ξ 5: it stretches and smears before it gives way and packs less stiffly, \
                   sticky rather than brittle",
            material: SnowMaterial { density: 500.0, critical_stretch: 2e-2, hardening: 5.0, ..r },
        },
        MaterialPreset {
            id: "jelly",
            name: "Jelly (elastic)",
            note: "Elastic, no plasticity or cracking: E 1e4 Pa, ν 0.45, ρ 1000 kg/m³. Gelatin gels measure \
                   roughly 1–20 kPa in indentation tests; 10 kPa is a firm dessert jelly, chosen, not measured. \
                   ν 0.45 rather than a gel's nearly 0.5, which the compressible model would lock at",
            material: elastic(1.0e4, 0.45, 1000.0),
        },
        MaterialPreset {
            id: "rubber",
            name: "Rubber (elastic)",
            note: "Elastic, no plasticity or cracking, neo-Hookean (the classic law for rubber): E 1e6 Pa, ν 0.45, \
                   ρ 1100 kg/m³, the order of a soft natural rubber (1–10 MPa); ν 0.45 rather than rubber's nearly \
                   0.5, which the compressible model would lock at. Stiff: the explicit integrator takes ~60 m/s \
                   waves, small steps",
            material: SnowMaterial { elasticity: Elasticity::NeoHookean, ..elastic(1.0e6, 0.45, 1100.0) },
        },
        MaterialPreset {
            id: "dry_sand",
            name: "Dry sand",
            note: "Drucker–Prager sand: E 3.537e5 Pa, ν 0.3, ρ 2200 kg/m³, the sand of Klár et al. 2016 as \
                   public MPM codes take it; friction angle 30°, the angle of repose of dry sand (about 30–35°)",
            material: SnowMaterial {
                kind: MaterialKind::Sand,
                friction_angle: 30.0,
                youngs_modulus: 3.537e5,
                poisson_ratio: 0.3,
                hardening: 0.0,
                density: 2200.0,
                tensile_strength: 0.0,
                ..r
            },
        },
        MaterialPreset {
            id: "wet_sand",
            name: "Wet sand",
            note: "Cohesive Drucker–Prager sand: dry sand's E, ν and friction angle, ρ 2000 kg/m³ for sand with \
                   some water in its pores, and a cohesion of 1 kPa, chosen in the range the capillary bridges \
                   of moist sand give (a few hundred Pa to a few kPa); Mohr–Coulomb's critical height of a \
                   vertical cut, 4c/(ρg)·tan(45° + φ/2), is then 0.35 m",
            material: SnowMaterial {
                kind: MaterialKind::Sand,
                friction_angle: 30.0,
                cohesion: 1000.0,
                youngs_modulus: 3.537e5,
                poisson_ratio: 0.3,
                hardening: 0.0,
                density: 2000.0,
                tensile_strength: 0.0,
                ..r
            },
        },
        MaterialPreset {
            id: "water",
            name: "Water (weakly compressible)",
            note: "A liquid: ρ 1000 kg/m³ and a bulk modulus of 1e6 Pa, not water's 2.2e9 Pa: its sound speed \
                   of 31.6 m/s is ten times the speed of water that fell half a metre, which keeps its \
                   density within about 1 % of rest at steps 47 times longer (the usual weakly compressible \
                   choice, Monaghan 1994). Viscosity 1.0e-3 Pa·s, water's at 20 °C",
            material: SnowMaterial {
                kind: MaterialKind::Liquid,
                bulk_modulus: crate::sim::material::DEFAULT_BULK_MODULUS,
                viscosity: 1.0e-3,
                hardening: 0.0,
                density: 1000.0,
                tensile_strength: 0.0,
                ..r
            },
        },
        MaterialPreset {
            id: "honey",
            name: "Honey (visco-plastic)",
            note: "A Newtonian liquid as the visco-plastic model without a yield stress: η 10 Pa·s and ρ 1420 \
                   kg/m³, a runny honey (honeys measure about 2–20 Pa·s at room temperature). E 5.8e4 Pa and \
                   ν 0.45 (shear modulus 2e4 Pa) are the elasticity that regularises the flow, chosen: \
                   its relaxation time η/μ = 0.5 ms is short beside the flows it is used for",
            material: SnowMaterial {
                kind: MaterialKind::ViscoPlastic,
                yield_stress: 0.0,
                viscosity: 10.0,
                youngs_modulus: 5.8e4,
                poisson_ratio: 0.45,
                hardening: 0.0,
                density: 1420.0,
                tensile_strength: 0.0,
                ..r
            },
        },
        MaterialPreset {
            id: "mud",
            name: "Mud (visco-plastic)",
            note: "A Bingham fluid: yield stress 100 Pa, η 5 Pa·s, ρ 1800 kg/m³, in the range of natural muds \
                   and debris-flow slurries (yield stresses of 10–1000 Pa, Coussot 1997), chosen; a layer \
                   thinner than τy/(ρ g sin θ) stands on a slope of θ. E 5.8e4 Pa, ν 0.45 as honey's",
            material: SnowMaterial {
                kind: MaterialKind::ViscoPlastic,
                yield_stress: 100.0,
                viscosity: 5.0,
                youngs_modulus: 5.8e4,
                poisson_ratio: 0.45,
                hardening: 0.0,
                density: 1800.0,
                tensile_strength: 0.0,
                ..r
            },
        },
    ]
}

/// The preset a scene file calls `id`.
pub fn preset_by_id(id: &str) -> Option<MaterialPreset> {
    material_presets().into_iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_the_elastic_presets_never_yield_or_crack() {
        let presets = material_presets();
        for (i, p) in presets.iter().enumerate() {
            assert!(presets[..i].iter().all(|q| q.id != p.id), "{} twice", p.id);
            assert_eq!(preset_by_id(p.id), Some(*p));
        }
        for id in ["jelly", "rubber"] {
            let m = preset_by_id(id).expect("preset").material;
            // A deformation far past anything a jelly meets (singular values 0.3 and 3) is inside
            // [1 − θc, 1 + θs], so the return mapping leaves it elastic; no crack, no hardening.
            assert!(1.0 - m.critical_compression < 0.3 && 1.0 + m.critical_stretch > 3.0);
            assert!(!m.cracks([3.0, 1.0, 0.3], [3.0, 1.0, 0.3], 1.0, 1.0));
            assert_eq!(m.hardening_factor(0.5), 1.0);
        }
        assert_eq!(preset_by_id("custard"), None);
    }
}
