// pb_newton_apply_grid: A p = M p + the stiffness sums pb_newton_apply left, stored in place of z
// (not masked: along the held axes, where p is zero, it is the change dt K p of the force the
// walls hold, which pb_newton_update follows); pᵀAp added up per workgroup; the sums zeroed. CPU
// twin: System::apply.
// Reads: params, grid_fixed, pb_solve. Writes: pb_solve, grid_fixed.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_apply_grid(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    // The solve met its tolerance in an earlier iteration of this step.
    if (newton_stopped(local)) {
        return;
    }
    let node = flat_index(workgroup, local, workgroups);
    var mine = 0.0;
    if (node < node_count()) {
        let stiffness = take_forces(node);
        let mass = pb_solve[newton_field(FIELD_TARGET, node)].w;
        var ap = vec3<f32>(0.0);
        let p = pb_solve[newton_field(FIELD_P, node)].xyz;
        if (mass > 0.0) {
            ap = mass * p + stiffness;
        }
        pb_solve[newton_field(FIELD_Z, node)] = vec4<f32>(ap, 0.0);
        mine = dot(p, ap);
    }
    store_partial_sum(workgroup, workgroups, local, vec2<f32>(mine, 0.0));
}
