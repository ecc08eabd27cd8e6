// common: what every pressure-solve module shares, put before each (src/sim/pressure/gpu/layout.rs,
// `compose`): the solve's scalars, the workgroup size of the one-dimensional cell passes and their
// cell index, and the index step along an axis.

// The solve's scalars (PcgScalars in src/sim/pressure/gpu/mod.rs); the preconditioners' passes
// read only `done`.
struct PcgScalars {
    // zᵀr of the current iterate.
    sigma: f32,
    // The step along the search direction.
    alpha: f32,
    // The direction's update weight.
    beta: f32,
    // bᵀb.
    bb: f32,
    // rᵀr after the last iteration.
    rr: f32,
    // Iterations taken.
    iterations: u32,
    // 1 once converged or stalled.
    done: u32,
    pad: u32,
}

// Threads of a one-dimensional cell pass (WORKGROUP in layout.rs).
const WORKGROUP: u32 = 256u;

// A thread's cell: dispatches wider than 65535 workgroups wrap into y (dispatch_size in layout.rs).
fn linear(id: vec3<u32>, groups: vec3<u32>) -> u32 {
    return id.x + id.y * groups.x * WORKGROUP;
}

// The coordinates of cell `c` of a grid of `dims` cells, x fastest.
fn cell_at(c: u32, dims: vec3<u32>) -> vec3<u32> {
    return vec3<u32>(c % dims.x, (c / dims.x) % dims.y, c / (dims.x * dims.y));
}

// The index step between neighbouring cells along `axis` of a grid of `dims` cells, x fastest.
fn axis_stride(dims: vec3<u32>, axis: u32) -> u32 {
    return select(select(dims.x * dims.y, dims.x, axis == 1u), 1u, axis == 0u);
}
