// clock_stats: the largest particle speed and squared P-wave speed (λ₀ + 2μ₀) hc / ρ₀ (each
// particle's material, hardened by its Jp) of the state a substep is about to step, for
// clock_advance's stable dt. The first pass of every substep, over every page.
// Reads: params, particles. Writes: clock.max_speed_bits, clock.max_wave_speed_squared_bits
// (atomic max; clock_advance sets them back to zero).
//
// As in stats.wgsl, each workgroup reduces with reduce.wgsl's reduction (its z and w unused here)
// and adds one atomic per quantity.

@compute @workgroup_size(WORKGROUP_SIZE)
fn clock_stats(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    // Max speed bits and max squared wave speed bits (a NaN's bits order above +∞, which clock_advance
    // treats as the bounds the solver enforces); z and w hold the identities of the shared
    // reduction and are ignored.
    var mine = vec4<u32>(0u, 0u, 0xffffffffu, 0u);
    if (index < params.particle_count) {
        let velocity = particle_velocity[index].xyz;
        let plastic = particle_plastic[index];
        let m = material_of(plastic.material);
        mine.x = bitcast<u32>(length(velocity));
        mine.y = bitcast<u32>(m.wave_speed_squared * hardening_factor(m, plastic.plastic_jacobian));
    }
    let total = reduce_max_max_min_max(local, mine);
    if (local == 0u) {
        atomicMax(&clock.max_speed_bits, total.x);
        atomicMax(&clock.max_wave_speed_squared_bits, total.y);
    }
}
