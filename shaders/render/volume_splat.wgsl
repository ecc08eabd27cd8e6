// The density volume: particles splatted into a voxel grid over the domain, then resolved into
// the texture the draw passes sample (channels in lighting.wgsl).
//
// volume_splat: one thread per particle adds its volume, as a fill fraction of a voxel, to the
//   eight nearest voxel centres with trilinear (tent) weights, in fixed point with u32 atomics.
// volume_resolve: one thread per voxel converts the sum to a float and marches toward the sun and
//   straight up through the sums, accumulating fill × path length for shadows and sky occlusion;
//   occupied voxels also widen the occupied bounding box (the raymarch marches only through it).

override SPLAT_WORKGROUP_SIZE: u32 = 256u;

// Group 1 of volume_splat.
@group(1) @binding(0) var<storage, read> particles: array<Particle>;
@group(1) @binding(1) var<storage, read_write> volume_fixed: array<atomic<u32>>;
// Group 1 of volume_resolve: the same sums, read as plain words (atomic loads are scalarised on
// a software rasteriser, plain loads are not).
@group(1) @binding(2) var volume_out: texture_storage_3d<rgba16float, write>;
@group(1) @binding(3) var<storage, read> volume_sums: array<u32>;
// The occupied voxels' bounding box: min x, y, z then max x, y, z (reset to empty by the host).
@group(1) @binding(4) var<storage, read_write> occupied: array<atomic<u32>, 6>;

// Largest fixed-point contribution of one particle to one voxel: a particle as large as 16 voxels
// (a wrong radius) cannot wrap a sum alone.
const MAX_CONTRIBUTION: f32 = 16.0 * VOLUME_FIXED_SCALE;

fn voxel_index(v: vec3<u32>) -> u32 {
    return v.x + frame.volume_dims.x * (v.y + frame.volume_dims.y * v.z);
}

@compute @workgroup_size(SPLAT_WORKGROUP_SIZE)
fn volume_splat(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = (workgroup.y * workgroups.x + workgroup.x) * SPLAT_WORKGROUP_SIZE + local;
    if (index >= frame.particle_count) {
        return;
    }
    let position = particles[index].position;
    if (!is_finite_vec3(position)) {
        return;
    }
    let dims = frame.volume_dims;
    let voxel = frame.volume_voxel;
    // Position relative to the voxel centres, clamped into the grid: weight that would fall
    // outside folds back onto the boundary voxels, so the total splatted volume is kept.
    let g = clamp((position - frame.domain_min) / voxel - 0.5, vec3<f32>(0.0), vec3<f32>(dims - 1u));
    let base = min(vec3<u32>(g), dims - 1u);
    let f = g - vec3<f32>(base);
    let fill = max(particles[index].volume, 0.0) / (voxel * voxel * voxel) * VOLUME_FIXED_SCALE;
    for (var corner = 0u; corner < 8u; corner++) {
        let offset = vec3<u32>(corner & 1u, (corner >> 1u) & 1u, corner >> 2u);
        let cell = min(base + offset, dims - 1u);
        let w = select(1.0 - f, f, offset == vec3<u32>(1u));
        let amount = min(fill * w.x * w.y * w.z, MAX_CONTRIBUTION);
        if (amount >= 0.5) {
            atomicAdd(&volume_fixed[voxel_index(cell)], u32(amount + 0.5));
        }
    }
}

fn fill_at(v: vec3<u32>) -> f32 {
    return f32(volume_sums[voxel_index(v)]) / VOLUME_FIXED_SCALE;
}

@compute @workgroup_size(8, 8, 4)
fn volume_resolve(@builtin(global_invocation_id) id: vec3<u32>) {
    let dims = frame.volume_dims;
    if (any(id >= dims)) {
        return;
    }
    let fill = fill_at(id);
    // Toward the sun, one voxel per step from the centre, nearest voxel: half of this voxel, then
    // whatever lies on the way out of the box.
    var sun_path = 0.5 * fill;
    let step = frame.sun_direction;
    var p = vec3<f32>(id) + 0.5 + step;
    let limit = dims.x + dims.y + dims.z;
    for (var i = 0u; i < limit; i++) {
        if (any(p < vec3<f32>(0.0)) || any(p >= vec3<f32>(dims))) {
            break;
        }
        sun_path += fill_at(vec3<u32>(p));
        p += step;
    }
    var up_path = 0.5 * fill;
    for (var z = id.z + 1u; z < dims.z; z++) {
        up_path += fill_at(vec3<u32>(id.xy, z));
    }
    textureStore(volume_out, id, vec4<f32>(fill, sun_path, up_path, 0.0));
    if (fill > 0.0) {
        for (var axis = 0u; axis < 3u; axis++) {
            atomicMin(&occupied[axis], id[axis]);
            atomicMax(&occupied[axis + 3u], id[axis]);
        }
    }
}
