// pb_newton_finish: each node's velocity over the step, ṽ* + x̃ with the grid's conditions applied,
// in grid_velocity for the shared g2p that ends the step. CPU twin: newton::step.
// Reads: params, clock, pb_solve, colliders. Writes: grid_velocity.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_finish(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let t = pb_solve[newton_field(FIELD_TARGET, node)];
    var v = vec4<f32>(0.0);
    if (t.w > 0.0) {
        v = vec4<f32>(node_conditions(t.xyz + pb_solve[newton_field(FIELD_X, node)].xyz, node), t.w);
    }
    grid_velocity[node] = v;
}
