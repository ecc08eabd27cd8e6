// The density volume raymarched over the finished scene: a full-screen triangle, one ray per pixel
// through the domain box, stopped at the opaque scene (ground, impostors) read from the depth
// buffer. Output is premultiplied (radiance, opacity), blended over the resolved image.
//
// `SceneDepth` is an alias the host prepends: texture_depth_2d or texture_depth_multisampled_2d.

@group(2) @binding(0) var scene_depth: SceneDepth;

const VOLUME_ALBEDO: vec3<f32> = vec3<f32>(0.92, 0.94, 0.97);
// Marching step in voxels: finer than a voxel so trilinear filtering is resolved.
const STEP_IN_VOXELS: f32 = 0.6;
// Rays stop once this little of the background shows through.
const OPAQUE_TRANSMITTANCE: f32 = 0.01;
const MAX_STEPS: u32 = 1024u;

struct FullScreen {
    @builtin(position) position: vec4<f32>,
    @location(0) far: vec4<f32>,
}

@vertex
fn volume_raymarch_vertex(@builtin(vertex_index) index: u32) -> FullScreen {
    let ndc = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u)) * 2.0 - 1.0;
    var out: FullScreen;
    out.position = vec4<f32>(ndc, 0.5, 1.0);
    out.far = far_point(ndc);
    return out;
}

// Interleaved gradient noise (Jimenez 2014): a per-pixel start offset that turns slice banding
// into fine noise.
fn pixel_jitter(pixel: vec2<f32>) -> f32 {
    return fract(52.9829189 * fract(dot(pixel, vec2<f32>(0.06711056, 0.00583715))));
}

@fragment
fn volume_raymarch_fragment(in: FullScreen) -> @location(0) vec4<f32> {
    if (frame.volume_valid == 0u) {
        return vec4<f32>(0.0);
    }
    let dir = eye_ray(in.far);
    let depth = textureLoad(scene_depth, vec2<i32>(in.position.xy), 0);
    var t_scene = 3.0e38;
    if (depth < 1.0) {
        let surface = frame.inv_view_proj * vec4<f32>(pixel_to_ndc(in.position.xy), depth, 1.0);
        t_scene = dot(surface.xyz / surface.w - frame.eye, dir);
    }
    let span = ray_box(frame.eye, dir, frame.domain_min, volume_box_max());
    let t_enter = max(span.x, 0.0);
    let t_exit = min(span.y, t_scene);
    if (t_exit <= t_enter) {
        return vec4<f32>(0.0);
    }
    let voxel = frame.volume_voxel;
    let step = STEP_IN_VOXELS * voxel;
    let extinction_per_fill = EXTINCTION_PER_VOXEL * frame.density_scale / voxel;
    let path_to_optical_depth = EXTINCTION_PER_VOXEL * frame.density_scale;
    let steps = min(u32(ceil((t_exit - t_enter) / step)), MAX_STEPS);
    var t = t_enter + step * pixel_jitter(in.position.xy);
    var transmittance = 1.0;
    var radiance = vec3<f32>(0.0);
    for (var i = 0u; i < steps; i++) {
        if (t >= t_exit) {
            break;
        }
        let s = volume_at(frame.eye + dir * t);
        let extinction = s.r * extinction_per_fill;
        if (extinction > 1.0e-3) {
            let absorbed = 1.0 - exp(-extinction * min(step, t_exit - t));
            // Single scattering of the sun (shadowed by the snow toward it), a soft multiple-
            // scattering term that reaches deeper, and the sky dimmed by the snow above.
            let sun = exp(-path_to_optical_depth * s.g) + 0.25 * exp(-0.15 * path_to_optical_depth * s.g);
            let sky = mix(0.3, 1.0, exp(-0.3 * path_to_optical_depth * s.b));
            let light = SUN_RADIANCE * sun * 0.8 + AMBIENT_SKY * sky;
            radiance += transmittance * absorbed * VOLUME_ALBEDO * light;
            transmittance *= 1.0 - absorbed;
            if (transmittance < OPAQUE_TRANSMITTANCE) {
                break;
            }
        }
        t += step;
    }
    let alpha = 1.0 - transmittance;
    if (alpha < 1.0e-4) {
        return vec4<f32>(0.0);
    }
    return vec4<f32>(to_display(radiance / alpha) * alpha, alpha);
}
