// The constitutive models: the snow of Stomakhin et al. 2013 (fixed corotated elasticity whose
// Lamé parameters harden with plastic compaction, and plasticity by clamping singular values), and
// sand and liquid, which share its elasticity and differ in their return mappings. Every function
// takes the particle's material (material_of in materials.wgsl).
// Host side and bounds: src/sim/material.rs. CPU twin: src/sim/cpu/.

// The material of a particle of material id `id` (SolverParams::material_of on the host).
fn material_of(id: u32) -> Material {
    return params.materials[min(id, MAX_MATERIALS - 1u)];
}

const IDENTITY3: mat3x3<f32> = mat3x3<f32>(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);

// exp(ξ(1 − Jp)) with the exponent bounded so it can neither overflow nor underflow f32.
fn hardening_factor(m: Material, plastic_jacobian: f32) -> f32 {
    let exponent = m.hardening * (1.0 - plastic_jacobian);
    return exp(clamp(exponent, MIN_HARDENING_EXPONENT, MAX_HARDENING_EXPONENT));
}

// The smallest volume ratio the neo-Hookean law takes the logarithm of (NEO_HOOKEAN_MIN_J in
// src/sim/material.rs).
const NEO_HOOKEAN_MIN_J: f32 = 1.0e-4;

// Kirchhoff stress τ = P Fᵀ = 2μ (F − R) Fᵀ + λ (J − 1) J I of the fixed corotated model, or
// μ (F Fᵀ − I) + λ ln J I of the neo-Hookean one; a cracked particle's (damage > 0) from its SVD,
// without tension (kirchhoff_stress_svd).
fn kirchhoff_stress(m: Material, f: mat3x3<f32>, plastic_jacobian: f32, damage: f32) -> mat3x3<f32> {
    let h = hardening_factor(m, plastic_jacobian);
    let mu = m.mu0 * h;
    let lambda = m.lambda0 * h;
    let d = svd3(f);
    if (damage > 0.0) {
        return kirchhoff_stress_svd(m, d.u, d.sigma, plastic_jacobian, damage);
    }
    let j = d.sigma.x * d.sigma.y * d.sigma.z;
    if (m.elasticity == ELASTICITY_NEO_HOOKEAN) {
        return mu * (f * transpose(f) - IDENTITY3) + (lambda * log(max(j, NEO_HOOKEAN_MIN_J))) * IDENTITY3;
    }
    let r = d.u * transpose(d.v);
    return (2.0 * mu) * (f - r) * transpose(f) + (lambda * (j - 1.0) * j) * IDENTITY3;
}

// A liquid's viscous Kirchhoff stress J · 2η dev(sym(C)) (Newtonian, without bulk viscosity) for
// a particle of velocity gradient `affine` (APIC's C) and volume ratio j; zero for the other kinds,
// whose viscosity (the visco-plastic kind's) acts through their return mapping instead.
// CPU twin: viscous_stress in src/sim/cpu/p2g.rs.
fn viscous_stress(m: Material, affine: mat3x3<f32>, j: f32) -> mat3x3<f32> {
    if (m.plasticity != PLASTICITY_LIQUID || m.viscosity <= 0.0) {
        return mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    }
    let d = 0.5 * (affine + transpose(affine));
    let mean = (d[0][0] + d[1][1] + d[2][2]) / 3.0;
    return (2.0 * m.viscosity * j) * (d - mean * IDENTITY3);
}

// The principal Kirchhoff stresses of an uncracked particle whose elastic F has singular values
// sigma: τᵢ = 2μ (σᵢ − 1) σᵢ + λ (J − 1) J, or μ (σᵢ² − 1) + λ ln J (neo-Hookean).
fn principal_stress(m: Material, sigma: vec3<f32>, plastic_jacobian: f32) -> vec3<f32> {
    let h = hardening_factor(m, plastic_jacobian);
    let j = sigma.x * sigma.y * sigma.z;
    if (m.elasticity == ELASTICITY_NEO_HOOKEAN) {
        return (m.mu0 * h) * (sigma * sigma - vec3<f32>(1.0)) + vec3<f32>(m.lambda0 * h * log(max(j, NEO_HOOKEAN_MIN_J)));
    }
    return (2.0 * m.mu0 * h) * (sigma - vec3<f32>(1.0)) * sigma + vec3<f32>(m.lambda0 * h * (j - 1.0) * j);
}

// Whether a particle cracks (SnowMaterial::cracks in src/sim/material.rs, the same in f64): its
// trial singular values stretched past 1 + θs · strength, or the largest principal Cauchy stress
// max τᵢ / J of its projected state (singular values sigma) exceeds the tensile strength times its
// strength (a brittle Rankine criterion after Wolper et al. 2019, "CD-MPM"). Never with a
// material tensile strength of 0 (the host gives sand and liquids 0).
fn cracks(m: Material, trial: vec3<f32>, sigma: vec3<f32>, plastic_jacobian: f32, strength: f32) -> bool {
    if (m.tensile_strength <= 0.0) {
        return false;
    }
    if (any(trial > vec3<f32>(1.0 + m.critical_stretch * strength))) {
        return true;
    }
    let j = sigma.x * sigma.y * sigma.z;
    let tau = principal_stress(m, sigma, plastic_jacobian);
    let largest = max(tau.x, max(tau.y, tau.z));
    return j > 0.0 && largest > m.tensile_strength * strength * j;
}

// kirchhoff_stress of F = U diag(σ) Vᵀ from its SVD: (F − R) Fᵀ = U (Σ − I) Σ Uᵀ, so
// τ = U diag(2μ (σ − 1) σ) Uᵀ + λ (J − 1) J I. g2p2g takes U and σ from the plasticity step's SVD
// of the new F instead of decomposing it again; the two differ by f32 rounding. A cracked
// particle keeps only the compressive principal stresses: τᵢ > 0 is scaled by 1 − damage.
fn kirchhoff_stress_svd(m: Material, u: mat3x3<f32>, sigma: vec3<f32>, plastic_jacobian: f32, damage: f32) -> mat3x3<f32> {
    if (damage > 0.0) {
        let t = principal_stress(m, sigma, plastic_jacobian);
        let kept = select(t, t * (1.0 - damage), t > vec3<f32>(0.0));
        return mat3x3<f32>(u[0] * kept.x, u[1] * kept.y, u[2] * kept.z) * transpose(u);
    }
    if (m.elasticity == ELASTICITY_NEO_HOOKEAN) {
        let t = principal_stress(m, sigma, plastic_jacobian);
        return mat3x3<f32>(u[0] * t.x, u[1] * t.y, u[2] * t.z) * transpose(u);
    }
    let h = hardening_factor(m, plastic_jacobian);
    let mu = m.mu0 * h;
    let lambda = m.lambda0 * h;
    let j = sigma.x * sigma.y * sigma.z;
    let d = (2.0 * mu) * (sigma - vec3<f32>(1.0)) * sigma;
    return mat3x3<f32>(u[0] * d.x, u[1] * d.y, u[2] * d.z) * transpose(u) + (lambda * (j - 1.0) * j) * IDENTITY3;
}

// The projected state, and the SVD of its deformation: U diag(sigma) Vᵀ.
struct PlasticState {
    deformation: mat3x3<f32>,
    plastic_jacobian: f32,
    u: mat3x3<f32>,
    sigma: vec3<f32>,
    // The singular values before the clamp.
    trial: vec3<f32>,
}

// The fraction of a step's strain beyond the elastic range that stays elastic at its end:
// exp(−dt/τ) under PB-MPM's yield relaxation, 0 (the clamp exactly) for τ = 0, the explicit
// integrator's, and for sand and visco-plastic fluids, which PB-MPM's Newton solve returns inside
// the step (PbmpmSettings::keep in src/sim/pbmpm/mod.rs, MaterialKind::yields_in_solve).
fn yield_keep(m: Material) -> f32 {
    return select(0.0, exp(-substep_dt() / params.pb_yield_time), params.pb_yield_time > 0.0 && !yields_in_solve(m));
}

// Whether PB-MPM's Newton solve returns this material's stress to its yield surface inside the
// step: sand and visco-plastic fluids (MaterialKind::yields_in_solve in src/sim/material.rs).
fn yields_in_solve(m: Material) -> bool {
    return m.plasticity == PLASTICITY_SAND || m.plasticity == PLASTICITY_VISCO;
}

// Sand's plasticity (PLASTICITY_SAND): the Drucker–Prager return mapping of Klár et al. 2016
// on the Hencky strain ε = ln |σ|, with the volume correction of Tampubolon et al. 2017 in Jp as
// v = ln Jp. Returns the returned singular values (xyz) and the new v (w). CPU twin: sand_return
// in src/sim/cpu/g2p.rs, which says what each case does.
const SAND_MIN_STRETCH: f32 = 1.0e-4;

fn sand_return(m: Material, sigma: vec3<f32>, plastic_jacobian: f32) -> vec4<f32> {
    let epsilon = log(max(abs(sigma), vec3<f32>(SAND_MIN_STRETCH)));
    let tr = epsilon.x + epsilon.y + epsilon.z + log(plastic_jacobian);
    // Past the cone's apex (cohesion_strain: 0 for dry sand) nothing but the apex's tension is left.
    let beyond = tr - m.cohesion_strain;
    if (beyond >= 0.0) {
        return vec4<f32>(vec3<f32>(exp(m.cohesion_strain / 3.0)), beyond);
    }
    let deviatoric = epsilon - vec3<f32>(tr / 3.0);
    let norm = length(deviatoric) + 1.0e-20;
    let mu = m.mu0;
    let lambda = m.lambda0;
    let dgamma = norm + (3.0 * lambda + 2.0 * mu) / (2.0 * mu) * beyond * m.friction_alpha;
    return vec4<f32>(exp(epsilon - (max(dgamma, 0.0) / norm) * deviatoric), 0.0);
}

// The secant scales of sand's shear (x) and bulk (y) moduli at the trial singular values `sigma`:
// the fraction of the deviatoric strain the return onto the cone keeps (1 inside it), and 0 for
// both past the apex, where the returned stress no longer follows the strain. PB-MPM's Newton
// operator takes sand's moduli scaled by them. CPU twin: sand_secant in src/sim/cpu/g2p.rs.
fn sand_secant(m: Material, sigma: vec3<f32>, plastic_jacobian: f32) -> vec2<f32> {
    let epsilon = log(max(abs(sigma), vec3<f32>(SAND_MIN_STRETCH)));
    let tr = epsilon.x + epsilon.y + epsilon.z + log(plastic_jacobian);
    let beyond = tr - m.cohesion_strain;
    if (beyond >= 0.0) {
        return vec2<f32>(0.0);
    }
    let norm = length(epsilon - vec3<f32>(tr / 3.0)) + 1.0e-20;
    let dgamma = norm + (3.0 * m.lambda0 + 2.0 * m.mu0) / (2.0 * m.mu0) * beyond * m.friction_alpha;
    return vec2<f32>(clamp(1.0 - max(dgamma, 0.0) / norm, 0.0, 1.0), 1.0);
}

// The visco-plastic return mapping (Bingham after Yue et al. 2015): past the von Mises surface
// ‖s‖ = √2 τ_y of the deviatoric Kirchhoff stress s = 2μ ε̂ (ε = ln |σ|), the overstress relaxes
// over the step at the viscosity, ‖s'‖ = (‖s‖ + r k) / (1 + r), r = μ dt / η, the volume kept.
// Returns the new singular values. CPU twin: visco_return in src/sim/cpu/g2p.rs.
fn visco_return(m: Material, sigma: vec3<f32>) -> vec3<f32> {
    let epsilon = log(max(abs(sigma), vec3<f32>(SAND_MIN_STRETCH)));
    let tr = epsilon.x + epsilon.y + epsilon.z;
    let deviatoric = epsilon - vec3<f32>(tr / 3.0);
    let stress = 2.0 * m.mu0 * length(deviatoric);
    let k = sqrt(2.0) * m.yield_stress;
    if (stress <= k) {
        return sigma;
    }
    let r = m.mu0 * substep_dt() / m.viscosity;
    let relaxed = (stress + r * k) / (1.0 + r);
    return exp(vec3<f32>(tr / 3.0) + deviatoric * (relaxed / stress));
}

// The secant scale of the visco-plastic shear modulus at the trial singular values `sigma`: the
// fraction ‖s'‖/‖s‖ of the deviatoric stress visco_return keeps (1 within the yield surface).
// CPU twin: visco_secant in src/sim/cpu/g2p.rs.
fn visco_secant(m: Material, sigma: vec3<f32>) -> f32 {
    let epsilon = log(max(abs(sigma), vec3<f32>(SAND_MIN_STRETCH)));
    let deviatoric = epsilon - vec3<f32>((epsilon.x + epsilon.y + epsilon.z) / 3.0);
    let stress = 2.0 * m.mu0 * length(deviatoric);
    let k = sqrt(2.0) * m.yield_stress;
    if (stress <= k) {
        return 1.0;
    }
    let r = m.mu0 * substep_dt() / m.viscosity;
    return (stress + r * k) / (1.0 + r) / stress;
}

// Returns the trial deformation F to the elastic range, `keep` of the excess left elastic. Snow
// moves the part beyond [1 − θc, 1 + θs] into the plastic part: the total volume ratio
// J = J_E · J_P is unchanged; |·| and the clamp of Jp only act on inverted or absurd states (see
// docs/algorithm.md). Sand returns onto its cone (sand_return), Jp holding its volume correction.
// A liquid keeps only its volume: all three singular values become J^(1/3) (sign kept), Jp as it
// was. CPU twin: project_plasticity_svd in src/sim/cpu/g2p.rs.
fn project_plastic(m: Material, f: mat3x3<f32>, plastic_jacobian: f32, keep: f32) -> PlasticState {
    let d = svd3(f);
    // The returned singular values (xyz), and for sand the volume it keeps (w, ln Jp).
    let sand = m.plasticity == PLASTICITY_SAND;
    let liquid = m.plasticity == PLASTICITY_LIQUID;
    let visco = m.plasticity == PLASTICITY_VISCO;
    var returned: vec4<f32>;
    if (sand) {
        returned = sand_return(m, d.sigma, plastic_jacobian);
    } else if (visco) {
        returned = vec4<f32>(visco_return(m, d.sigma), 0.0);
    } else if (liquid) {
        let j = d.sigma.x * d.sigma.y * d.sigma.z;
        returned = vec4<f32>(vec3<f32>(sign(j) * pow(abs(j), 1.0 / 3.0)), 0.0);
    } else {
        let lo = 1.0 - m.critical_compression;
        let hi = 1.0 + m.critical_stretch;
        returned = vec4<f32>(clamp(d.sigma, vec3<f32>(lo), vec3<f32>(hi)), 0.0);
    }
    let clamped = returned.xyz + keep * (d.sigma - returned.xyz);
    // F_E = U Σc Vᵀ written as F + U (Σc − Σ) Vᵀ: inside the elastic range F is kept bit for bit.
    // Rebuilding it from the f32 SVD every substep shrank F by about an ulp per substep, and resting
    // snow crept (docs/algorithm.md, g2p step 3).
    let removed = clamped - d.sigma;
    let correction = mat3x3<f32>(removed.x, 0.0, 0.0, 0.0, removed.y, 0.0, 0.0, 0.0, removed.z);
    let j_trial = d.sigma.x * d.sigma.y * d.sigma.z;
    let j_clamped = clamped.x * clamped.y * clamped.z;
    var out: PlasticState;
    out.deformation = f + d.u * correction * transpose(d.v);
    out.u = d.u;
    out.sigma = clamped;
    out.trial = d.sigma;
    var jp = select(plastic_jacobian * abs(j_trial / j_clamped), exp(returned.w), sand);
    if (liquid || visco) {
        jp = plastic_jacobian;
    }
    out.plastic_jacobian = clamp(jp, PLASTIC_JACOBIAN_MIN, PLASTIC_JACOBIAN_MAX);
    return out;
}
