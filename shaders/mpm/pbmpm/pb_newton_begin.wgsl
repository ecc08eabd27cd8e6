// pb_newton_begin: each node's prediction ṽ* and mass from the scatter, with the grid's conditions
// applied; which axes the conditions hold (a nudge of 1 m/s either way along the axis changed by
// them); x̃, r, p, z zeroed; grid_velocity = ṽ* for the force pass's gather; the sums zeroed.
// CPU twin: newton::step (grid::grid_update, the mask).
// Reads: params, clock, grid_fixed, colliders. Writes: pb_solve, grid_velocity, grid_fixed.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_begin(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let target_node = constrained_node(node, node, vec3<f32>(0.0));
    for (var w = 0u; w < GRID_FIXED_WORDS; w++) {
        atomicStore(&grid_fixed[GRID_FIXED_WORDS * node + w], 0);
    }
    var held = 0u;
    if (target_node.w > 0.0) {
        for (var axis = 0u; axis < 3u; axis++) {
            for (var side = 0u; side < 2u; side++) {
                var nudged = target_node.xyz;
                nudged[axis] += select(-1.0, 1.0, side == 1u);
                let moved = node_conditions(nudged, node);
                if (abs(moved[axis] - nudged[axis]) > 1.0e-5 * (1.0 + abs(nudged[axis]))) {
                    held |= 1u << axis;
                }
            }
        }
    }
    pb_solve[newton_field(FIELD_TARGET, node)] = target_node;
    pb_solve[newton_field(FIELD_X, node)] = vec4<f32>(0.0, 0.0, 0.0, f32(held));
    pb_solve[newton_field(FIELD_R, node)] = vec4<f32>(0.0);
    pb_solve[newton_field(FIELD_P, node)] = vec4<f32>(0.0);
    pb_solve[newton_field(FIELD_Z, node)] = vec4<f32>(0.0);
    grid_velocity[node] = target_node;
}
