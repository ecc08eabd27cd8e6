// Particles as lit sphere impostors: one camera-facing triangle per particle, a ray–sphere
// intersection per fragment, and the true depth of the hit written.
//
// particles_shade (compute, one thread per particle): the particle's albedo (from the colour field)
// and its sun and sky visibility (from the density volume), packed into `shading`. Done once per
// particle here rather than once per vertex: on a software rasteriser vertex work is expensive.
// particles_vertex: the triangle. It lies in the plane through the sphere's centre normal to the
// eye→centre axis. The tangent cone from the eye has half-angle asin(r/d), so it cuts that plane in
// a circle of radius ρ = d·r/√(d² − r²); the equilateral triangle with inradius ρ + one pixel (for
// the anti-aliased edge) holds it, so the sphere's whole projection is covered in perspective.
// particles_fragment: the ray from the eye through the fragment hits the sphere (or, within the
// anti-aliased fringe, passes just beside it); lit with wrapped Lambert, sun, hemispheric ambient.

// True when the pipeline draws with alpha-to-coverage (MSAA): the edge writes fractional coverage.
// Otherwise fragments outside half a pixel of the silhouette are discarded.
override EDGE_COVERAGE: bool = false;
override SHADE_WORKGROUP_SIZE: u32 = 256u;

const SNOW_ALBEDO: vec3<f32> = vec3<f32>(0.90, 0.92, 0.95);

// Per particle: albedo as rgba8 unorm, then sun and sky visibility as two unorm16.
@group(2) @binding(0) var<storage, read_write> shading_out: array<vec2<u32>>;
@group(2) @binding(1) var<storage, read> shading: array<vec2<u32>>;

struct Impostor {
    @builtin(position) position: vec4<f32>,
    // The triangle point this fragment sees, world space: the ray from the eye through it.
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) center: vec3<f32>,
    @location(2) @interpolate(flat) shading: vec2<u32>,
}

// Blue (still) → cyan → green → yellow → red (speed_scale and above).
fn speed_ramp(s: f32) -> vec3<f32> {
    let stops = array<vec3<f32>, 5>(
        vec3<f32>(0.08, 0.20, 0.75),
        vec3<f32>(0.05, 0.60, 0.85),
        vec3<f32>(0.15, 0.75, 0.25),
        vec3<f32>(0.95, 0.80, 0.10),
        vec3<f32>(0.90, 0.12, 0.05),
    );
    let x = clamp(s, 0.0, 1.0) * 4.0;
    let i = min(u32(x), 3u);
    return mix(stops[i], stops[i + 1u], x - f32(i));
}

// Jp < 1 (compressed) warm, Jp > 1 (stretched) blue-violet, full colour at a factor √2 either way.
fn plastic_ramp(jp: f32) -> vec3<f32> {
    let s = clamp(2.0 * log2(max(jp, 1.0e-6)), -1.0, 1.0);
    let neutral = vec3<f32>(0.88, 0.88, 0.88);
    if (s < 0.0) {
        return mix(neutral, vec3<f32>(0.95, 0.42, 0.10), -s);
    }
    return mix(neutral, vec3<f32>(0.35, 0.30, 0.95), s);
}

fn material_color(id: u32) -> vec3<f32> {
    let palette = array<vec3<f32>, 8>(
        vec3<f32>(0.12, 0.47, 0.71),
        vec3<f32>(1.00, 0.50, 0.05),
        vec3<f32>(0.17, 0.63, 0.17),
        vec3<f32>(0.84, 0.15, 0.16),
        vec3<f32>(0.58, 0.40, 0.74),
        vec3<f32>(0.55, 0.34, 0.29),
        vec3<f32>(0.89, 0.47, 0.76),
        vec3<f32>(0.74, 0.74, 0.13),
    );
    return palette[id % 8u];
}

fn particle_albedo(index: u32) -> vec3<f32> {
    switch frame.color_field {
        case COLOR_SPEED: {
            return speed_ramp(length(particles[index].velocity) / frame.speed_scale);
        }
        case COLOR_PLASTIC_JACOBIAN: {
            return plastic_ramp(particles[index].plastic_jacobian);
        }
        case COLOR_MATERIAL: {
            return material_color(particles[index].material);
        }
        default: {
            return SNOW_ALBEDO;
        }
    }
}

@compute @workgroup_size(SHADE_WORKGROUP_SIZE)
fn particles_shade(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = (workgroup.y * workgroups.x + workgroup.x) * SHADE_WORKGROUP_SIZE + local;
    if (index >= frame.particle_count) {
        return;
    }
    let center = particles[index].position;
    // Shadow looked up just outside the particle toward the sun, so a particle on the lit surface
    // is not shadowed by its own voxel; occlusion on the side facing the eye.
    let sun_probe = center + frame.sun_direction * (0.75 * frame.volume_voxel);
    let toward_eye = normalize(frame.eye - center);
    let light = vec2<f32>(sun_visibility(sun_probe), sky_visibility(center, toward_eye));
    shading_out[index] = vec2<u32>(pack4x8unorm(vec4<f32>(particle_albedo(index), 1.0)), pack2x16unorm(light));
}

@vertex
fn particles_vertex(@builtin(vertex_index) vertex: u32) -> Impostor {
    var out: Impostor;
    let index = vertex / 3u;
    let corner = vertex % 3u;
    let center = particles[index].position;
    let r = frame.particle_radius;
    let to_center = center - frame.eye;
    let d = length(to_center);
    // A particle with a broken position, or one the eye is inside, gets a degenerate triangle.
    if (!is_finite_vec3(center) || r <= 0.0 || d <= r * 1.001) {
        out.position = vec4<f32>(0.0, 0.0, -1.0, 1.0);
        return out;
    }
    let axis = to_center / d;
    let helper = select(vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(1.0, 0.0, 0.0), abs(axis.z) > 0.99);
    let right = normalize(cross(axis, helper));
    let up = cross(right, axis);
    let inradius = d * r / sqrt(d * d - r * r) + d * frame.pixel_angle;
    // Corners of the equilateral triangle of inradius 1 (circumradius 2).
    let uv = select(
        select(vec2<f32>(1.7320508, -1.0), vec2<f32>(-1.7320508, -1.0), corner == 1u),
        vec2<f32>(0.0, 2.0),
        corner == 0u,
    );
    out.world = center + (right * uv.x + up * uv.y) * inradius;
    out.position = frame.view_proj * vec4<f32>(out.world, 1.0);
    out.center = center;
    out.shading = shading[index];
    return out;
}

struct ImpostorFragment {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn particles_fragment(in: Impostor) -> ImpostorFragment {
    if (true) { var o: ImpostorFragment; o.color = vec4<f32>(1.0); o.depth = in.position.z; return o; }
    let r = frame.particle_radius;
    let dir = normalize(in.world - frame.eye);
    let oc = frame.eye - in.center;
    let along = -dot(oc, dir);
    // The ray's offset from the centre, taken as a vector (oc·oc − b² would cancel catastrophically
    // for a small sphere far away).
    let offset = oc + dir * along;
    let miss2 = dot(offset, offset);
    let pixel = max(along, 0.0) * frame.pixel_angle;
    let coverage = clamp((r - sqrt(miss2)) / max(pixel, 1.0e-12) + 0.5, 0.0, 1.0);
    if (coverage <= 0.0 || (!EDGE_COVERAGE && coverage < 0.5)) {
        discard;
    }
    // Rays in the anti-aliased fringe just miss: they shade the nearest silhouette point.
    let t = along - sqrt(max(r * r - miss2, 0.0));
    let hit = frame.eye + dir * t;
    let n = normalize(hit - in.center);
    // Snow scatters under its surface: a slightly wrapped Lambert term softens the terminator.
    let diffuse = max((dot(n, frame.sun_direction) + 0.15) / 1.15, 0.0);
    let albedo = unpack4x8unorm(in.shading.x).rgb;
    let light = unpack2x16unorm(in.shading.y);
    let radiance = albedo * (SUN_RADIANCE * diffuse * light.x + ambient_radiance(n) * light.y);
    var out: ImpostorFragment;
    out.color = vec4<f32>(to_display(radiance), select(1.0, coverage, EDGE_COVERAGE));
    out.depth = depth_of(hit);
    return out;
}
