// The snow's surface: the iso-surface of the density volume's fill fraction, extracted on the GPU
// by marching tetrahedra every time the volume is splatted, then drawn as shaded triangles.
//
// The fill is sampled at voxel centres (volume_splat.wgsl's fixed-point sums). Each cube of eight
// neighbouring centres is cut into six tetrahedra along its main diagonal (Kuhn's triangulation:
// tetrahedron k is the monotone path 0 → one axis → two axes → corner 7). Neighbouring cubes cut
// their shared face along the same diagonal, so the piecewise-linear fill is continuous and its
// level set is a closed manifold wherever the volume is padded with empty voxels, which it is:
// centres outside the volume read 0. Marching cubes needs a 256-case table and resolves its
// ambiguous faces by convention; a tetrahedron has no ambiguous case and 3 kinds of crossing.
//
// surface_prepare (one thread): the indirect dispatch of surface_extract over the cubes around
//   the occupied box, and the triangle count reset.
// surface_extract (one thread per cube): the cube's crossing triangles, appended with one atomic
//   per cube. A crossing vertex is computed from its edge's two centres in one fixed order (the
//   componentwise lower centre first), so the two, three or more tetrahedra sharing an edge place
//   its vertex identically. Normals are the interpolated gradient of the fill; sun and sky
//   visibility are looked up here, once per vertex (vertex work is expensive on lavapipe).
// surface_finish (one thread): the draw's vertex count, clamped to the triangle list's capacity.
// surface_vertex / surface_fragment: wrapped-Lambert snow under the sun, the volume's shadow and
//   sky occlusion.

// Fill fraction of the surface (fill 1 = snow at rest density): half of rest density. For a flat
// boundary, the tent splat's fill falls linearly from 1 to 0 across one voxel centred on the
// boundary, so half-fill lies on it.
const SURFACE_ISO: f32 = 0.5;
// Crossing points are kept this fraction of an edge from either end, so no triangle collapses to
// a line or a point (a corner exactly at the iso value would otherwise put two of a triangle's
// vertices together). The shift is at most 0.02 voxel.
const SURFACE_EDGE_MARGIN: f32 = 0.02;
const SURFACE_WORKGROUP: u32 = 64u;

// One corner of a surface triangle. Mirrors src/render/surface.rs's SurfaceVertex.
struct SurfaceVertex {
    position: vec3<f32>,
    // Sun and sky visibility, two unorm16.
    light: u32,
    normal: vec3<f32>,
    // rgba8 unorm.
    albedo: u32,
}

// wgpu's DrawIndirectArgs.
struct SurfaceDrawArgs {
    vertex_count: u32,
    instance_count: u32,
    first_vertex: u32,
    first_instance: u32,
}

// Group 2 of surface_prepare.
@group(2) @binding(1) var<storage, read> surface_box: array<u32, 6>;
@group(2) @binding(3) var<storage, read_write> surface_count: array<atomic<u32>, 1>;
// Workgroups of surface_extract (x, y, z): its indirect dispatch.
@group(2) @binding(4) var<storage, read_write> surface_dispatch: array<u32, 3>;
// The cubes surface_extract covers: their lowest corner's voxel (x, y, z, as i32) and how many
// along each axis.
@group(2) @binding(7) var<storage, read_write> surface_cubes_out: array<u32, 6>;
// Group 2 of surface_extract and surface_finish (surface_count as above).
@group(2) @binding(0) var<storage, read> surface_sums: array<u32>;
// Triangles, three corners each; [0] of surface_count counts them (it may exceed the list's
// capacity; only those that fit are written).
@group(2) @binding(2) var<storage, read_write> surface_out: array<SurfaceVertex>;
@group(2) @binding(5) var<storage, read_write> surface_draw_args: SurfaceDrawArgs;
@group(2) @binding(8) var<storage, read> surface_cubes: array<u32, 6>;
// Group 2 of the draw.
@group(2) @binding(6) var<storage, read> surface_triangles: array<SurfaceVertex>;

@compute @workgroup_size(1)
fn surface_prepare() {
    atomicStore(&surface_count[0], 0u);
    let lo = vec3<i32>(i32(surface_box[0]), i32(surface_box[1]), i32(surface_box[2]));
    let hi = vec3<i32>(i32(surface_box[3]), i32(surface_box[4]), i32(surface_box[5]));
    var cubes = 0u;
    surface_cubes_out[3] = 0u;
    surface_cubes_out[4] = 0u;
    surface_cubes_out[5] = 0u;
    if (frame.volume_valid != 0u && surface_box[0] <= surface_box[3] && surface_box[1] <= surface_box[4]
        && surface_box[2] <= surface_box[5]) {
        // Cubes whose lower corner lies in [lo − 1, hi]: every one with a filled corner.
        let size = vec3<u32>(hi - lo + 2);
        cubes = size.x * size.y * size.z;
        surface_cubes_out[3] = size.x;
        surface_cubes_out[4] = size.y;
        surface_cubes_out[5] = size.z;
    }
    let workgroups = (cubes + SURFACE_WORKGROUP - 1u) / SURFACE_WORKGROUP;
    let x = min(workgroups, 65535u);
    surface_dispatch[0] = x;
    surface_dispatch[1] = select(0u, (workgroups + x - 1u) / max(x, 1u), workgroups > 0u);
    surface_dispatch[2] = 1u;
    surface_cubes_out[0] = u32(lo.x - 1);
    surface_cubes_out[1] = u32(lo.y - 1);
    surface_cubes_out[2] = u32(lo.z - 1);
}

// The fill at voxel centre v; 0 outside the volume.
fn surface_fill(v: vec3<i32>) -> f32 {
    let dims = vec3<i32>(frame.volume_dims);
    if (any(v < vec3<i32>(0)) || any(v >= dims)) {
        return 0.0;
    }
    return f32(surface_sums[u32(v.x + dims.x * (v.y + dims.y * v.z))]) / VOLUME_FIXED_SCALE;
}

// The fill's gradient at centre v (per voxel), by central differences.
fn surface_gradient(v: vec3<i32>) -> vec3<f32> {
    let x = vec3<i32>(1, 0, 0);
    let y = vec3<i32>(0, 1, 0);
    let z = vec3<i32>(0, 0, 1);
    return 0.5 * vec3<f32>(
        surface_fill(v + x) - surface_fill(v - x),
        surface_fill(v + y) - surface_fill(v - y),
        surface_fill(v + z) - surface_fill(v - z),
    );
}

fn corner_offset(c: u32) -> vec3<i32> {
    return vec3<i32>(i32(c & 1u), i32((c >> 1u) & 1u), i32(c >> 2u));
}

// The crossing on the edge from centre a to centre b (a componentwise below b, fa and fb on either
// side of the iso value): position in world space and the outward normal (against the gradient).
fn crossing(a: vec3<i32>, fa: f32, b: vec3<i32>, fb: f32) -> SurfaceVertex {
    let t = clamp((SURFACE_ISO - fa) / (fb - fa), SURFACE_EDGE_MARGIN, 1.0 - SURFACE_EDGE_MARGIN);
    let pa = vec3<f32>(a) + 0.5;
    let pb = vec3<f32>(b) + 0.5;
    var v: SurfaceVertex;
    v.position = frame.domain_min + (pa + (pb - pa) * t) * frame.volume_voxel;
    let g = mix(surface_gradient(a), surface_gradient(b), t);
    v.normal = -g / max(length(g), 1.0e-20);
    return v;
}

// Fills in a corner's light and colour.
fn lit(v: SurfaceVertex) -> SurfaceVertex {
    var out = v;
    // The sun is looked up just outside the surface, so the voxel it bounds does not shadow it.
    let outside = v.position + v.normal * (0.5 * frame.volume_voxel);
    let light = vec2<f32>(sun_visibility(outside + frame.sun_direction * (0.25 * frame.volume_voxel)), sky_visibility(v.position, v.normal));
    out.light = pack2x16unorm(light);
    // The colour field half a voxel inside, where the fill outweighs the empty voxels around.
    let albedo = field_color(field_value_at(v.position - v.normal * (0.5 * frame.volume_voxel)));
    out.albedo = pack4x8unorm(vec4<f32>(albedo, 1.0));
    return out;
}

// The triangles of one cube, at most twelve: six tetrahedra, two each.
var<private> cube_triangles: array<SurfaceVertex, 36>;
var<private> cube_count: u32;

// Appends triangle (p, q, r), turned so its winding faces away from the snow (`outward`).
fn emit(p: SurfaceVertex, q: SurfaceVertex, r: SurfaceVertex, outward: vec3<f32>) {
    let n = cross(q.position - p.position, r.position - p.position);
    let k = 3u * cube_count;
    cube_triangles[k] = p;
    if (dot(n, outward) >= 0.0) {
        cube_triangles[k + 1u] = q;
        cube_triangles[k + 2u] = r;
    } else {
        cube_triangles[k + 1u] = r;
        cube_triangles[k + 2u] = q;
    }
    cube_count += 1u;
}

@compute @workgroup_size(SURFACE_WORKGROUP)
fn surface_extract(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = (workgroup.y * workgroups.x + workgroup.x) * SURFACE_WORKGROUP + local;
    let size = vec3<u32>(surface_cubes[3], surface_cubes[4], surface_cubes[5]);
    if (index >= size.x * size.y * size.z) {
        return;
    }
    let origin = vec3<i32>(i32(surface_cubes[0]), i32(surface_cubes[1]), i32(surface_cubes[2]));
    let base = origin + vec3<i32>(vec3<u32>(index % size.x, (index / size.x) % size.y, index / (size.x * size.y)));
    var fill: array<f32, 8>;
    var inside = 0u;
    for (var c = 0u; c < 8u; c++) {
        fill[c] = surface_fill(base + corner_offset(c));
        inside += select(0u, 1u, fill[c] >= SURFACE_ISO);
    }
    if (inside == 0u || inside == 8u) {
        return;
    }
    cube_count = 0u;
    // Kuhn's six tetrahedra: corners 0, 1 << a, (1 << a) | (1 << b), 7 for each order (a, b, c)
    // of the axes. Listed as the second and third corners.
    let seconds = array<u32, 6>(1u, 1u, 2u, 2u, 4u, 4u);
    let thirds = array<u32, 6>(3u, 5u, 3u, 6u, 5u, 6u);
    for (var t = 0u; t < 6u; t++) {
        // Corners in path order: each is componentwise below the ones after it.
        let tet = array<u32, 4>(0u, seconds[t], thirds[t], 7u);
        var ins: array<u32, 4>;
        var outs: array<u32, 4>;
        var n_in = 0u;
        var n_out = 0u;
        for (var k = 0u; k < 4u; k++) {
            if (fill[tet[k]] >= SURFACE_ISO) {
                ins[n_in] = k;
                n_in += 1u;
            } else {
                outs[n_out] = k;
                n_out += 1u;
            }
        }
        if (n_in == 0u || n_out == 0u) {
            continue;
        }
        var centre_in = vec3<f32>(0.0);
        var centre_out = vec3<f32>(0.0);
        for (var k = 0u; k < n_in; k++) {
            centre_in += vec3<f32>(corner_offset(tet[ins[k]])) / f32(n_in);
        }
        for (var k = 0u; k < n_out; k++) {
            centre_out += vec3<f32>(corner_offset(tet[outs[k]])) / f32(n_out);
        }
        let outward = centre_out - centre_in;
        // The crossing on the edge between tetrahedron corners i and o, in path order.
        var p: array<SurfaceVertex, 4>;
        var pairs: array<vec2<u32>, 4>;
        if (n_in == 2u) {
            // A quad: the cycle in0–out0, in0–out1, in1–out1, in1–out0.
            pairs = array<vec2<u32>, 4>(
                vec2<u32>(ins[0], outs[0]), vec2<u32>(ins[0], outs[1]),
                vec2<u32>(ins[1], outs[1]), vec2<u32>(ins[1], outs[0]),
            );
        } else {
            // One corner alone on its side: a triangle on its three edges.
            let lone = select(outs[0], ins[0], n_in == 1u);
            var others: array<u32, 3>;
            var m = 0u;
            for (var k = 0u; k < 4u; k++) {
                if (k != lone) {
                    others[m] = k;
                    m += 1u;
                }
            }
            pairs = array<vec2<u32>, 4>(
                vec2<u32>(lone, others[0]), vec2<u32>(lone, others[1]), vec2<u32>(lone, others[2]), vec2<u32>(lone, others[2]),
            );
        }
        let corners = select(3u, 4u, n_in == 2u);
        for (var k = 0u; k < corners; k++) {
            let i = min(pairs[k].x, pairs[k].y);
            let j = max(pairs[k].x, pairs[k].y);
            let a = tet[i];
            let b = tet[j];
            p[k] = crossing(base + corner_offset(a), fill[a], base + corner_offset(b), fill[b]);
        }
        emit(p[0], p[1], p[2], outward);
        if (corners == 4u) {
            emit(p[0], p[2], p[3], outward);
        }
    }
    let first = atomicAdd(&surface_count[0], cube_count);
    let capacity = arrayLength(&surface_out) / 3u;
    for (var k = 0u; k < cube_count; k++) {
        if (first + k < capacity) {
            for (var c = 0u; c < 3u; c++) {
                surface_out[3u * (first + k) + c] = lit(cube_triangles[3u * k + c]);
            }
        }
    }
}

@compute @workgroup_size(1)
fn surface_finish() {
    let capacity = arrayLength(&surface_out) / 3u;
    surface_draw_args.vertex_count = 3u * min(atomicLoad(&surface_count[0]), capacity);
    surface_draw_args.instance_count = 1u;
    surface_draw_args.first_vertex = 0u;
    surface_draw_args.first_instance = 0u;
}

struct SurfaceFragmentIn {
    @builtin(position) position: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) light: vec2<f32>,
    @location(2) albedo: vec3<f32>,
    @location(3) world: vec3<f32>,
}

@vertex
fn surface_vertex(@builtin(vertex_index) vertex: u32) -> SurfaceFragmentIn {
    let v = surface_triangles[vertex];
    var out: SurfaceFragmentIn;
    out.position = frame.view_proj * vec4<f32>(v.position, 1.0);
    out.normal = v.normal;
    out.light = unpack2x16unorm(v.light);
    out.albedo = unpack4x8unorm(v.albedo).rgb;
    out.world = v.position;
    return out;
}

@fragment
fn surface_fragment(in: SurfaceFragmentIn) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    // Light scatters under a snow surface and leaves it beside where it entered: a wrapped Lambert
    // term lets the sun reach past the terminator, and a little of it comes back tinted blue (snow
    // absorbs red more deeply).
    let cosine = dot(n, frame.sun_direction);
    let diffuse = max((cosine + 0.3) / 1.3, 0.0);
    let scatter = vec3<f32>(0.05, 0.09, 0.14) * clamp(0.6 - cosine, 0.0, 1.0);
    let sun = SUN_RADIANCE * in.light.x;
    let radiance = in.albedo * (sun * diffuse + ambient_radiance(n) * in.light.y) + sun * scatter;
    return vec4<f32>(to_display(radiance), 1.0);
}
