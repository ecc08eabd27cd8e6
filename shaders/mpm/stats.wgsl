// stats: reductions the host needs for the stable time step and for reporting: the largest
// particle speed and hardening factor, and the range of Jp.
// Reads: params, particles. Writes: status (the host resets it before this pass).

@compute @workgroup_size(WORKGROUP_SIZE)
fn stats(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = particles[index];
    // Non-negative f32s order like their bit patterns read as u32, so atomicMax/Min on the bits
    // give the float maximum and minimum.
    atomicMax(&status.max_speed_bits, bitcast<u32>(length(p.velocity)));
    atomicMax(&status.max_hardening_bits, bitcast<u32>(hardening_factor(p.plastic_jacobian)));
    atomicMin(&status.min_plastic_jacobian_bits, bitcast<u32>(p.plastic_jacobian));
    atomicMax(&status.max_plastic_jacobian_bits, bitcast<u32>(p.plastic_jacobian));
}
