// pb_newton_restrict: level l (the immediate, 1 .. NEWTON_LEVELS − 1) of the multilevel
// preconditioner from level l − 1: each level node sums the residual and the mass of the 27 nodes
// below it with the weights of linear interpolation (1 for the node under it, 1/2 for its
// neighbours, per axis), so that level l holds P_lᵀ r and P_lᵀ m. CPU twin: newton.rs, Level and
// precondition (which restricts from the grid in one step: the same weights, composed).
// With NEWTON_BLOCKS the host runs level 1 over the touched blocks (touched_level_one); the
// coarser levels always run over all their nodes.
// Reads: params, pb_solve, bins. Writes: pb_solve.

var<immediate> newton_level: u32;

// Level l's residual (xyz) and mass (w) at its node i: the grid's fields for level 0.
fn restricted(l: u32, i: u32) -> vec4<f32> {
    if (l == 0u) {
        return vec4<f32>(pb_solve[newton_field(FIELD_R, i)].xyz, pb_solve[newton_field(FIELD_TARGET, i)].w);
    }
    return pb_solve[level_base(l) + 2u * i];
}

// With NEWTON_BLOCKS (level 1 only): the level-1 node of this thread, one of the 3³ nodes 2b .. 2b + 2
// whose stencils reach touched block b (NEWTON_NO_NODE for threads past them). Neighbouring blocks
// share some of them and compute the same sums.
fn touched_level_one(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> u32 {
    let slot = workgroup_slot(workgroup, workgroups);
    if (local >= 27u || slot >= atomicLoad(&bin_header.touched_count)) {
        return NEWTON_NO_NODE;
    }
    let block = block_lists[block_count() + slot];
    let c = 2u * block_coords(block) + vec3<u32>(local % 3u, (local / 3u) % 3u, local / 9u);
    let d = level_dims(1u);
    if (any(c >= d)) {
        return NEWTON_NO_NODE;
    }
    return c.x + d.x * (c.y + d.y * c.z);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_restrict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    // The solve met its tolerance in an earlier iteration of this step.
    if (newton_stopped(local)) {
        return;
    }
    let l = newton_level;
    var index = flat_index(workgroup, local, workgroups);
    if (NEWTON_BLOCKS) {
        index = touched_level_one(workgroup, workgroups, local);
    }
    if (index >= level_nodes(l)) {
        return;
    }
    let d = level_dims(l);
    let c = vec3<i32>(vec3<u32>(index % d.x, (index / d.x) % d.y, index / (d.x * d.y)));
    let below = vec3<i32>(level_dims(l - 1u));
    var sum = vec4<f32>(0.0);
    for (var z = -1; z <= 1; z++) {
        for (var y = -1; y <= 1; y++) {
            for (var x = -1; x <= 1; x++) {
                let o = vec3<i32>(x, y, z);
                let n = 2 * c + o;
                if (any(n < vec3<i32>(0)) || any(n >= below)) {
                    continue;
                }
                let w = select(vec3<f32>(0.5), vec3<f32>(1.0), o == vec3<i32>(0));
                let i = u32(n.x) + u32(below.x) * (u32(n.y) + u32(below.y) * u32(n.z));
                sum += (w.x * w.y * w.z) * restricted(l - 1u, i);
            }
        }
    }
    pb_solve[level_base(l) + 2u * index] = sum;
}
