// pb_newton_relinearize: the point of a later Newton step of the same time step, ṽ* + x̃ on the free
// axes (the held ones keep ṽ*), into grid_velocity for pb_newton_force's gather; the solve's stop
// flag cleared for the step's preconditioner (round 5 of pb_newton_reduce sets it again).
// CPU twin: newton.rs, solve.
// Reads: params, pb_solve. Writes: grid_velocity, pb_solve.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_relinearize(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node == 0u) {
        pb_solve[2].x = 0.0;
    }
    if (node >= node_count()) {
        return;
    }
    let t = pb_solve[newton_field(FIELD_TARGET, node)];
    let x = pb_solve[newton_field(FIELD_X, node)];
    grid_velocity[node] = vec4<f32>(t.xyz + newton_mask(x.xyz, x.w), t.w);
}
