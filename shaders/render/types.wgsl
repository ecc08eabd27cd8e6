// Structs the renderer shares with the host, the per-frame uniform, and colour helpers.
//
// Keep in sync with src/render/uniforms.rs (GpuFrame) (GpuParticle and is_finite_vec3 come from shaders/mpm/particle.wgsl, composed first):
// tests/render_shaders.rs checks every member offset and struct size against the Rust definitions.

// True when the target format is not sRGB, so the shaders encode their output themselves. An
// override rather than a uniform: the dead branch is compiled out (a software rasteriser would
// otherwise run the pow() of the encoding on every pixel).
override ENCODE_SRGB: bool = false;

const COLOR_SNOW: u32 = 0u;
const COLOR_SPEED: u32 = 1u;
const COLOR_PLASTIC_JACOBIAN: u32 = 2u;
const COLOR_MATERIAL: u32 = 3u;

// Fixed-point units per unit of splatted fill fraction (src/render/volume_splat.rs says why).
const VOLUME_FIXED_SCALE: f32 = 1048576.0;
// Extinction per voxel edge of snow at rest density (fill fraction 1), before density_scale.
const EXTINCTION_PER_VOXEL: f32 = 1.5;

struct Frame {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    eye: vec3<f32>,
    exposure: f32,
    sun_direction: vec3<f32>,
    particle_radius: f32,
    domain_min: vec3<f32>,
    speed_scale: f32,
    domain_max: vec3<f32>,
    density_scale: f32,
    volume_dims: vec3<u32>,
    volume_voxel: f32,
    viewport: vec2<f32>,
    pixel_angle: f32,
    color_field: u32,
    particle_count: u32,
    ground_tile: f32,
    volume_valid: u32,
    far_distance: f32,
    ground_shadow_rect: vec4<f32>,
    // Impostors below this radius leave gaps to see into the snow through: nothing is buried.
    gap_radius: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

@group(0) @binding(0) var<uniform> frame: Frame;

// Narkowicz's fit of the ACES filmic curve: keeps lit snow (radiance ~2) below clipping while
// shadows stay linear.
fn tonemap(c: vec3<f32>) -> vec3<f32> {
    let x = max(c, vec3<f32>(0.0));
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), vec3<f32>(0.0), vec3<f32>(1.0));
}

fn linear_to_srgb(c: vec3<f32>) -> vec3<f32> {
    let low = c * 12.92;
    let high = 1.055 * pow(c, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(high, low, c <= vec3<f32>(0.0031308));
}

// Linear radiance to what the target stores: exposure, tone curve, and sRGB encoding when the
// target format does not do it itself.
fn to_display(radiance: vec3<f32>) -> vec3<f32> {
    let mapped = tonemap(radiance * frame.exposure);
    if (ENCODE_SRGB) {
        return linear_to_srgb(mapped);
    }
    return mapped;
}

// The far-plane point under `ndc` (x, y in −1..1), homogeneous. It is linear in ndc, so a
// full-screen pass computes it per vertex and lets the rasteriser interpolate it.
fn far_point(ndc: vec2<f32>) -> vec4<f32> {
    return frame.inv_view_proj * vec4<f32>(ndc, 1.0, 1.0);
}

// The unit direction of the eye ray through an interpolated homogeneous far point.
fn eye_ray(far: vec4<f32>) -> vec3<f32> {
    return normalize(far.xyz / far.w - frame.eye);
}

// Pixel position (framebuffer, y down) to NDC.
fn pixel_to_ndc(pixel: vec2<f32>) -> vec2<f32> {
    let uv = pixel / frame.viewport;
    return vec2<f32>(2.0 * uv.x - 1.0, 1.0 - 2.0 * uv.y);
}

// Entry and exit distances of a ray through the box [lo, hi]; empty when x > y.
fn ray_box(origin: vec3<f32>, dir: vec3<f32>, lo: vec3<f32>, hi: vec3<f32>) -> vec2<f32> {
    // An axis-parallel ray would give 0 · ∞ = NaN on a face through the origin; nudge it.
    let safe = select(dir, vec3<f32>(1.0e-12), abs(dir) < vec3<f32>(1.0e-12));
    let inv = 1.0 / safe;
    let a = (lo - origin) * inv;
    let b = (hi - origin) * inv;
    let near = min(a, b);
    let far = max(a, b);
    return vec2<f32>(max(max(near.x, near.y), near.z), min(min(far.x, far.y), far.z));
}
