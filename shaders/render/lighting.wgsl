// The scene the draw passes see (group 1: three particle streams and the density volume) and the light: sky,
// sun, hemispheric ambient, and shadows looked up in the volume.
//
// Volume channels (written by volume_splat.wgsl, sampled trilinearly here):
//   r: fill fraction (splatted particle volume / voxel volume; 1 = snow at rest density),
//   g: fill-weighted path length toward the sun, in voxels (optical depth / extinction per voxel),
//   b: the same straight up (+z), a cheap sky-occlusion term,
//   a: fill × the colour field's value (colors.wgsl); a / r is the voxel's mean value.

// The solver's particle streams (src/sim/particles.rs) the draw passes read: position (xyz, mass
// as w), velocity (xyz, volume as w), and Jp with the material id.
@group(1) @binding(0) var<storage, read> particle_position: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> particle_velocity: array<vec4<f32>>;
@group(1) @binding(4) var<storage, read> particle_plastic: array<ParticlePlastic>;
@group(1) @binding(1) var volume: texture_3d<f32>;
@group(1) @binding(2) var volume_sampler: sampler;

const SUN_RADIANCE: vec3<f32> = vec3<f32>(1.0, 0.95, 0.87) * 2.3;
const SKY_ZENITH: vec3<f32> = vec3<f32>(0.14, 0.30, 0.68);
const SKY_HORIZON: vec3<f32> = vec3<f32>(0.42, 0.56, 0.80);
// Irradiance-weighted colours of the upper and lower hemisphere, for ambient light.
const AMBIENT_SKY: vec3<f32> = vec3<f32>(0.55, 0.66, 0.90);
const AMBIENT_GROUND: vec3<f32> = vec3<f32>(0.26, 0.26, 0.28);

fn sky_radiance(dir: vec3<f32>) -> vec3<f32> {
    var color = mix(SKY_HORIZON, SKY_ZENITH, sqrt(clamp(dir.z, 0.0, 1.0)));
    // Below the horizon (seen only from under the ground plane) the sky darkens.
    color *= 1.0 - 0.4 * clamp(-dir.z * 4.0, 0.0, 1.0);
    // A glow around the sun and its disk (powers by squaring: cheap on a software rasteriser).
    let t = max(dot(dir, frame.sun_direction), 0.0);
    let t2 = t * t;
    let t8 = t2 * t2 * t2 * t2;
    color += SUN_RADIANCE * (0.08 * t8 + 4.0 * smoothstep(0.9997, 0.9999, t));
    return color;
}

// Hemispheric ambient light on a surface of normal n.
fn ambient_radiance(n: vec3<f32>) -> vec3<f32> {
    return mix(AMBIENT_GROUND, AMBIENT_SKY, 0.5 + 0.5 * n.z);
}

fn volume_box_max() -> vec3<f32> {
    return frame.domain_min + vec3<f32>(frame.volume_dims) * frame.volume_voxel;
}

// The volume's channels at world point p (clamped to the box by the sampler).
fn volume_at(p: vec3<f32>) -> vec4<f32> {
    let uvw = (p - frame.domain_min) / (vec3<f32>(frame.volume_dims) * frame.volume_voxel);
    return textureSampleLevel(volume, volume_sampler, uvw, 0.0);
}

// Fill-weighted path length (voxels) from p toward the sun through the volume. A point outside
// the box is shadowed by what its sun ray crosses after entering the box.
fn sun_path(p: vec3<f32>) -> f32 {
    if (frame.volume_valid == 0u) {
        return 0.0;
    }
    let span = ray_box(p, frame.sun_direction, frame.domain_min, volume_box_max());
    let enter = max(span.x, 0.0);
    if (span.y <= enter) {
        return 0.0;
    }
    return volume_at(p + frame.sun_direction * enter).g;
}

// Fraction of the sun reaching p (extinction at rest density, not scaled by density_scale, so the
// impostors' shadows do not change with the volume view's setting).
fn sun_visibility(p: vec3<f32>) -> f32 {
    return exp(-EXTINCTION_PER_VOXEL * sun_path(p));
}

// Ambient occlusion at p: the column above (b) and the snow right next to it (r, sampled one
// voxel out along the normal), so buried and overhung surfaces darken but never go black.
fn sky_visibility(p: vec3<f32>, n: vec3<f32>) -> f32 {
    if (frame.volume_valid == 0u) {
        return 1.0;
    }
    let above = volume_at(p).b;
    let beside = volume_at(p + n * frame.volume_voxel).r;
    return mix(0.35, 1.0, exp(-0.35 * above)) * mix(0.45, 1.0, exp(-1.5 * beside));
}

// The colour field's mean value at p, averaged by fill (the volume's a / r).
fn field_value_at(p: vec3<f32>) -> f32 {
    let s = volume_at(p);
    return s.a / max(s.r, 1.0e-4);
}
