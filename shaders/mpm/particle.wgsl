// The material point as the solver stores it, and finiteness checks on its fields. The one WGSL
// mirror of GpuParticle (src/sim/params.rs): the MPM passes and the render passes both start with
// this file. tests/wgsl.rs checks its layout against the Rust struct.

struct Particle {
    position: vec3<f32>,
    mass: f32,
    velocity: vec3<f32>,
    volume: f32,
    affine: mat3x3<f32>,
    deformation: mat3x3<f32>,
    plastic_jacobian: f32,
    material: u32,
    _pad0: u32,
    _pad1: u32,
}

// |x| < 3e38 is false for NaN and for ±inf.
fn is_finite_vec3(v: vec3<f32>) -> bool {
    return all(abs(v) < vec3<f32>(3.0e38));
}

fn is_finite_mat3(m: mat3x3<f32>) -> bool {
    return is_finite_vec3(m[0]) && is_finite_vec3(m[1]) && is_finite_vec3(m[2]);
}
