// Environment: the ground plane z = domain_min.z, the sky gradient behind it, and the domain bounds.
//
// ground: a square on the plane around the eye, out to the far plane, rasterised (its depth is the
//   plane's true depth, so impostors written later intersect it exactly), checkered and lit. It is
//   cut into a 3 × 3 grid of cells whose middle cell is the ground_shadow_rect: only that cell's
//   shader looks the snow's shadow up in the density volume (a software rasteriser pays for every
//   instruction of a shader on every pixel, so the far ground runs one without the lookup). The
//   cells share their corner vertices exactly, so the plane has no cracks.
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

// Vertices 0–5 are the middle cell (the shadowed rectangle), 6–53 the eight cells around it.
@vertex
fn ground_vertex(@builtin(vertex_index) index: u32) -> Ground {
    let cells = array<u32, 9>(4u, 0u, 1u, 2u, 3u, 5u, 6u, 7u, 8u);
    let cell = cells[min(index / 6u, 8u)];
    let i = index % 6u;
    // Two triangles: corners 0, 1, 2 and 1, 2, 3 of the cell (x fastest).
    let corner = select(i, i - 2u, i >= 3u);
    let column = cell % 3u + (corner & 1u);
    let row = cell / 3u + (corner >> 1u);
    // Grid lines: the far square around the eye, cut at the shadowed rectangle.
    let rect = frame.ground_shadow_rect;
    let reach = vec2<f32>(frame.far_distance);
    let lo = min(frame.eye.xy - reach, rect.xy);
    let hi = max(frame.eye.xy + reach, rect.zw);
    let xs = array<f32, 4>(lo.x, rect.x, rect.z, hi.x);
    let ys = array<f32, 4>(lo.y, rect.y, rect.w, hi.y);
    var out: Ground;
    out.world = vec3<f32>(xs[column], ys[row], frame.domain_min.z);
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

// The ground's colour, lit by the sun with visibility `sun_seen`.
fn ground_color(in: Ground, sun_seen: f32) -> vec4<f32> {
    let tiles = in.world.xy / frame.ground_tile;
    let albedo = mix(GROUND_DARK, GROUND_LIGHT, filtered_checker(tiles, fwidth(tiles)));
    // Lit from above only: seen from below, the plane is in its own shadow.
    let sun = SUN_RADIANCE * (max(frame.sun_direction.z, 0.0) * sun_seen);
    var color = albedo * (sun + ambient_radiance(vec3<f32>(0.0, 0.0, 1.0)));
    // Aerial perspective: far ground fades into the horizon.
    let distance = length(in.world - frame.eye);
    let haze = 1.0 - exp(-distance / (25.0 * length(frame.domain_max - frame.domain_min)));
    color = mix(color, SKY_HORIZON, haze);
    return vec4<f32>(to_display(color), 1.0);
}

@fragment
fn ground_fragment(in: Ground) -> @location(0) vec4<f32> {
    return ground_color(in, 1.0);
}

@fragment
fn ground_shadowed_fragment(in: Ground) -> @location(0) vec4<f32> {
    return ground_color(in, sun_visibility(in.world));
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

// The domain's walls, where the solver's boundary condition holds: x−, x+, y−, y+ and the top
// (the floor is the ground). Each is drawn only from inside, when the eye is on the snow's side of
// its plane, so the walls facing the eye are left out and the box reads as a cut-away room: the
// snow is always between the eye and a drawn wall, and can be seen from every side. They are
// opaque (a blend would differ between sRGB and linear targets), a dim blue-grey unlike snow, sky
// and ground, with darker grid lines on the ground's tile size.
const WALL_ALBEDO: vec3<f32> = vec3<f32>(0.09, 0.10, 0.125);
struct Wall {
    @builtin(position) position: vec4<f32>,
    @location(0) world: vec3<f32>,
    // The wall's normal, pointing into the domain.
    @location(1) @interpolate(flat) normal: vec3<f32>,
    // The two coordinates across the wall, metres.
    @location(2) across: vec2<f32>,
}

// Five walls of two triangles: 30 vertices, no vertex buffer.
@vertex
fn walls_vertex(@builtin(vertex_index) index: u32) -> Wall {
    let wall = min(index / 6u, 4u);
    let axes = array<u32, 5>(0u, 0u, 1u, 1u, 2u);
    let sides = array<u32, 5>(0u, 1u, 0u, 1u, 1u);
    let axis = axes[wall];
    let side = sides[wall];
    let i = index % 6u;
    let corner = select(i, i - 2u, i >= 3u);
    var unit = vec3<f32>(0.0);
    unit[axis] = f32(side);
    unit[(axis + 1u) % 3u] = f32(corner & 1u);
    unit[(axis + 2u) % 3u] = f32(corner >> 1u);
    var out: Wall;
    out.world = mix(frame.domain_min, frame.domain_max, unit);
    var normal = vec3<f32>(0.0);
    normal[axis] = select(1.0, -1.0, side == 1u);
    out.normal = normal;
    out.across = vec2<f32>(out.world[(axis + 1u) % 3u], out.world[(axis + 2u) % 3u]);
    // Seen from outside: a degenerate triangle beyond the far plane, clipped.
    let inside = dot(frame.eye - out.world, normal) > 0.0;
    out.position = select(vec4<f32>(0.0, 0.0, 2.0, 1.0), frame.view_proj * vec4<f32>(out.world, 1.0), inside);
    return out;
}

@fragment
fn walls_fragment(in: Wall) -> @location(0) vec4<f32> {
    let n = in.normal;
    // Lambert with the snow's shadow from the volume (probed half a voxel into the domain, as on
    // the meshes), hemispheric ambient and the snow's occlusion.
    let probe = in.world + n * (0.5 * frame.volume_voxel);
    let sun = SUN_RADIANCE * (max(dot(n, frame.sun_direction), 0.0) * sun_visibility(probe));
    let ambient = ambient_radiance(n) * sky_visibility(in.world, n);
    let color = WALL_ALBEDO * (sun + ambient);
    // Grid lines one pixel wide (distance to the nearest line over the pixel footprint).
    let tiles = in.across / frame.ground_tile;
    let to_line = abs(fract(tiles + 0.5) - 0.5) / max(fwidth(tiles), vec2<f32>(1.0e-6));
    let line = 1.0 - clamp(min(to_line.x, to_line.y) - 0.5, 0.0, 1.0);
    return vec4<f32>(to_display(color * (1.0 - 0.35 * line)), 1.0);
}
