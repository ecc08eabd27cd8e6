// Particles as lit sphere impostors: one camera-facing triangle per visible particle, a ray–sphere
// intersection per fragment, and the true depth of the hit written.
//
// particles_shade (compute, one thread per particle): culls particles outside the view or buried
// under dense snow, and appends each remaining one to `impostors_out` with its albedo (from the
// colour field) and its sun and sky visibility (from the density volume), counting them in the
// indirect draw's vertex count. Per-particle work is done here, once, rather than per vertex: on a
// software rasteriser vertex work runs on one thread and is expensive.
// particles_vertex: the triangle. It lies in the plane through the sphere's centre normal to the
// eye→centre axis. The tangent cone from the eye has half-angle asin(r/d), so it cuts that plane in
// a circle of radius ρ = d·r/√(d² − r²); the equilateral triangle of inradius ρ (plus half a pixel
// for the anti-aliased edge under MSAA) holds it, so the sphere's whole projection is covered.
// particles_fragment: the ray from the eye through the fragment hits the sphere (or, within the
// anti-aliased fringe, passes just beside it); lit with wrapped Lambert, sun, hemispheric ambient.

// True when the pipeline draws with alpha-to-coverage (MSAA): the edge writes fractional coverage.
// Otherwise fragments outside half a pixel of the silhouette are discarded.
override EDGE_COVERAGE: bool = false;
override SHADE_WORKGROUP_SIZE: u32 = 256u;

// A particle is hidden when the snow between it and the eye is at least this dense (fill
// fraction) at each of BURIED_PROBES voxel steps: eight particle layers of packed snow.
const BURIED_FILL: f32 = 0.85;
const BURIED_PROBES: u32 = 4u;

// One visible particle: centre, albedo (rgba8 unorm), sun and sky visibility (two unorm16).
// The host sizes it as src/render/particles.rs's IMPOSTOR_RECORD_BYTES (tests/render_shaders.rs).
struct ImpostorRecord {
    center: vec3<f32>,
    albedo: u32,
    light: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

// wgpu's DrawIndirectArgs.
struct DrawArgs {
    vertex_count: atomic<u32>,
    instance_count: u32,
    first_vertex: u32,
    first_instance: u32,
}

// Group 2 of particles_shade.
@group(2) @binding(0) var<storage, read_write> impostors_out: array<ImpostorRecord>;
@group(2) @binding(1) var<storage, read_write> draw_args: DrawArgs;
// Group 2 of the draw.
@group(2) @binding(2) var<storage, read> impostors: array<ImpostorRecord>;

struct Impostor {
    @builtin(position) position: vec4<f32>,
    // The triangle point this fragment sees, world space: the ray from the eye through it.
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) center: vec3<f32>,
    // Albedo and light of the record.
    @location(2) @interpolate(flat) shading: vec2<u32>,
}

fn particle_albedo(index: u32) -> vec3<f32> {
    switch frame.color_field {
        case COLOR_SPEED: {
            return speed_ramp(length(particle_velocity[index].xyz) / frame.speed_scale);
        }
        case COLOR_PLASTIC_JACOBIAN: {
            return plastic_ramp(particle_plastic[index].plastic_jacobian);
        }
        case COLOR_MATERIAL: {
            return material_color(particle_plastic[index].material);
        }
        default: {
            return SNOW_ALBEDO;
        }
    }
}

// Whether a sphere of radius r at `center` can show: in front of the eye and within the view
// (with a margin of its projected radius, doubled for the perspective bulge near the edges), and
// not buried under dense snow on the way to the eye.
fn is_visible(center: vec3<f32>, r: f32, view_proj: mat4x4<f32>) -> bool {
    let clip = view_proj * vec4<f32>(center, 1.0);
    let margin = 4.0 * r / (frame.pixel_angle * frame.viewport);
    let in_view = clip.w > -r && all(abs(clip.xy) <= vec2<f32>(clip.w) + margin);
    // Impostors much smaller than the particle spacing (particle_scale below 0.8) leave gaps to see
    // deep into the snow through: then nothing counts as buried. (A comparison with the voxel, four
    // radii where the volume is not capped, turned culling off on large grids, whose voxels are
    // coarser: every one of 16M particles was drawn.)
    if (!in_view || frame.volume_valid == 0u || r < frame.gap_radius) {
        return in_view;
    }
    let to_eye = frame.eye - center;
    let step = normalize(to_eye) * frame.volume_voxel;
    // Only snow inside the volume and in front of the eye hides a particle. Outside the box the
    // sampler clamps to the boundary voxels: a ball pressed against a wall and seen from beyond it
    // would be hidden by its own contact face, all but a crescent of its rim.
    let box_max = volume_box_max();
    let reach = length(to_eye);
    var buried = true;
    for (var k = 1u; k <= BURIED_PROBES; k++) {
        let probe = center + step * f32(k);
        let inside = all(probe >= frame.domain_min) && all(probe <= box_max) && f32(k) * frame.volume_voxel < reach;
        buried = buried && inside && volume_at(probe).r >= BURIED_FILL;
    }
    return !buried;
}

// The workgroup's visible particles so far (their places within its part of impostors_out), and
// the first place of that part.
var<workgroup> group_count: atomic<u32>;
var<workgroup> group_first: u32;

// Whether particle `index` is drawn, and if so its record.
struct Shaded {
    visible: bool,
    record: ImpostorRecord,
}

fn shade(index: u32, view_proj: mat4x4<f32>) -> Shaded {
    var out: Shaded;
    if (index >= frame.particle_count) {
        return out;
    }
    let center = particle_position[index].xyz;
    let r = frame.particle_radius;
    // A particle with a broken position, or one the eye is inside, is not drawn.
    if (!is_finite_vec3(center) || r <= 0.0 || distance(center, frame.eye) <= r * 1.001) {
        return out;
    }
    if (!is_visible(center, r, view_proj)) {
        return out;
    }
    // Shadow looked up just outside the particle toward the sun, so a particle on the lit surface
    // is not shadowed by its own voxel; occlusion on the side facing the eye.
    let sun_probe = center + frame.sun_direction * (0.75 * frame.volume_voxel);
    let toward_eye = normalize(frame.eye - center);
    let light = vec2<f32>(sun_visibility(sun_probe), sky_visibility(center, toward_eye));
    out.visible = true;
    out.record.center = center;
    out.record.albedo = pack4x8unorm(vec4<f32>(particle_albedo(index), 1.0));
    out.record.light = pack2x16unorm(light);
    return out;
}

// frame.view_proj, read through column `first` and the three after it; `first` is always 0 (the
// pass is dispatched with one workgroup in z), but the shader compiler cannot know that. Mesa
// 22.3's lavapipe kept about 0.4 MB of driver memory per dispatch, never freed, while this pass
// read the matrix at constant offsets of the frame block (measured in docs/app.md, "Memory"); an
// offset it cannot fold into a constant keeps its memory flat, and costs nothing elsewhere.
fn view_projection(first: u32) -> mat4x4<f32> {
    // Indexed in the uniform itself: a copy of the whole matrix would be loaded at constant offsets.
    let v = &frame.view_proj;
    return mat4x4<f32>((*v)[first], (*v)[first + 1u], (*v)[first + 2u], (*v)[first + 3u]);
}

// Places are taken per workgroup: each visible particle takes one in the workgroup's count, then
// one thread reserves the workgroup's total with a single global atomic. One global atomic per
// particle had every thread of the dispatch meet on the vertex count.
@compute @workgroup_size(SHADE_WORKGROUP_SIZE)
fn particles_shade(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    if (local == 0u) {
        atomicStore(&group_count, 0u);
    }
    workgroupBarrier();
    let shaded = shade((workgroup.y * workgroups.x + workgroup.x) * SHADE_WORKGROUP_SIZE + local, view_projection(workgroups.z - 1u));
    var place = 0u;
    if (shaded.visible) {
        place = atomicAdd(&group_count, 1u);
    }
    workgroupBarrier();
    if (local == 0u) {
        let count = atomicLoad(&group_count);
        group_first = atomicAdd(&draw_args.vertex_count, 3u * count) / 3u;
    }
    let first = workgroupUniformLoad(&group_first);
    // A list sized below the particle count (past one binding) drops the rest; the vertex shader
    // skips their vertices.
    if (shaded.visible && first + place < arrayLength(&impostors_out)) {
        impostors_out[first + place] = shaded.record;
    }
}

@vertex
fn particles_vertex(@builtin(vertex_index) vertex: u32) -> Impostor {
    var out: Impostor;
    if (vertex / 3u >= arrayLength(&impostors)) {
        // Past the list (more visible particles than it holds): a degenerate triangle, clipped.
        out.position = vec4<f32>(0.0, 0.0, 2.0, 1.0);
        return out;
    }
    let record = impostors[vertex / 3u];
    let corner = vertex % 3u;
    let center = record.center;
    let r = frame.particle_radius;
    let to_center = center - frame.eye;
    let d = length(to_center);
    let axis = to_center / d;
    let helper = select(vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(1.0, 0.0, 0.0), abs(axis.z) > 0.99);
    let right = normalize(cross(axis, helper));
    let up = cross(right, axis);
    // With MSAA the anti-aliased fringe needs half a pixel more; without it, fragments beyond the
    // silhouette are discarded anyway.
    let fringe = select(0.0, 0.5 * d * frame.pixel_angle, EDGE_COVERAGE);
    let inradius = d * r / sqrt(d * d - r * r) + fringe;
    // Corners of the equilateral triangle of inradius 1 (circumradius 2).
    let uv = select(
        select(vec2<f32>(1.7320508, -1.0), vec2<f32>(-1.7320508, -1.0), corner == 1u),
        vec2<f32>(0.0, 2.0),
        corner == 0u,
    );
    out.world = center + (right * uv.x + up * uv.y) * inradius;
    out.position = frame.view_proj * vec4<f32>(out.world, 1.0);
    out.center = center;
    out.shading = vec2<u32>(record.albedo, record.light);
    return out;
}

struct ImpostorFragment {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn particles_fragment(in: Impostor) -> ImpostorFragment {
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
    // Unit length on the sphere; within the fringe slightly longer, harmless for shading.
    let n = (hit - in.center) / r;
    // Snow scatters under its surface: a slightly wrapped Lambert term softens the terminator.
    let diffuse = max((dot(n, frame.sun_direction) + 0.15) / 1.15, 0.0);
    let albedo = unpack4x8unorm(in.shading.x).rgb;
    let light = unpack2x16unorm(in.shading.y);
    let radiance = albedo * (SUN_RADIANCE * diffuse * light.x + ambient_radiance(n) * light.y);
    var out: ImpostorFragment;
    out.color = vec4<f32>(to_display(radiance), select(1.0, coverage, EDGE_COVERAGE));
    // Depth needs only the third and fourth rows of the matrix.
    let vp = frame.view_proj;
    let clip_z = vp[0].z * hit.x + vp[1].z * hit.y + vp[2].z * hit.z + vp[3].z;
    let clip_w = vp[0].w * hit.x + vp[1].w * hit.y + vp[2].w * hit.z + vp[3].w;
    out.depth = clip_z / clip_w;
    return out;
}
