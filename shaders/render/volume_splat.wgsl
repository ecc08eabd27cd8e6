// The density volume: particles splatted into a voxel grid over the domain, then resolved into
// the texture the draw passes sample (channels in lighting.wgsl).
//
// volume_splat: one thread per particle adds its volume, as a fill fraction of a voxel, to the
//   eight nearest voxel centres with trilinear (tent) weights, in fixed point with u32 atomics.
//   The workgroup also reduces its particles' voxel ranges to a box (in workgroup memory, without
//   atomics) and widens the occupied box with it: six global atomics per workgroup.
//   It also adds the fill weighted by the particle's colour-field value (colors.wgsl) to a second
//   sum, so the surface and the volume view show the colour fields.
// volume_resolve: one thread per voxel converts the sums to floats and sums the fill toward the
//   sun and straight up, for shadows and sky occlusion. Only voxels inside the occupied box can
//   hold fill, so each march visits just the part of its ray inside that box: on a software
//   rasteriser marching every voxel's ray through the whole volume was most of the frame.
//   The raymarch also marches only through the occupied box.

// Threads per splat workgroup. A constant, not an override: it sizes the workgroup arrays below
// (src/render/volume_splat.rs mirrors it).
const SPLAT_WORKGROUP_SIZE: u32 = 256u;

// Group 1 of volume_splat.
// The solver's position (xyz) and velocity-and-volume (w) streams (src/sim/particles.rs).
@group(1) @binding(0) var<storage, read> particle_position: array<vec4<f32>>;
@group(1) @binding(6) var<storage, read> particle_velocity: array<vec4<f32>>;
@group(1) @binding(8) var<storage, read> particle_plastic: array<ParticlePlastic>;
@group(1) @binding(1) var<storage, read_write> volume_fixed: array<atomic<u32>>;
// The same sums weighted by each particle's colour-field value in [0, 1] (colors.wgsl).
@group(1) @binding(7) var<storage, read_write> volume_field: array<atomic<u32>>;
// Group 1 of volume_resolve: the same sums, read as plain words (atomic loads are scalarised on
// a software rasteriser, plain loads are not).
@group(1) @binding(2) var volume_out: texture_storage_3d<rgba16float, write>;
@group(1) @binding(3) var<storage, read> volume_sums: array<u32>;
@group(1) @binding(9) var<storage, read> field_sums: array<u32>;
// The occupied voxels' bounding box: min x, y, z then max x, y, z (reset to empty by the host,
// widened by the splat, read by the resolve). It may exceed the voxels actually holding fill by
// the corners a particle adds nothing to; every voxel with fill lies inside it.
@group(1) @binding(4) var<storage, read_write> occupied: array<atomic<u32>, 6>;
@group(1) @binding(5) var<storage, read> occupied_box: array<u32, 6>;

// Per-thread voxel ranges of a splat workgroup, reduced to one box.
var<workgroup> box_lo: array<vec3<u32>, SPLAT_WORKGROUP_SIZE>;
var<workgroup> box_hi: array<vec3<u32>, SPLAT_WORKGROUP_SIZE>;

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
    // No early return: every thread reaches the reduction's barriers. An empty range (lo above hi)
    // stands for a thread with nothing to add.
    var lo = vec3<u32>(0xffffffffu);
    var hi = vec3<u32>(0u);
    if (index < frame.particle_count) {
        let position = particle_position[index].xyz;
        let dims = frame.volume_dims;
        let voxel = frame.volume_voxel;
        let velocity = particle_velocity[index];
        let fill = max(velocity.w, 0.0) / (voxel * voxel * voxel) * VOLUME_FIXED_SCALE;
        let value = field_value(velocity.xyz, particle_plastic[index]);
        if (is_finite_vec3(position) && fill > 0.0) {
            // Position relative to the voxel centres, clamped into the grid: weight that would fall
            // outside folds back onto the boundary voxels, so the total splatted volume is kept.
            let g = clamp((position - frame.domain_min) / voxel - 0.5, vec3<f32>(0.0), vec3<f32>(dims - 1u));
            let base = min(vec3<u32>(g), dims - 1u);
            let f = g - vec3<f32>(base);
            lo = base;
            hi = min(base + 1u, dims - 1u);
            for (var corner = 0u; corner < 8u; corner++) {
                let offset = vec3<u32>(corner & 1u, (corner >> 1u) & 1u, corner >> 2u);
                let cell = min(base + offset, dims - 1u);
                let w = select(1.0 - f, f, offset == vec3<u32>(1u));
                let amount = min(fill * w.x * w.y * w.z, MAX_CONTRIBUTION);
                if (amount >= 0.5) {
                    atomicAdd(&volume_fixed[voxel_index(cell)], u32(amount + 0.5));
                    if (value > 0.0) {
                        atomicAdd(&volume_field[voxel_index(cell)], u32(amount * value + 0.5));
                    }
                }
            }
        }
    }
    box_lo[local] = lo;
    box_hi[local] = hi;
    for (var stride = SPLAT_WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if (local < stride) {
            box_lo[local] = min(box_lo[local], box_lo[local + stride]);
            box_hi[local] = max(box_hi[local], box_hi[local + stride]);
        }
    }
    if (local == 0u && all(box_lo[0] <= box_hi[0])) {
        for (var axis = 0u; axis < 3u; axis++) {
            atomicMin(&occupied[axis], box_lo[0][axis]);
            atomicMax(&occupied[axis + 3u], box_hi[0][axis]);
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
    let box_lo = vec3<u32>(occupied_box[0], occupied_box[1], occupied_box[2]);
    let box_hi = vec3<u32>(occupied_box[3], occupied_box[4], occupied_box[5]);
    let fill = fill_at(id);
    // Toward the sun, one voxel per step from the centre, nearest voxel: half of this voxel, then
    // whatever lies on the way out of the box. Step k lands in voxel floor(c + k·step); only the
    // steps landing in the occupied box [box_lo, box_hi + 1) can add fill, and those form one run
    // of k, found per axis as for a ray against a box. Its ends are rounded outward and each step
    // still checks the box, so no fill is missed or counted twice.
    var sun_path = 0.5 * fill;
    let step = frame.sun_direction;
    let c = vec3<f32>(id) + 0.5;
    let span = ray_box(c, step, vec3<f32>(box_lo), vec3<f32>(box_hi) + 1.0);
    let limit = f32(dims.x + dims.y + dims.z);
    if (span.x <= span.y && span.y >= 1.0) {
        let first = u32(max(floor(span.x), 1.0));
        let last = u32(min(ceil(span.y), limit));
        for (var k = first; k <= last; k++) {
            let p = c + f32(k) * step;
            if (any(p < vec3<f32>(0.0)) || any(p >= vec3<f32>(dims))) {
                break;
            }
            let v = vec3<u32>(p);
            if (all(v >= box_lo) && all(v <= box_hi)) {
                sun_path += fill_at(v);
            }
        }
    }
    var up_path = 0.5 * fill;
    if (all(id.xy >= box_lo.xy) && all(id.xy <= box_hi.xy)) {
        for (var z = max(id.z + 1u, box_lo.z); z <= box_hi.z; z++) {
            up_path += fill_at(vec3<u32>(id.xy, z));
        }
    }
    let field = f32(field_sums[voxel_index(id)]) / VOLUME_FIXED_SCALE;
    textureStore(volume_out, id, vec4<f32>(fill, sun_path, up_path, field));
}
