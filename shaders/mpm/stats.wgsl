// stats: reductions the host needs for the stable time step and for reporting: the largest
// particle speed and hardening factor, and the range of Jp.
// Reads: params, particles. Writes: status (the host resets it before this pass).
//
// Each workgroup first reduces its particles in workgroup memory and then makes one global atomic
// per quantity: with one atomic per particle, every thread of the dispatch met on the same four
// words (on lavapipe, a cache line bouncing between the cores once per particle).

// The workgroup's partial results, one per thread: max speed bits, max hardening bits, min Jp
// bits, max Jp bits. Sized for the largest WORKGROUP_SIZE the host uses (params::WORKGROUP_SIZE).
var<workgroup> partial: array<vec4<u32>, 256>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn stats(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    // Non-negative f32s order like their bit patterns read as u32, so max/min on the bits give the
    // float maximum and minimum. A thread past the end holds the identities (0 for max, all ones
    // for min).
    var mine = vec4<u32>(0u, 0u, 0xffffffffu, 0u);
    if (index < params.particle_count) {
        let p = load_particle(index);
        let jp = bitcast<u32>(p.plastic_jacobian);
        mine = vec4<u32>(bitcast<u32>(length(p.velocity)), bitcast<u32>(hardening_factor(p.plastic_jacobian)), jp, jp);
    }
    partial[local] = mine;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if (local < stride && local + stride < WORKGROUP_SIZE) {
            let a = partial[local];
            let b = partial[local + stride];
            partial[local] = vec4<u32>(max(a.xy, b.xy), min(a.z, b.z), max(a.w, b.w));
        }
        workgroupBarrier();
    }
    if (local == 0u) {
        let total = partial[0];
        atomicMax(&status.max_speed_bits, total.x);
        atomicMax(&status.max_hardening_bits, total.y);
        atomicMin(&status.min_plastic_jacobian_bits, total.z);
        atomicMax(&status.max_plastic_jacobian_bits, total.w);
    }
}
