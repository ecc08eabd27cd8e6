// pb_newton_residual: the residual at the prediction, r̃ = dt·f (the force pass's sums; M(ṽ* − ṽ)
// is zero there), with the held axes zeroed; the sums zeroed. CPU twin: newton::step.
// Reads: params, grid_fixed, pb_solve. Writes: pb_solve, grid_fixed.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_residual(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let force = take_forces(node);
    let held = pb_solve[newton_field(FIELD_X, node)].w;
    let mass = pb_solve[newton_field(FIELD_TARGET, node)].w;
    let r = select(vec3<f32>(0.0), newton_mask(force, held), mass > 0.0);
    pb_solve[newton_field(FIELD_R, node)] = vec4<f32>(r, 0.0);
}
