// Environment: the ground plane z = domain_min.z, the sky gradient behind it, and the domain bounds.
//
// ground: a square on the plane around the eye, out to the far plane, rasterised (its depth is the
//   plane's true depth, so impostors written later intersect it exactly), checkered and lit, with
//   the snow's shadow looked up in the density volume.
// sky: a full-screen triangle on the far plane, depth-tested against the ground, so only pixels the
//   ground leaves empty run its shader.
// bounds: the twelve box edges as lines.

const GROUND_LIGHT: vec3<f32> = vec3<f32>(0.080, 0.082, 0.088);
const GROUND_DARK: vec3<f32> = vec3<f32>(0.058, 0.060, 0.066);
const BOUNDS_COLOR: vec3<f32> = vec3<f32>(0.03, 0.035, 0.05);

struct Ground {
    @builtin(position) position: vec4<f32>,
    @location(0) world: vec3<f32>,
}

@vertex
fn ground_vertex(@builtin(vertex_index) index: u32) -> Ground {
    // Two triangles: corners (-1,-1), (1,-1), (-1,1), (-1,1), (1,-1), (1,1).
    let corner = select(index, index - 2u, index >= 3u);
    let unit = vec2<f32>(f32(corner & 1u), f32(corner >> 1u)) * 2.0 - 1.0;
    var out: Ground;
    out.world = vec3<f32>(frame.eye.xy + unit * frame.far_distance, frame.domain_min.z);
    out.position = frame.view_proj * vec4<f32>(out.world, 1.0);
    return out;
}

// A checkerboard box-filtered over the pixel footprint `width` (in tiles), so it fades to grey
// instead of aliasing toward the horizon.
fn filtered_checker(p: vec2<f32>, width: vec2<f32>) -> f32 {
    let w = max(width, vec2<f32>(1.0e-4));
    let i = 2.0 * (abs(fract((p - 0.5 * w) * 0.5) - 0.5) - abs(fract((p + 0.5 * w) * 0.5) - 0.5)) / w;
    return 0.5 - 0.5 * i.x * i.y;
}

@fragment
fn ground_fragment(in: Ground) -> @location(0) vec4<f32> {
    let tiles = in.world.xy / frame.ground_tile;
    let albedo = mix(GROUND_DARK, GROUND_LIGHT, filtered_checker(tiles, fwidth(tiles)));
    // Lit from above only: seen from below, the plane is in its own shadow.
    let sun = SUN_RADIANCE * max(frame.sun_direction.z, 0.0) * sun_visibility(in.world);
    var color = albedo * (sun + ambient_radiance(vec3<f32>(0.0, 0.0, 1.0)));
    // Aerial perspective: far ground fades into the horizon.
    let distance = length(in.world - frame.eye);
    let haze = 1.0 - exp(-distance / (25.0 * length(frame.domain_max - frame.domain_min)));
    color = mix(color, SKY_HORIZON, haze);
    return vec4<f32>(to_display(color), 1.0);
}

struct Sky {
    @builtin(position) position: vec4<f32>,
    @location(0) far: vec4<f32>,
}

@vertex
fn sky_vertex(@builtin(vertex_index) index: u32) -> Sky {
    // One triangle covering the screen: (-1,-1), (3,-1), (-1,3), on the far plane.
    let ndc = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u)) * 2.0 - 1.0;
    var out: Sky;
    out.position = vec4<f32>(ndc, 1.0, 1.0);
    out.far = far_point(ndc);
    return out;
}

@fragment
fn sky_fragment(in: Sky) -> @location(0) vec4<f32> {
    return vec4<f32>(to_display(sky_radiance(eye_ray(in.far))), 1.0);
}

struct BoundsVertex {
    @builtin(position) position: vec4<f32>,
}

// The twelve edges of the domain box as a line list: 24 vertices, no vertex buffer.
@vertex
fn bounds_vertex(@builtin(vertex_index) index: u32) -> BoundsVertex {
    let edge = index / 2u;
    let end = index % 2u;
    // Edges 0–3 run along x, 4–7 along y, 8–11 along z; the other two axes pick a corner.
    let axis = edge / 4u;
    let corner = edge % 4u;
    var unit = vec3<f32>(0.0);
    unit[axis] = f32(end);
    unit[(axis + 1u) % 3u] = f32(corner & 1u);
    unit[(axis + 2u) % 3u] = f32(corner >> 1u);
    var p = mix(frame.domain_min, frame.domain_max, unit);
    // Pull the line a hair toward the eye so the edges on the ground plane win the depth test.
    p = mix(p, frame.eye, 2.0e-3);
    var out: BoundsVertex;
    out.position = frame.view_proj * vec4<f32>(p, 1.0);
    return out;
}

@fragment
fn bounds_fragment() -> @location(0) vec4<f32> {
    return vec4<f32>(to_display(BOUNDS_COLOR), 1.0);
}
