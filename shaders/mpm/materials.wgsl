// The material table: each particle's material id (its emitter's index) picks an entry of
// params.materials (SimParams in types.wgsl; material_of in snow.wgsl). Mirrors GpuMaterial in src/sim/params.rs;
// tests/wgsl.rs checks the layout. The models themselves are in snow.wgsl.

// Entries of the table (params::MAX_MATERIALS); ids past the last share it.
const MAX_MATERIALS: u32 = 16u;

// How a material yields (MaterialKind::gpu_code in src/sim/material.rs).
const PLASTICITY_SNOW: u32 = 0u;
const PLASTICITY_SAND: u32 = 1u;
const PLASTICITY_LIQUID: u32 = 2u;
const PLASTICITY_VISCO: u32 = 3u;

// Its elastic law (Elasticity::gpu_code in src/sim/material.rs).
const ELASTICITY_FIXED_COROTATED: u32 = 0u;
const ELASTICITY_NEO_HOOKEAN: u32 = 1u;

struct Material {
    // Shear modulus μ₀, Pa (0 for a liquid).
    mu0: f32,
    // Lamé λ₀, Pa (a liquid's bulk modulus).
    lambda0: f32,
    // Hardening coefficient ξ (0 for a liquid).
    hardening: f32,
    critical_compression: f32,
    critical_stretch: f32,
    // σ_F, Pa: a particle whose largest principal Cauchy stress exceeds it cracks. 0: never.
    tensile_strength: f32,
    // ρ₀, kg/m³.
    density: f32,
    // PLASTICITY_*.
    plasticity: u32,
    // Sand's Drucker–Prager α (SnowMaterial::drucker_prager_alpha).
    friction_alpha: f32,
    // (λ₀ + 2μ₀) / ρ₀, m²/s²: the unhardened P-wave speed squared (clock_stats).
    wave_speed_squared: f32,
    // A visco-plastic fluid's yield stress τ_y, Pa, and viscosity η, Pa·s (visco_return).
    yield_stress: f32,
    viscosity: f32,
    // ELASTICITY_*.
    elasticity: u32,
    // Sand's cohesion as the volumetric Hencky strain of its cone's apex (SnowMaterial::cohesion_strain); 0: dry.
    cohesion_strain: f32,
    _pad: vec2<u32>,
}

