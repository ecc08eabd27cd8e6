// pb_newton_restrict: level l (the immediate, 1 .. NEWTON_LEVELS − 1) of the multilevel
// preconditioner from level l − 1: each level node sums the residual and the mass of the 27 nodes
// below it with the weights of linear interpolation (1 for the node under it, 1/2 for its
// neighbours, per axis), so that level l holds P_lᵀ r and P_lᵀ m. CPU twin: newton.rs, Level and
// precondition (which restricts from the grid in one step: the same weights, composed).
// Reads: params, pb_solve. Writes: pb_solve.

var<immediate> newton_level: u32;

// Level l's residual (xyz) and mass (w) at its node i: the grid's fields for level 0.
fn restricted(l: u32, i: u32) -> vec4<f32> {
    if (l == 0u) {
        return vec4<f32>(pb_solve[newton_field(FIELD_R, i)].xyz, pb_solve[newton_field(FIELD_TARGET, i)].w);
    }
    return pb_solve[level_base(l) + 2u * i];
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
    let index = flat_index(workgroup, local, workgroups);
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
