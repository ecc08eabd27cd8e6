// pb_iterate: one PB-MPM iteration over the particles in their stored order (the naive path's
// dispatch): each thread runs one particle's iteration (pb_iterate_particle, iteration.wgsl) and
// scatters mass and APIC momentum m·(ṽ + C̃ r) to the grid with global atomics. It gathers from
// the grid once the step's first grid pass has run (clock.pb_gathering).
// Reads: params, clock, particles, grid_velocity, the scratch. Writes: the velocity and affine
// streams, the scratch (the impulse Λ), grid_fixed, the status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_iterate(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = pb_iterate_particle(index, clock.pb_gathering != 0u);
    grid_scatter(p, p.mass * p.affine);
}
