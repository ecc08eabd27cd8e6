// stats: reductions the host needs for the stable time step and for reporting: the largest
// particle speed and hardening factor, and the range of Jp.
// Reads: params, particles. Writes: status (the host resets it before this pass).
//
// Each workgroup reduces its particles with reduce.wgsl's reduction, then makes one global atomic
// per quantity.

@compute @workgroup_size(WORKGROUP_SIZE)
fn stats(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    // Max speed bits, max hardening bits, min Jp bits, max Jp bits; a thread past the end holds the
    // identities.
    var mine = vec4<u32>(0u, 0u, 0xffffffffu, 0u);
    if (index < params.particle_count) {
        let p = load_particle(index);
        let jp = bitcast<u32>(p.plastic_jacobian);
        mine = vec4<u32>(bitcast<u32>(length(p.velocity)), bitcast<u32>(hardening_factor(material_of(p.material), p.plastic_jacobian)), jp, jp);
    }
    let total = reduce_max_max_min_max(local, mine);
    if (local == 0u) {
        atomicMax(&status.max_speed_bits, total.x);
        atomicMax(&status.max_hardening_bits, total.y);
        atomicMin(&status.min_plastic_jacobian_bits, total.z);
        atomicMax(&status.max_plastic_jacobian_bits, total.w);
    }
}
