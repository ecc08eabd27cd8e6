// pb_newton_direction: the next search direction p = z + β p, stored and put in grid_velocity
// (with the node's mass) for pb_newton_apply's gather. CPU twin: newton::step.
// Reads: params, pb_solve. Writes: pb_solve, grid_velocity.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_direction(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    // The solve met its tolerance in an earlier iteration of this step.
    if (newton_stopped(local)) {
        return;
    }
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let p = pb_solve[newton_field(FIELD_Z, node)].xyz + pb_solve[0].w * pb_solve[newton_field(FIELD_P, node)].xyz;
    pb_solve[newton_field(FIELD_P, node)] = vec4<f32>(p, 0.0);
    grid_velocity[node] = vec4<f32>(p, pb_solve[newton_field(FIELD_TARGET, node)].w);
}
