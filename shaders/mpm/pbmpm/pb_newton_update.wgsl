// pb_newton_update: x̃ += α p, r −= α A p (A p masked), the held force in x̃'s held components
// −= α (A p)_held / m; rᵀM⁻¹r added up per workgroup (the last iteration's is the residual the
// solve reports). CPU twin: newton::step.
// Reads: params, pb_solve. Writes: pb_solve.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_update(
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
        let alpha = pb_solve[0].z;
        let x = pb_solve[newton_field(FIELD_X, node)];
        let mass = pb_solve[newton_field(FIELD_TARGET, node)].w;
        let ap = pb_solve[newton_field(FIELD_Z, node)].xyz;
        let free = newton_mask(ap, x.w);
        let held = select(vec3<f32>(0.0), (ap - free) / mass, mass > 0.0);
        // p is zero along the held axes, so there x̃ holds the held force alone.
        let moved = alpha * (pb_solve[newton_field(FIELD_P, node)].xyz - held);
        pb_solve[newton_field(FIELD_X, node)] = vec4<f32>(x.xyz + moved, x.w);
        let r = pb_solve[newton_field(FIELD_R, node)].xyz - alpha * free;
        pb_solve[newton_field(FIELD_R, node)] = vec4<f32>(r, 0.0);
        mine = select(0.0, dot(r, r) / mass, mass > 0.0);
    }
    store_partial_sum(workgroup, workgroups, local, vec2<f32>(mine, 0.0));
}
