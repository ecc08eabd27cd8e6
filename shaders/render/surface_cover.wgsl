// The first pass of the surface stage (surface.wgsl runs the rest), in a file of its own:
// surface_cover (one thread per particle): the field the surface is drawn
//   from starts as a copy of the fill sums; a particle where that field, interpolated as the
//   tetrahedra below interpolate it, is under COVER_FILL raises the four corners of its
//   tetrahedron (atomicMax) by the shortfall, so the field reaches COVER_FILL there. Every particle then lies
//   inside the surface: snow spread thinner than the voxel (a splash, a one-particle sheet) whose
//   fill stays under half is drawn as a thin shell around it instead of vanishing, while snow the
//   fill already closes is left as it was.

// Threads per workgroup. Mirrors SURFACE_WORKGROUP in src/render/surface.rs.
const SURFACE_WORKGROUP: u32 = 64u;
// The field surface_cover makes every particle reach: a tenth above the iso value, so that a
// particle is inside the surface by a margin (the crossings' SURFACE_EDGE_MARGIN moves the
// surface by at most 0.02 voxel) rather than on it.
const COVER_FILL: f32 = 0.55;

// Group 2 of surface_cover: the splat's fill sums and the field the other passes read as
// surface_sums (binding 3 there), a copy of the sums on entry.
@group(2) @binding(12) var<storage, read_write> cover_field: array<atomic<u32>>;
@group(2) @binding(13) var<storage, read> cover_sums: array<u32>;
// The flat thread index of a 1D dispatch spilled into y.
fn thread_index(workgroup: vec3<u32>, local: u32, workgroups: vec3<u32>) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * SURFACE_WORKGROUP + local;
}

// The splat's fill at voxel centre v (inside the volume).
fn cover_fill(v: vec3<u32>) -> f32 {
    let dims = frame.volume_dims;
    return f32(cover_sums[v.x + dims.x * (v.y + dims.y * v.z)]) / VOLUME_FIXED_SCALE;
}

@compute @workgroup_size(SURFACE_WORKGROUP)
fn surface_cover(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = thread_index(workgroup, local, workgroups);
    if (index >= frame.particle_count) {
        return;
    }
    let position = particle_position[index].xyz;
    if (!is_finite_vec3(position)) {
        return;
    }
    // The particle among the voxel centres, clamped into the grid as volume_splat clamps it.
    let dims = frame.volume_dims;
    let g = clamp((position - frame.domain_min) / frame.volume_voxel - 0.5, vec3<f32>(0.0), vec3<f32>(dims - 1u));
    let base = min(vec3<u32>(g), dims - 1u);
    let f = g - vec3<f32>(base);
    // Kuhn's tetrahedron holding it adds the axes in decreasing order of f: corners 0, a, a + b,
    // a + b + c, with barycentric weights 1 − f_a, f_a − f_b, f_b − f_c, f_c.
    var a = 0u;
    if (f.y > f[a]) {
        a = 1u;
    }
    if (f.z > f[a]) {
        a = 2u;
    }
    let rest = vec2<u32>((a + 1u) % 3u, (a + 2u) % 3u);
    let b = select(rest.y, rest.x, f[rest.x] >= f[rest.y]);
    let c = 3u - a - b;
    let ea = vec3<u32>(vec3<u32>(0u, 1u, 2u) == vec3<u32>(a));
    let eb = vec3<u32>(vec3<u32>(0u, 1u, 2u) == vec3<u32>(b));
    // A corner past the last centre has weight 0 (f is 0 along that axis there): clamped.
    let top = dims - 1u;
    let c0 = base;
    let c1 = min(base + ea, top);
    let c2 = min(base + ea + eb, top);
    let c3 = min(base + vec3<u32>(1u), top);
    let w = vec4<f32>(1.0 - f[a], f[a] - f[b], f[b] - f[c], f[c]);
    let value = w.x * cover_fill(c0) + w.y * cover_fill(c1) + w.z * cover_fill(c2) + w.w * cover_fill(c3);
    if (value >= COVER_FILL) {
        return;
    }
    // Every corner of the tetrahedron raised by the shortfall lifts the interpolated field by as
    // much (the weights sum to 1), and others' raises only add to it. Raising the nearest corner
    // alone by the shortfall over its weight (up to four times as much) would be fewer atomics,
    // but pushed the surface of packed snow out by up to 0.64 cells where its boundary particles
    // fall a little short; spread evenly, the surface moves by about the shortfall in voxels.
    let short = COVER_FILL - value;
    cover_raise(c0, short);
    cover_raise(c1, short);
    cover_raise(c2, short);
    cover_raise(c3, short);
}

// Raises the field at voxel centre v to at least its splatted fill plus `by`.
fn cover_raise(v: vec3<u32>, by: f32) {
    let dims = frame.volume_dims;
    let raised = (cover_fill(v) + by) * VOLUME_FIXED_SCALE + 1.0;
    atomicMax(&cover_field[v.x + dims.x * (v.y + dims.y * v.z)], u32(raised));
}
