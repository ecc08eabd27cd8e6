// The density volume raymarched over the finished scene, one ray per pixel through the box of the
// occupied voxels, stopped at the opaque scene (ground, impostors) read from the depth buffer.
// The geometry drawn is that box's back faces, so only the pixels it covers run the march (once
// each, whether the eye is outside or inside the box). Output is premultiplied (radiance,
// opacity), blended over the resolved image.
//
// `SceneDepth` is an alias the host prepends: texture_depth_2d or texture_depth_multisampled_2d.

@group(2) @binding(0) var scene_depth: SceneDepth;
// The occupied voxels' bounding box from volume_resolve: min x, y, z, then max x, y, z.
@group(2) @binding(1) var<storage, read> occupied: array<u32, 6>;

const VOLUME_ALBEDO: vec3<f32> = vec3<f32>(0.92, 0.94, 0.97);
// Marching step in voxels: finer than a voxel so trilinear filtering is resolved.
const STEP_IN_VOXELS: f32 = 0.6;
// Extinction per voxel of the view at fill 1: denser than the shadows' EXTINCTION_PER_VOXEL, so
// the snow reads as a surface (a ray is 95 % absorbed within one voxel of packed snow).
const VIEW_EXTINCTION_PER_VOXEL: f32 = 3.0;
// Rays stop once this little of the background shows through.
const OPAQUE_TRANSMITTANCE: f32 = 0.01;
const MAX_STEPS: u32 = 1024u;

struct Marched {
    @builtin(position) position: vec4<f32>,
    // The point on the box's far side this fragment sees: the ray from the eye through it.
    @location(0) world: vec3<f32>,
}

// The occupied voxels' box in metres, grown by a voxel on each side for the trilinear filter's
// reach and clamped to the volume; empty (lo above hi) when no voxel holds snow.
fn occupied_box() -> array<vec3<f32>, 2> {
    let lo_voxel = vec3<f32>(vec3<u32>(occupied[0], occupied[1], occupied[2])) - 1.0;
    let hi_voxel = vec3<f32>(vec3<u32>(occupied[3], occupied[4], occupied[5])) + 2.0;
    let lo = max(frame.domain_min + lo_voxel * frame.volume_voxel, frame.domain_min);
    let hi = min(frame.domain_min + hi_voxel * frame.volume_voxel, volume_box_max());
    return array<vec3<f32>, 2>(lo, hi);
}

@vertex
fn volume_raymarch_vertex(@builtin(vertex_index) index: u32) -> Marched {
    // The cube's twelve triangles, counter-clockwise seen from outside (corner c = x + 2y + 4z);
    // the pipeline culls front faces.
    let triangles = array<u32, 36>(
        4u, 6u, 2u, 4u, 2u, 0u, 1u, 3u, 7u, 1u, 7u, 5u, 1u, 5u, 4u, 1u, 4u, 0u,
        2u, 6u, 7u, 2u, 7u, 3u, 2u, 3u, 1u, 2u, 1u, 0u, 4u, 5u, 7u, 4u, 7u, 6u,
    );
    let corner = triangles[min(index, 35u)];
    let bounds = occupied_box();
    var out: Marched;
    if (frame.volume_valid == 0u || any(bounds[0] >= bounds[1])) {
        out.position = vec4<f32>(0.0, 0.0, -1.0, 1.0);
        return out;
    }
    let far_corner = vec3<bool>((corner & 1u) != 0u, (corner & 2u) != 0u, (corner & 4u) != 0u);
    out.world = select(bounds[0], bounds[1], far_corner);
    out.position = frame.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// Interleaved gradient noise (Jimenez 2014): a per-pixel start offset that turns slice banding
// into fine noise.
fn pixel_jitter(pixel: vec2<f32>) -> f32 {
    return fract(52.9829189 * fract(dot(pixel, vec2<f32>(0.06711056, 0.00583715))));
}

@fragment
fn volume_raymarch_fragment(in: Marched) -> @location(0) vec4<f32> {
    let dir = normalize(in.world - frame.eye);
    let depth = textureLoad(scene_depth, vec2<i32>(in.position.xy), 0);
    var t_scene = 3.0e38;
    if (depth < 1.0) {
        let surface = frame.inv_view_proj * vec4<f32>(pixel_to_ndc(in.position.xy), depth, 1.0);
        t_scene = dot(surface.xyz / surface.w - frame.eye, dir);
    }
    let bounds = occupied_box();
    let span = ray_box(frame.eye, dir, bounds[0], bounds[1]);
    let t_enter = max(span.x, 0.0);
    let t_exit = min(span.y, t_scene);
    if (t_exit <= t_enter) {
        return vec4<f32>(0.0);
    }
    let voxel = frame.volume_voxel;
    let step = STEP_IN_VOXELS * voxel;
    let extinction_per_fill = VIEW_EXTINCTION_PER_VOXEL * frame.density_scale / voxel;
    let path_to_optical_depth = EXTINCTION_PER_VOXEL * frame.density_scale;
    let steps = min(u32(ceil((t_exit - t_enter) / step)), MAX_STEPS);
    var t = t_enter + step * pixel_jitter(in.position.xy);
    var transmittance = 1.0;
    // Sunlight and skylight scattered toward the eye, kept apart so that the sun's share can be
    // shaded by the surface normal afterwards.
    var sunlit = vec3<f32>(0.0);
    var skylit = vec3<f32>(0.0);
    var surface = frame.eye + dir * t_exit;
    for (var i = 0u; i < steps; i++) {
        if (t >= t_exit) {
            break;
        }
        let p = frame.eye + dir * t;
        let s = volume_at(p);
        // The fill is sharpened around one half, so the snow has a surface rather than a haze.
        let extinction = smoothstep(0.15, 0.6, s.r) * max(s.r, 0.6) * extinction_per_fill;
        if (extinction > 1.0e-3) {
            let absorbed = transmittance * (1.0 - exp(-extinction * min(step, t_exit - t)));
            // Single scattering of the sun (shadowed by the snow toward it) plus a softer
            // multiple-scattering term that reaches deeper; the sky dimmed by the snow above.
            let sun = exp(-path_to_optical_depth * s.g) + 0.2 * exp(-0.15 * path_to_optical_depth * s.g);
            let sky = mix(0.3, 1.0, exp(-0.3 * path_to_optical_depth * s.b));
            sunlit += absorbed * sun;
            skylit += absorbed * sky;
            // Where the ray first becomes half opaque: the surface whose normal shades the sun.
            if (transmittance >= 0.5 && transmittance - absorbed < 0.5) {
                surface = p;
            }
            transmittance -= absorbed;
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
    // The normal from the fill's gradient at the surface (central differences, one voxel apart).
    let h = vec2<f32>(voxel, 0.0);
    let gradient = vec3<f32>(
        volume_at(surface + h.xyy).r - volume_at(surface - h.xyy).r,
        volume_at(surface + h.yxy).r - volume_at(surface - h.yxy).r,
        volume_at(surface + h.yyx).r - volume_at(surface - h.yyx).r,
    );
    let n = select(-dir, -normalize(gradient), dot(gradient, gradient) > 1.0e-6);
    let lambert = max((dot(n, frame.sun_direction) + 0.3) / 1.3, 0.0);
    let albedo = select(field_color(field_value_at(surface)), VOLUME_ALBEDO, frame.color_field == COLOR_SNOW);
    let radiance = albedo * (SUN_RADIANCE * lambert * sunlit + ambient_radiance(n) * skylit);
    return vec4<f32>(to_display(radiance / alpha) * alpha, alpha);
}
