// The material point as the passes see it (the host's GpuParticle, src/sim/params.rs; on the GPU it
// is stored as streams, src/sim/particles.rs), the element of the Jp-and-material stream, and
// finiteness checks. The MPM passes and the render passes both start with this file.

struct Particle {
    position: vec3<f32>,
    mass: f32,
    velocity: vec3<f32>,
    volume: f32,
    affine: mat3x3<f32>,
    deformation: mat3x3<f32>,
    plastic_jacobian: f32,
    material: u32,
    // 1 once the particle has cracked (it then carries no tension), else 0.
    damage: f32,
    // Strength relative to the material's (tensile strength and cracking stretch).
    strength: f32,
}

// One entry of the particle_plastic stream. Mirrors GpuParticlePlastic (src/sim/particles.rs);
// tests/wgsl.rs checks the layout.
struct ParticlePlastic {
    plastic_jacobian: f32,
    material: u32,
    damage: f32,
    strength: f32,
}

// |x| < 3e38 is false for NaN and for ±inf.
fn is_finite_vec3(v: vec3<f32>) -> bool {
    return all(abs(v) < vec3<f32>(3.0e38));
}

fn is_finite_mat3(m: mat3x3<f32>) -> bool {
    return is_finite_vec3(m[0]) && is_finite_vec3(m[1]) && is_finite_vec3(m[2]);
}
