// pb_newton_residual: the residual at the Newton step's point ṽ* + x̃, r̃ = dt·f − M x̃ (the force
// pass's sums; at the prediction, where x̃ = 0, dt·f alone), with the held axes zeroed and their
// force kept in x̃'s held components; the sums zeroed; rᵀM⁻¹r and the mass added up per workgroup
// (the norm the solve's reported residual is measured in, kept at the prediction by round 3).
// CPU twin: newton.rs, solve.
// Reads: params, grid_fixed, pb_solve. Writes: pb_solve, grid_fixed.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_residual(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    var mine = vec2<f32>(0.0);
    if (node < node_count()) {
        let force = take_forces(node);
        let x = pb_solve[newton_field(FIELD_X, node)];
        let held = x.w;
        let mass = pb_solve[newton_field(FIELD_TARGET, node)].w;
        let moved = newton_mask(x.xyz, held);
        let r = select(vec3<f32>(0.0), newton_mask(force, held) - mass * moved, mass > 0.0);
        pb_solve[newton_field(FIELD_R, node)] = vec4<f32>(r, 0.0);
        // The held axes' force, as a velocity, in x̃'s held components: the solve never moves
        // them (p is zero there), and pb_newton_finish hands it to the grid's conditions so that
        // their friction acts on the normal force the wall carries.
        if (mass > 0.0) {
            pb_solve[newton_field(FIELD_X, node)] = vec4<f32>(moved + (force - newton_mask(force, held)) / mass, held);
            mine = vec2<f32>(dot(r, r) / mass, mass);
        }
    }
    store_partial_sum(workgroup, workgroups, local, mine);
}
