// pb_newton_update: x̃ += α p, r −= α A p. CPU twin: newton::step.
// Reads: params, pb_solve. Writes: pb_solve.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_update(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let alpha = pb_solve[0].z;
    let x = pb_solve[newton_field(FIELD_X, node)];
    pb_solve[newton_field(FIELD_X, node)] = vec4<f32>(x.xyz + alpha * pb_solve[newton_field(FIELD_P, node)].xyz, x.w);
    let r = pb_solve[newton_field(FIELD_R, node)].xyz - alpha * pb_solve[newton_field(FIELD_Z, node)].xyz;
    pb_solve[newton_field(FIELD_R, node)] = vec4<f32>(r, 0.0);
}
