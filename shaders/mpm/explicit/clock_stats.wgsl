// clock_stats: the largest particle speed and hardening factor of the state a substep is about to
// step, for clock_advance's stable dt. The first pass of every substep, over every page.
// Reads: params, particles. Writes: clock.max_speed_bits, clock.max_hardening_bits (atomic max;
// clock_advance sets them back to zero).
//
// As in stats.wgsl, each workgroup reduces in workgroup memory and adds one atomic per quantity.

// Max speed bits and max hardening bits, one pair per thread (WORKGROUP_SIZE ≤ 256).
var<workgroup> clock_partial: array<vec2<u32>, 256>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn clock_stats(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    // Non-negative f32s order like their bit patterns read as u32 (a NaN's bits order above +∞,
    // which clock_advance treats as the bounds the solver enforces).
    var mine = vec2<u32>(0u, 0u);
    if (index < params.particle_count) {
        let velocity = particle_velocity[index].xyz;
        let jp = particle_plastic[index].plastic_jacobian;
        mine = vec2<u32>(bitcast<u32>(length(velocity)), bitcast<u32>(hardening_factor(jp)));
    }
    clock_partial[local] = mine;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if (local < stride && local + stride < WORKGROUP_SIZE) {
            clock_partial[local] = max(clock_partial[local], clock_partial[local + stride]);
        }
        workgroupBarrier();
    }
    if (local == 0u) {
        atomicMax(&clock.max_speed_bits, clock_partial[0].x);
        atomicMax(&clock.max_hardening_bits, clock_partial[0].y);
    }
}
