// The multigrid V-cycle preconditioner on the GPU (src/sim/pressure/gpu/multigrid.rs; its CPU
// twin: src/sim/pressure/cpu/multigrid.rs). Each dispatch works on one level, bound with that
// level's buffers and the next coarser one's: damped Jacobi sweeps ping-pong between `x` and
// `tmp`, the residual goes to `res`, the restriction gathers it to the coarse level's right-hand
// side and the prolongation adds the coarse correction back. On level 0, `rhs` is the conjugate
// gradients' residual and `x` their preconditioned residual z. The constants and transfer weights
// it shares with coarse_cycle.wgsl come first, from vcycle.wgsl.

struct LevelUniforms {
    dims: vec3<u32>,
    cells: u32,
    coarse_dims: vec3<u32>,
    coarse_cells: u32,
}

@group(0) @binding(0) var<uniform> lv: LevelUniforms;
// Per cell: (diagonal, coupling up x, up y, up z).
@group(0) @binding(1) var<storage, read> coeffs: array<vec4<f32>>;
// Per cell: CELL_AIR, CELL_LIQUID or CELL_SOLID.
@group(0) @binding(2) var<storage, read> kinds: array<u32>;
// Declared read_write only because the coarse levels share one buffer (multigrid.rs); never written.
@group(0) @binding(3) var<storage, read_write> rhs: array<f32>;
@group(0) @binding(4) var<storage, read_write> x: array<f32>;
@group(0) @binding(5) var<storage, read_write> tmp: array<f32>;
@group(0) @binding(6) var<storage, read_write> res: array<f32>;
@group(0) @binding(7) var<storage, read> coarse_coeffs: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> coarse_kinds: array<u32>;
@group(0) @binding(9) var<storage, read_write> coarse_rhs: array<f32>;
@group(0) @binding(10) var<storage, read_write> coarse_x: array<f32>;
@group(0) @binding(11) var<storage, read> scalars: PcgScalars;
// Per cell of a level with a coarser one, bit a set where its parent's neighbour along axis a
// carries a value, bit 3 where the cell is an unknown (`mg_sides`).
@group(0) @binding(12) var<storage, read_write> sides: array<u32>;

const CELL_SOLID: u32 = 2u;

fn coords(c: u32) -> vec3<u32> {
    return vec3<u32>(c % lv.dims.x, (c / lv.dims.x) % lv.dims.y, c / (lv.dims.x * lv.dims.y));
}

fn coarse_index(q: vec3<u32>) -> u32 {
    return q.x + lv.coarse_dims.x * (q.y + lv.coarse_dims.y * q.z);
}

// The index steps to a cell's neighbours along x, y and z.
fn strides() -> vec3<u32> {
    return vec3<u32>(1u, lv.dims.x, lv.dims.x * lv.dims.y);
}

// (A x)_c and (A tmp)_c: WGSL passes no storage pointers to functions, so one of each. The axes
// are written out: indexing a vector by a loop counter left the GPU keeping it in memory.
fn apply_x(c: u32) -> f32 {
    let k = coeffs[c];
    let s = strides();
    var q = k.x * x[c];
    if c + s.x < lv.cells { q += k.y * x[c + s.x]; }
    if c >= s.x { q += coeffs[c - s.x].y * x[c - s.x]; }
    if c + s.y < lv.cells { q += k.z * x[c + s.y]; }
    if c >= s.y { q += coeffs[c - s.y].z * x[c - s.y]; }
    if c + s.z < lv.cells { q += k.w * x[c + s.z]; }
    if c >= s.z { q += coeffs[c - s.z].w * x[c - s.z]; }
    return q;
}

fn apply_tmp(c: u32) -> f32 {
    let k = coeffs[c];
    let s = strides();
    var q = k.x * tmp[c];
    if c + s.x < lv.cells { q += k.y * tmp[c + s.x]; }
    if c >= s.x { q += coeffs[c - s.x].y * tmp[c - s.x]; }
    if c + s.y < lv.cells { q += k.z * tmp[c + s.y]; }
    if c >= s.y { q += coeffs[c - s.y].z * tmp[c - s.y]; }
    if c + s.z < lv.cells { q += k.w * tmp[c + s.z]; }
    if c >= s.z { q += coeffs[c - s.z].w * tmp[c - s.z]; }
    return q;
}

// The coarse neighbour along `axis` that a fine cell at `at` (parent `parent`) interpolates from,
// or −1 where it is past the grid or solid (the twin's `for_each_weight`).
fn side_of(at: vec3<u32>, parent: vec3<u32>, axis: u32) -> i32 {
    let step = select(1, -1, at[axis] % 2u == 0u);
    let n = i32(parent[axis]) + step;
    if n < 0 || n >= i32(lv.coarse_dims[axis]) {
        return -1;
    }
    let q = i32(coarse_index(parent)) + step * i32(axis_stride(lv.coarse_dims, axis));
    if coarse_kinds[q] == CELL_SOLID {
        return -1;
    }
    return n;
}

// Per cell of a level with a coarser one: which of its parent's neighbours on its side carry a
// value, from the coarse level's kinds. Run once per solve, before it (the kinds are fixed then),
// so a V-cycle's transfers read one word instead of three coarse kinds.
@compute @workgroup_size(256)
fn mg_sides(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= lv.cells {
        return;
    }
    let at = coords(c);
    var bits = select(0u, UNKNOWN_BIT, coeffs[c].x > 0.0);
    for (var a = 0u; a < 3u; a++) {
        bits |= select(0u, 1u << a, side_of(at, at / 2u, a) >= 0);
    }
    sides[c] = bits;
}

// The first sweep from x = 0 at cell `n`: ω D⁻¹ b (a level's cycle starts from zero).
fn first_sweep(n: u32) -> f32 {
    let d = coeffs[n].x;
    return select(0.0, JACOBI_WEIGHT * rhs[n] / d, d > 0.0);
}

// The first two sweeps from x = 0, into x: the first is pointwise, so each cell works out its
// neighbours' on the fly instead of a pass writing them.
@compute @workgroup_size(256)
fn mg_smooth_from_zero(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells {
        return;
    }
    let k = coeffs[c];
    let s = strides();
    let own = first_sweep(c);
    var ax = k.x * own;
    if c + s.x < lv.cells { ax += k.y * first_sweep(c + s.x); }
    if c >= s.x { ax += coeffs[c - s.x].y * first_sweep(c - s.x); }
    if c + s.y < lv.cells { ax += k.z * first_sweep(c + s.y); }
    if c >= s.y { ax += coeffs[c - s.y].z * first_sweep(c - s.y); }
    if c + s.z < lv.cells { ax += k.w * first_sweep(c + s.z); }
    if c >= s.z { ax += coeffs[c - s.z].w * first_sweep(c - s.z); }
    x[c] = select(0.0, own + JACOBI_WEIGHT * (rhs[c] - ax) / k.x, k.x > 0.0);
}

// One sweep from x into tmp.
@compute @workgroup_size(256)
fn mg_smooth_to_tmp(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells {
        return;
    }
    let d = coeffs[c].x;
    tmp[c] = select(0.0, x[c] + JACOBI_WEIGHT * (rhs[c] - apply_x(c)) / d, d > 0.0);
}

// One sweep from tmp back into x.
@compute @workgroup_size(256)
fn mg_smooth_to_x(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells {
        return;
    }
    let d = coeffs[c].x;
    x[c] = select(0.0, tmp[c] + JACOBI_WEIGHT * (rhs[c] - apply_tmp(c)) / d, d > 0.0);
}

@compute @workgroup_size(256)
fn mg_residual(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells {
        return;
    }
    res[c] = select(0.0, rhs[c] - apply_x(c), coeffs[c].x > 0.0);
}

var<workgroup> gathered: array<f32, 256>;

// Per coarse cell: its right-hand side, the fine residual gathered with the prolongation's
// weights over 8. The fine cells within reach are 2C − 1 … 2C + 2 along each axis; eight
// neighbouring threads share a coarse cell, each gathering one 2×2×2 corner of that window,
// and the first adds the eight (64 gathers one after another in one thread left the pass
// waiting on memory).
@compute @workgroup_size(256)
fn mg_restrict(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = linear(id, groups);
    let cc = t / 8u;
    // No early return: every thread reaches the barrier.
    let live = scalars.done == 0u && cc < lv.coarse_cells;
    var sum = 0.0;
    if live && coarse_coeffs[cc].x > 0.0 {
        let cq = vec3<u32>(cc % lv.coarse_dims.x, (cc / lv.coarse_dims.x) % lv.coarse_dims.y,
                           cc / (lv.coarse_dims.x * lv.coarse_dims.y));
        let corner = vec3<u32>(t & 1u, (t >> 1u) & 1u, (t >> 2u) & 1u);
        let lo = vec3<i32>(2u * cq + 2u * corner) - vec3<i32>(1);
        for (var k = 0u; k < 8u; k++) {
            let f = lo + vec3<i32>(vec3<u32>(k & 1u, (k >> 1u) & 1u, k >> 2u));
            if any(f < vec3<i32>(0)) || any(f >= vec3<i32>(lv.dims)) {
                continue;
            }
            let at = vec3<u32>(f);
            let c = at.x + lv.dims.x * (at.y + lv.dims.y * at.z);
            // The residual is zero off the unknowns (`mg_residual`), so no kind is read.
            sum += weight(at, sides[c], cq) * res[c];
        }
    }
    gathered[lid] = sum;
    workgroupBarrier();
    if live && t % 8u == 0u {
        var total = 0.0;
        for (var k = 0u; k < 8u; k++) {
            total += gathered[lid + k];
        }
        coarse_rhs[cc] = total / 8.0;
    }
}

// Per fine cell: x += the coarse correction, trilinearly, axis by axis. A coarse level's x is
// zero off its unknowns (the sweeps write it so), so no coarse kind is read; a neighbour that
// carries no value is read at the parent with weight 0.
@compute @workgroup_size(256)
fn mg_prolong(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells {
        return;
    }
    let bits = sides[c];
    if (bits & UNKNOWN_BIT) == 0u {
        return;
    }
    let at = coords(c);
    let side = side_bits(bits);
    // The index step from the parent to its neighbour on this cell's side, 0 where it has none.
    let toward = select(vec3<i32>(1), vec3<i32>(-1), at % vec3<u32>(2u) == vec3<u32>(0u));
    let strides = vec3<i32>(1, i32(lv.coarse_dims.x), i32(lv.coarse_dims.x * lv.coarse_dims.y));
    let step = select(vec3<i32>(0), toward * strides, side);
    let near = select(vec3<f32>(1.0), vec3<f32>(0.75), side);
    let far = select(vec3<f32>(0.0), vec3<f32>(0.25), side);
    let b = i32(coarse_index(at / 2u));
    let r00 = near.x * coarse_x[b] + far.x * coarse_x[b + step.x];
    let r10 = near.x * coarse_x[b + step.y] + far.x * coarse_x[b + step.y + step.x];
    let r01 = near.x * coarse_x[b + step.z] + far.x * coarse_x[b + step.z + step.x];
    let r11 = near.x * coarse_x[b + step.y + step.z] + far.x * coarse_x[b + step.y + step.z + step.x];
    x[c] += near.z * (near.y * r00 + far.y * r10) + far.z * (near.y * r01 + far.y * r11);
}

var<workgroup> coarsest: array<array<f32, COARSEST_MAX>, 2>;

// The coarsest level's sweeps from zero in one workgroup, one thread a cell: what the level-by-level
// sweeps do, in one dispatch instead of 33. The operator's coefficients stay in registers and the
// sweeps ping-pong between two copies of x, so a sweep waits on one barrier.
@compute @workgroup_size(64)
fn mg_coarsest(@builtin(local_invocation_index) c: u32) {
    // No early return on `done`: the barriers below need every thread; a finished solve only
    // sweeps a few dozen cells for nothing.
    let live = c < lv.cells;
    var k = vec4<f32>(0.0);
    // The couplings to the cell below along each axis, 0 where there is none.
    var below = vec3<f32>(0.0);
    var b = 0.0;
    let s = strides();
    if live {
        k = coeffs[c];
        b = rhs[c];
        if c >= s.x { below.x = coeffs[c - s.x].y; }
        if c >= s.y { below.y = coeffs[c - s.y].z; }
        if c >= s.z { below.z = coeffs[c - s.z].w; }
    }
    coarsest[0][c] = 0.0;
    workgroupBarrier();
    for (var sweep = 0u; sweep < COARSEST_SWEEPS; sweep++) {
        let src = sweep % 2u;
        let own = coarsest[src][c];
        var ax = k.x * own;
        if live && c + s.x < lv.cells { ax += k.y * coarsest[src][c + s.x]; }
        if live && c >= s.x { ax += below.x * coarsest[src][c - s.x]; }
        if live && c + s.y < lv.cells { ax += k.z * coarsest[src][c + s.y]; }
        if live && c >= s.y { ax += below.y * coarsest[src][c - s.y]; }
        if live && c + s.z < lv.cells { ax += k.w * coarsest[src][c + s.z]; }
        if live && c >= s.z { ax += below.z * coarsest[src][c - s.z]; }
        var next = own;
        if live && k.x > 0.0 {
            next += JACOBI_WEIGHT * (b - ax) / k.x;
        }
        coarsest[1u - src][c] = next;
        workgroupBarrier();
    }
    if live {
        x[c] = select(0.0, coarsest[COARSEST_SWEEPS % 2u][c], k.x > 0.0);
    }
}
