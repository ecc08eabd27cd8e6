// pb_newton_force: the elastic forces at the Newton step's point, dt·f in momentum units: each
// particle gathers C̃ from grid_velocity (ṽ*, or ṽ* + x̃ from pb_newton_relinearize), takes
// F' = (I + dt C̃) F_E (a yielding kind's returned, its secant scales kept: newton_yielded) and
// its Kirchhoff stress τ (snow_response, iteration.wgsl; a liquid's viscous stress of C̃ added) and
// adds −dt V⁰ τ ∇w to its nodes' force sums.
// CPU twin: newton.rs, forces and yielded.
// Reads: params, clock, particles, grid_velocity. Writes: grid_fixed, reorder_scratch (the
// secant scales), the status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_force(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = load_for_scatter(index);
    let g = gather(p.position);
    let dt = substep_dt();
    let m = material_of(p.material);
    let trial = newton_yielded(m, (IDENTITY3 + dt * g.affine) * p.deformation, p.plastic_jacobian, index);
    // A liquid's viscous stress at the predicted velocity gradient, on the right-hand side only:
    // the operator keeps the elastic moduli (docs/materials.md, "Liquid").
    let tau = snow_response(m, trial, p.plastic_jacobian, p.damage).stress * transpose(trial)
        + viscous_stress(m, g.affine, determinant(trial));
    scatter_stress(p.position, (-dt * p.volume) * tau);
}
