// vcycle: what the multigrid V-cycle's two modules share (multigrid.wgsl level by level,
// coarse_cycle.wgsl for the smallest levels in one workgroup), put after common.wgsl before each
// (src/sim/pressure/gpu/multigrid.rs): the smoother's and the coarsest solve's constants, and the
// transfers' weights.

// The bit of a cell's side bits (`mg_sides`) that marks an unknown.
const UNKNOWN_BIT: u32 = 8u;
// Sweeps on the coarsest level (COARSEST_SWEEPS in the twin), and the most cells it may have
// (COARSEST_CELLS³): one workgroup sweeps it in workgroup memory.
const COARSEST_SWEEPS: u32 = 32u;
const COARSEST_MAX: u32 = 64u;
// Damped Jacobi's weight (JACOBI_WEIGHT in the twin).
const JACOBI_WEIGHT: f32 = 0.6666667;
// Sweeps per level on each side of the coarse correction (SMOOTHING_SWEEPS in the twin).
const SMOOTHING_SWEEPS: u32 = 2u;

// Per axis, the side bits of `bits` (bit a for axis a).
fn side_bits(bits: u32) -> vec3<bool> {
    return vec3<bool>((bits & 1u) != 0u, (bits & 2u) != 0u, (bits & 4u) != 0u);
}

// The prolongation's weight from coarse cell `cq` to the fine cell at `at` with side bits `bits`,
// `cq` one of its parent's and that parent's neighbours on its side: per axis 3/4 from its parent
// (all of it where the neighbour carries no value) and 1/4 from that neighbour. Written per
// axis without indexing a vector by a loop counter, which left the GPU computing it in memory.
fn weight(at: vec3<u32>, bits: u32, cq: vec3<u32>) -> f32 {
    let side = side_bits(bits);
    let w = select(select(vec3<f32>(0.0), vec3<f32>(0.25), side), select(vec3<f32>(1.0), vec3<f32>(0.75), side),
                   at / 2u == cq);
    return w.x * w.y * w.z;
}
