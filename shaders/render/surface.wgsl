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
// Every tetrahedron edge joins a centre n to n + o for one of the 7 offsets o in {0, 1}³ \ {0}
// (bit 0 = x, 1 = y, 2 = z), so an edge is named by its lower centre and o.
//
// surface_cover.wgsl runs first: the field read here as surface_sums is the fill sums raised so
//   that every particle lies inside the surface.
// surface_prepare (one thread): the nodes (centres) around the occupied box, the indirect dispatch
//   of the next pass over them, and the counters reset.
// surface_make_vertices (one thread per node): for each of its 7 edges that crosses the iso value, one
//   vertex: its position, and which node and edge it lies on; its place noted in the edge map. Each
//   vertex is made once, however many triangles share it. It also lists the cube whose lowest
//   corner the node is when that cube's corners lie on both sides.
// surface_count_cubes (one thread): the next pass's dispatch over the listed cubes.
// surface_make_triangles (one thread per listed cube): the crossing triangles of its six tetrahedra,
//   as three vertex indices each, turned to face away from the snow; appended with one atomic per
//   cube.
// surface_finish (one thread): the indexed draw's arguments, clamped to the lists' capacities, and
//   the dispatch of the next pass over the vertices found.
// surface_light_vertices (one thread per vertex): the vertex's normal (the fill's gradient), sun and
//   sky visibility and colour. This is most of a vertex's cost, and done here rather than in
//   surface_make_vertices because there only a few of a node's 7 edges cross and a thread's
//   neighbours mostly have none: on a SIMD machine (lavapipe runs 8 threads per lane group) the
//   lighting would run with most lanes idle, once per edge. Packed one vertex per thread, every lane
//   works. The cube list does the same for the triangles: most cubes of the box are all inside or
//   all outside (docs/rendering.md has the timings).
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

// wgpu's DrawIndexedIndirectArgs, then the indirect dispatch of surface_light_vertices (byte 20).
struct SurfaceDrawArgs {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
    light_groups_x: u32,
    light_groups_y: u32,
    light_groups_z: u32,
}

// What surface_prepare found: the node box's lowest node (i32 per axis) and its size, and the
// counts the later passes take places with.
struct SurfaceGrid {
    origin_x: i32,
    origin_y: i32,
    origin_z: i32,
    nodes_x: u32,
    nodes_y: u32,
    nodes_z: u32,
    vertex_count: atomic<u32>,
    triangle_count: atomic<u32>,
    // Cubes with corners on both sides of the iso value, listed in surface_cubes.
    cube_count: atomic<u32>,
}

// Group 2 of surface_prepare: the occupied box, the grid and the two indirect dispatches (x, y, z
// of surface_vertices, then of surface_triangles).
@group(2) @binding(0) var<storage, read> surface_box: array<u32, 6>;
@group(2) @binding(1) var<storage, read_write> surface_grid_out: SurfaceGrid;
@group(2) @binding(2) var<storage, read_write> surface_dispatch: array<u32, 6>;
// The mixed-cube list (binding 10 of the other passes), only for its length.
@group(2) @binding(11) var<storage, read> surface_cubes_in: array<u32>;
// Group 2 of the other compute passes.
@group(2) @binding(3) var<storage, read> surface_sums: array<u32>;
@group(2) @binding(4) var<storage, read_write> surface_grid: SurfaceGrid;
// The vertex of each crossing edge: 7 per node of the node box.
@group(2) @binding(5) var<storage, read_write> surface_edges: array<u32>;
@group(2) @binding(6) var<storage, read_write> surface_vertices_out: array<SurfaceVertex>;
// Three vertex indices per triangle.
@group(2) @binding(7) var<storage, read_write> surface_indices: array<u32>;
// The cubes surface_make_triangles visits: the node-box index of each mixed cube's lowest corner.
@group(2) @binding(10) var<storage, read_write> surface_cubes: array<u32>;
@group(2) @binding(8) var<storage, read_write> surface_draw_args: SurfaceDrawArgs;
// Group 2 of the draw.
@group(2) @binding(9) var<storage, read> surface_vertices: array<SurfaceVertex>;

// Workgroups for `threads` threads, as x × y within the per-dimension limit.
fn dispatch_for(threads: u32) -> vec2<u32> {
    let groups = (threads + SURFACE_WORKGROUP - 1u) / SURFACE_WORKGROUP;
    let x = min(groups, 65535u);
    return vec2<u32>(x, select(0u, (groups + x - 1u) / max(x, 1u), groups > 0u));
}

@compute @workgroup_size(1)
fn surface_prepare() {
    atomicStore(&surface_grid_out.vertex_count, 0u);
    atomicStore(&surface_grid_out.triangle_count, 0u);
    atomicStore(&surface_grid_out.cube_count, 0u);
    var nodes = vec3<u32>(0u);
    let lo = vec3<i32>(i32(surface_box[0]), i32(surface_box[1]), i32(surface_box[2]));
    let hi = vec3<i32>(i32(surface_box[3]), i32(surface_box[4]), i32(surface_box[5]));
    if (frame.volume_valid != 0u && all(lo <= hi)) {
        // Every node with fill, and one empty node beyond on each side, where the surface closes.
        nodes = vec3<u32>(hi - lo + 3);
    }
    surface_grid_out.origin_x = lo.x - 1;
    surface_grid_out.origin_y = lo.y - 1;
    surface_grid_out.origin_z = lo.z - 1;
    surface_grid_out.nodes_x = nodes.x;
    surface_grid_out.nodes_y = nodes.y;
    surface_grid_out.nodes_z = nodes.z;
    let node_groups = dispatch_for(nodes.x * nodes.y * nodes.z);
    // surface_count_cubes writes the triangles' dispatch once the mixed cubes are counted.
    surface_dispatch = array<u32, 6>(node_groups.x, node_groups.y, 1u, 0u, 0u, 1u);
}

// One thread, between surface_make_vertices and surface_make_triangles: the triangles' dispatch,
// one thread per mixed cube.
@compute @workgroup_size(1)
fn surface_count_cubes() {
    let cube_groups = dispatch_for(min(atomicLoad(&surface_grid_out.cube_count), arrayLength(&surface_cubes_in)));
    surface_dispatch[3] = cube_groups.x;
    surface_dispatch[4] = cube_groups.y;
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

// Where the fill crosses the iso value on the edge from centre a to centre b (fa and fb on either
// side of it): the fraction of the way from a, kept SURFACE_EDGE_MARGIN from either end.
fn crossing_t(fa: f32, fb: f32) -> f32 {
    return clamp((SURFACE_ISO - fa) / (fb - fa), SURFACE_EDGE_MARGIN, 1.0 - SURFACE_EDGE_MARGIN);
}

// The crossing's position in world space on the edge from centre a to centre b.
fn crossing_position(a: vec3<i32>, b: vec3<i32>, t: f32) -> vec3<f32> {
    let pa = vec3<f32>(a) + 0.5;
    let pb = vec3<f32>(b) + 0.5;
    return frame.domain_min + (pa + (pb - pa) * t) * frame.volume_voxel;
}

// The rest of the crossing vertex at `position` on the edge from centre a to centre b: the outward
// normal (against the fill's gradient), its light and colour.
fn light_crossing(v: ptr<function, SurfaceVertex>, a: vec3<i32>, b: vec3<i32>, t: f32) {
    let g = mix(surface_gradient(a), surface_gradient(b), t);
    (*v).normal = -g / max(length(g), 1.0e-20);
    let position = (*v).position;
    let normal = (*v).normal;
    // The sun is looked up just outside the surface, so the voxel it bounds does not shadow it.
    let outside = position + normal * (0.5 * frame.volume_voxel);
    let light = vec2<f32>(sun_visibility(outside + frame.sun_direction * (0.25 * frame.volume_voxel)), sky_visibility(position, normal));
    (*v).light = pack2x16unorm(light);
    var albedo = SNOW_ALBEDO;
    if (frame.color_field != COLOR_SNOW) {
        // The colour field half a voxel inside, where the fill outweighs the empty voxels around.
        albedo = field_color(field_value_at(position - normal * (0.5 * frame.volume_voxel)));
    }
    (*v).albedo = pack4x8unorm(vec4<f32>(albedo, 1.0));
}

fn node_origin() -> vec3<i32> {
    return vec3<i32>(surface_grid.origin_x, surface_grid.origin_y, surface_grid.origin_z);
}

fn node_count() -> vec3<u32> {
    return vec3<u32>(surface_grid.nodes_x, surface_grid.nodes_y, surface_grid.nodes_z);
}

// Index of node n (inside the node box) in the box, x fastest.
fn node_index(n: vec3<i32>) -> u32 {
    let local = vec3<u32>(n - node_origin());
    let size = node_count();
    return local.x + size.x * (local.y + size.y * local.z);
}

// The node at `index` in the box (node_index's inverse).
fn box_node(index: u32) -> vec3<i32> {
    let size = node_count();
    return node_origin() + vec3<i32>(vec3<u32>(index % size.x, (index / size.x) % size.y, index / (size.x * size.y)));
}

// The flat thread index of a 1D dispatch spilled into y.
fn thread_index(workgroup: vec3<u32>, local: u32, workgroups: vec3<u32>) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * SURFACE_WORKGROUP + local;
}

@compute @workgroup_size(SURFACE_WORKGROUP)
fn surface_make_vertices(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = thread_index(workgroup, local, workgroups);
    let size = node_count();
    if (index >= size.x * size.y * size.z) {
        return;
    }
    let n = box_node(index);
    let fn_ = surface_fill(n);
    let inside = fn_ >= SURFACE_ISO;
    let top = node_origin() + vec3<i32>(size) - 1;
    let capacity = arrayLength(&surface_vertices_out);
    // The cube whose lowest corner is n: its corners all in the box, and how many differ from n.
    let cube = all(n < top);
    var differ = 0u;
    for (var o = 1u; o < 8u; o++) {
        let m = n + corner_offset(o);
        if (any(m > top)) {
            continue;
        }
        let fm = surface_fill(m);
        if ((fm >= SURFACE_ISO) == inside) {
            continue;
        }
        differ += 1u;
        let slot = atomicAdd(&surface_grid.vertex_count, 1u);
        if (slot < capacity) {
            // surface_light_vertices fills in the rest; until then `light` names the edge.
            var v: SurfaceVertex;
            v.position = crossing_position(n, m, crossing_t(fn_, fm));
            v.light = 8u * index + o;
            surface_vertices_out[slot] = v;
        }
        surface_edges[7u * index + o - 1u] = slot;
    }
    if (cube && differ > 0u) {
        let place = atomicAdd(&surface_grid.cube_count, 1u);
        if (place < arrayLength(&surface_cubes)) {
            surface_cubes[place] = index;
        }
    }
}


// The vertex of the crossing edge between cube corners a and b (a's bits a subset of b's).
fn edge_vertex(base: vec3<i32>, a: u32, b: u32) -> u32 {
    return surface_edges[7u * node_index(base + corner_offset(a)) + (a ^ b) - 1u];
}

// Corner k (0..3) of Kuhn tetrahedron t (0..5) of a cube: 0, then one axis, then two, then 7 (all
// three), for each order of the axes. Each corner's bits are a subset of the next one's.
fn tet_corner(t: u32, k: u32) -> u32 {
    if (k == 0u) {
        return 0u;
    }
    if (k == 3u) {
        return 7u;
    }
    // The second corners are 1, 1, 2, 2, 4, 4 and the thirds 3, 5, 3, 6, 5, 6.
    let second = 1u << (t / 2u);
    if (k == 1u) {
        return second;
    }
    let others = 7u & ~second;
    // Of the two axes left, the lower for even t, the higher for odd t.
    return second | (1u << select(firstTrailingBit(others), firstLeadingBit(others), (t & 1u) == 1u));
}

// Which of tetrahedron t's corners are inside (bit k for corner k), from the cube's inside corners.
fn tet_inside(t: u32, cube_inside: u32) -> u32 {
    var mask = 0u;
    for (var k = 0u; k < 4u; k++) {
        mask |= ((cube_inside >> tet_corner(t, k)) & 1u) << k;
    }
    return mask;
}

// Triangles tetrahedron t makes: 0 when its corners are all on one side, 2 for a quad (two in,
// two out), else 1.
fn tet_triangles(mask: u32) -> u32 {
    if (mask == 0u || mask == 15u) {
        return 0u;
    }
    return select(1u, 2u, countOneBits(mask) == 2u);
}

// The vertex on the edge between corners i and j (0..3) of tetrahedron t of the cube at `base`.
fn tet_edge_vertex(base: vec3<i32>, t: u32, i: u32, j: u32) -> u32 {
    return edge_vertex(base, tet_corner(t, min(i, j)), tet_corner(t, max(i, j)));
}

// Writes triangle (p, q, r) at place `slot` of the list, turned so its winding faces away from the
// snow (`outward`). A vertex past the list's capacity was not written: the triangle is left
// degenerate (it draws nothing) rather than pointing at garbage.
fn write_triangle(slot: u32, p: u32, q: u32, r: u32, outward: vec3<f32>) {
    if (slot >= arrayLength(&surface_indices) / 3u) {
        return;
    }
    var t = vec3<u32>(0u);
    if (max(max(p, q), r) < arrayLength(&surface_vertices_out)) {
        let a = surface_vertices_out[p].position;
        let n = cross(surface_vertices_out[q].position - a, surface_vertices_out[r].position - a);
        t = select(vec3<u32>(p, r, q), vec3<u32>(p, q, r), dot(n, outward) >= 0.0);
    }
    surface_indices[3u * slot] = t.x;
    surface_indices[3u * slot + 1u] = t.y;
    surface_indices[3u * slot + 2u] = t.z;
}

// Written with bit masks rather than per-thread arrays indexed by variables: a SIMD driver such as
// lavapipe keeps such arrays in memory, one lane at a time.
@compute @workgroup_size(SURFACE_WORKGROUP)
fn surface_make_triangles(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let k = thread_index(workgroup, local, workgroups);
    if (k >= min(atomicLoad(&surface_grid.cube_count), arrayLength(&surface_cubes))) {
        return;
    }
    let base = box_node(surface_cubes[k]);
    var cube_inside = 0u;
    for (var c = 0u; c < 8u; c++) {
        cube_inside |= select(0u, 1u, surface_fill(base + corner_offset(c)) >= SURFACE_ISO) << c;
    }
    // Reserve the cube's triangles at once, then write them in tetrahedron order.
    var total = 0u;
    for (var t = 0u; t < 6u; t++) {
        total += tet_triangles(tet_inside(t, cube_inside));
    }
    var slot = atomicAdd(&surface_grid.triangle_count, total);
    for (var t = 0u; t < 6u; t++) {
        let mask = tet_inside(t, cube_inside);
        let count = tet_triangles(mask);
        if (count == 0u) {
            continue;
        }
        let n_in = countOneBits(mask);
        // From the inside corners' centre to the outside corners' centre.
        var centre_in = vec3<f32>(0.0);
        var centre_out = vec3<f32>(0.0);
        for (var c = 0u; c < 4u; c++) {
            let at = vec3<f32>(corner_offset(tet_corner(t, c)));
            let inside = ((mask >> c) & 1u) == 1u;
            centre_in += select(vec3<f32>(0.0), at / f32(n_in), inside);
            centre_out += select(at / f32(4u - n_in), vec3<f32>(0.0), inside);
        }
        let outward = centre_out - centre_in;
        let outs = 15u & ~mask;
        if (count == 2u) {
            // A quad: the cycle in0–out0, in0–out1, in1–out1, in1–out0 (each pair in increasing order).
            let i0 = firstTrailingBit(mask);
            let i1 = firstLeadingBit(mask);
            let o0 = firstTrailingBit(outs);
            let o1 = firstLeadingBit(outs);
            let p0 = tet_edge_vertex(base, t, i0, o0);
            let p1 = tet_edge_vertex(base, t, i0, o1);
            let p2 = tet_edge_vertex(base, t, i1, o1);
            let p3 = tet_edge_vertex(base, t, i1, o0);
            write_triangle(slot, p0, p1, p2, outward);
            write_triangle(slot + 1u, p0, p2, p3, outward);
        } else {
            // One corner alone on its side: a triangle on its three edges, the others in order.
            let lone = firstTrailingBit(select(outs, mask, n_in == 1u));
            let rest = 15u & ~(1u << lone);
            let a = firstTrailingBit(rest);
            let b = firstTrailingBit(rest & (rest - 1u));
            let c = firstLeadingBit(rest);
            write_triangle(
                slot,
                tet_edge_vertex(base, t, lone, a),
                tet_edge_vertex(base, t, lone, b),
                tet_edge_vertex(base, t, lone, c),
                outward,
            );
        }
        slot += count;
    }
}

@compute @workgroup_size(1)
fn surface_finish() {
    let capacity = arrayLength(&surface_indices) / 3u;
    surface_draw_args.index_count = 3u * min(atomicLoad(&surface_grid.triangle_count), capacity);
    surface_draw_args.instance_count = 1u;
    surface_draw_args.first_index = 0u;
    surface_draw_args.base_vertex = 0;
    surface_draw_args.first_instance = 0u;
    let vertices = min(atomicLoad(&surface_grid.vertex_count), arrayLength(&surface_vertices_out));
    let groups = dispatch_for(vertices);
    surface_draw_args.light_groups_x = groups.x;
    surface_draw_args.light_groups_y = groups.y;
    surface_draw_args.light_groups_z = 1u;
}

@compute @workgroup_size(SURFACE_WORKGROUP)
fn surface_light_vertices(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let slot = thread_index(workgroup, local, workgroups);
    if (slot >= min(atomicLoad(&surface_grid.vertex_count), arrayLength(&surface_vertices_out))) {
        return;
    }
    var v = surface_vertices_out[slot];
    // The node and edge surface_make_vertices found the vertex on, as it does.
    let n = box_node(v.light / 8u);
    let m = n + corner_offset(v.light % 8u);
    light_crossing(&v, n, m, crossing_t(surface_fill(n), surface_fill(m)));
    surface_vertices_out[slot] = v;
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
    let v = surface_vertices[vertex];
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
