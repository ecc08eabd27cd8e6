// pb_newton_apply: the stiffness part of A p. Each particle gathers the search direction p from
// grid_velocity (pb_newton_direction put it there) as C̃, takes δD = dt C̃ and the small-strain
// isotropic stress δτ = 2μ sym(δD) + λ tr(δD) I at its hardened moduli (sand's secant ones,
// newton_operator_stress), and adds dt V⁰ δτ ∇w to its
// nodes' force sums. CPU twin: newton.rs, System::apply.
// Reads: params, clock, particles, grid_velocity, pb_solve, reorder_scratch. Writes: grid_fixed, the status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_apply(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    // The solve met its tolerance in an earlier iteration of this step.
    if (newton_stopped(local)) {
        return;
    }
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = load_for_scatter(index);
    let dt = substep_dt();
    let dd = dt * gather(p.position).affine;
    let stress = newton_operator_stress(material_of(p.material), dd, p.plastic_jacobian, index);
    scatter_stress(p.position, (dt * p.volume) * stress);
}
