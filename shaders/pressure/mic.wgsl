// MIC(0)'s triangular solves on the GPU as wavefronts (src/sim/pressure/gpu/mic.rs; the CPU twin's
// `mic0_apply` in src/sim/pressure/cpu/precond.rs): cell (i, j, k) of the lexicographic order
// depends only on the cells one below it along each axis, all on the plane i + j + k = s − 1, so
// each plane is one dispatch over (i, j), its k = s − i − j. The forward solve runs the planes up,
// the backward one down. The factor (`precon`, 1/√pivot, 0 off the unknowns) comes from the host,
// or from `mic_factor`, the same wavefronts over an operator built on the GPU.

struct MicUniforms {
    dims: vec3<u32>,
    cells: u32,
}

// The plane of a dispatch, at a dynamic offset (one 256-byte slot per plane).
struct Plane {
    index: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> mu: MicUniforms;
@group(0) @binding(1) var<storage, read> coeffs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> precon: array<f32>;
@group(0) @binding(3) var<storage, read> residual: array<f32>;
@group(0) @binding(4) var<storage, read_write> forward: array<f32>;
@group(0) @binding(5) var<storage, read_write> precond: array<f32>;
@group(0) @binding(6) var<storage, read> scalars: PcgScalars;
@group(1) @binding(0) var<uniform> plane: Plane;

fn stride(axis: u32) -> u32 {
    return axis_stride(mu.dims, axis);
}

// The cell of this thread on the dispatch's plane, or cells (none, also once the solve is done).
fn plane_cell(id: vec3<u32>) -> u32 {
    if scalars.done != 0u {
        return mu.cells;
    }
    return plane_cell_always(id);
}

// The cell of this thread on the dispatch's plane, or cells (none).
fn plane_cell_always(id: vec3<u32>) -> u32 {
    if id.x >= mu.dims.x || id.y >= mu.dims.y {
        return mu.cells;
    }
    let k = i32(plane.index) - i32(id.x) - i32(id.y);
    if k < 0 || k >= i32(mu.dims.z) {
        return mu.cells;
    }
    return id.x + mu.dims.x * (id.y + mu.dims.y * u32(k));
}

// L q = r on one plane.
@compute @workgroup_size(16, 16)
fn mic_forward(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = plane_cell(id);
    if c >= mu.cells {
        return;
    }
    if precon[c] == 0.0 {
        forward[c] = 0.0;
        return;
    }
    var t = residual[c];
    for (var a = 0u; a < 3u; a++) {
        let s = stride(a);
        if c >= s {
            t -= coeffs[c - s][a + 1u] * precon[c - s] * forward[c - s];
        }
    }
    forward[c] = t * precon[c];
}

// Lᵀ z = q on one plane.
@compute @workgroup_size(16, 16)
fn mic_backward(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = plane_cell(id);
    if c >= mu.cells {
        return;
    }
    if precon[c] == 0.0 {
        precond[c] = 0.0;
        return;
    }
    var t = forward[c];
    let k = coeffs[c];
    for (var a = 0u; a < 3u; a++) {
        let s = stride(a);
        if c + s < mu.cells {
            t -= k[a + 1u] * precon[c] * precond[c + s];
        }
    }
    precond[c] = t * precon[c];
}

// MIC(0)'s modification weight τ and safety σ (MIC_TAU and MIC_SIGMA in
// src/sim/pressure/cpu/precond.rs).
const MIC_TAU: f32 = 0.97;
const MIC_SIGMA: f32 = 0.25;

// The factor on one plane: each cell's modified pivot from the cells one below it along each
// axis, already factored on the plane before.
@compute @workgroup_size(16, 16)
fn mic_factor(@builtin(global_invocation_id) id: vec3<u32>) {
    let c = plane_cell_always(id);
    if c >= mu.cells {
        return;
    }
    let diag = coeffs[c].x;
    if diag <= 0.0 {
        precon[c] = 0.0;
        return;
    }
    var e = diag;
    for (var a = 0u; a < 3u; a++) {
        let s = stride(a);
        if c < s || precon[c - s] == 0.0 {
            continue;
        }
        let below = coeffs[c - s];
        let coupling = below[a + 1u];
        let others = below.y + below.z + below.w - coupling;
        let p2 = precon[c - s] * precon[c - s];
        e -= coupling * coupling * p2 + MIC_TAU * coupling * others * p2;
    }
    if e < MIC_SIGMA * diag {
        e = diag;
    }
    precon[c] = 1.0 / sqrt(e);
}
