// pb_newton_predict: the Newton–PCG step's prediction, scattered: each particle's mass and APIC
// momentum m·(ṽ + C̃ r) of its predicted motion (pb_begin's), as the constraint iterations'
// first scatter but without a constraint step. CPU twin: newton::step (transfer::p2g).
// Reads: params, clock, particles. Writes: grid_fixed, the status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_predict(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = load_for_scatter(index);
    grid_scatter(p, p.mass * p.affine);
}
