// reduce: the workgroup reduction of the stats passes (stats.wgsl for the host's reports and the
// stable dt, explicit/clock_stats.wgsl for the substep clock), so that both find their maxima the
// same way. Each workgroup reduces its threads' values in workgroup memory; the pass then makes one
// global atomic per quantity from the result, instead of one per particle (with one per particle,
// every thread of the dispatch met on the same few words: on lavapipe, a cache line bouncing
// between the cores once per particle).
//
// The values are f32 bit patterns read as u32. Non-negative f32s order like their bits, so max and
// min on the bits give the float maximum and minimum (a NaN's bits order above +∞).

// One vec4 per thread: two maxima (x, y), a minimum (z) and a maximum (w). Sized for the largest
// WORKGROUP_SIZE the host uses (params::WORKGROUP_SIZE ≤ 256, asserted in src/sim/passes.rs).
var<workgroup> reduce_partial: array<vec4<u32>, 256>;

// The workgroup's reduction of every thread's `mine`: max of x and y, min of z, max of w. A thread
// past the end of the particles passes the identities (0 for a max, 0xffffffff for the min). Call
// from uniform control flow (it has barriers); every thread gets the result.
fn reduce_max_max_min_max(local: u32, mine: vec4<u32>) -> vec4<u32> {
    reduce_partial[local] = mine;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if (local < stride && local + stride < WORKGROUP_SIZE) {
            let a = reduce_partial[local];
            let b = reduce_partial[local + stride];
            reduce_partial[local] = vec4<u32>(max(a.xy, b.xy), min(a.z, b.z), max(a.w, b.w));
        }
        workgroupBarrier();
    }
    return reduce_partial[0];
}
