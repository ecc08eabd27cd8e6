// The multigrid V-cycle preconditioner on the GPU (src/sim/pressure/gpu/multigrid.rs; its CPU
// twin: src/sim/pressure/cpu/multigrid.rs). Each dispatch works on one level, bound with that
// level's buffers and the next coarser one's: damped Jacobi sweeps ping-pong between `x` and
// `tmp`, the residual goes to `res`, the restriction gathers it to the coarse level's right-hand
// side and the prolongation adds the coarse correction back. On level 0, `rhs` is the conjugate
// gradients' residual and `x` their preconditioned residual z.

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
@group(0) @binding(3) var<storage, read> rhs: array<f32>;
@group(0) @binding(4) var<storage, read_write> x: array<f32>;
@group(0) @binding(5) var<storage, read_write> tmp: array<f32>;
@group(0) @binding(6) var<storage, read_write> res: array<f32>;
@group(0) @binding(7) var<storage, read> coarse_coeffs: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> coarse_kinds: array<u32>;
@group(0) @binding(9) var<storage, read_write> coarse_rhs: array<f32>;
@group(0) @binding(10) var<storage, read_write> coarse_x: array<f32>;
@group(0) @binding(11) var<storage, read> scalars: PcgScalars;

const CELL_SOLID: u32 = 2u;
// Sweeps on the coarsest level (COARSEST_SWEEPS in multigrid.rs), and the most cells it may have
// (COARSEST_CELLS³): one workgroup sweeps it in workgroup memory.
const COARSEST_SWEEPS: u32 = 32u;
const COARSEST_MAX: u32 = 64u;
// Damped Jacobi's weight (JACOBI_WEIGHT in multigrid.rs).
const JACOBI_WEIGHT: f32 = 0.6666667;

fn coords(c: u32) -> vec3<u32> {
    return vec3<u32>(c % lv.dims.x, (c / lv.dims.x) % lv.dims.y, c / (lv.dims.x * lv.dims.y));
}

fn stride(axis: u32) -> u32 {
    return axis_stride(lv.dims, axis);
}

fn coarse_index(q: vec3<u32>) -> u32 {
    return q.x + lv.coarse_dims.x * (q.y + lv.coarse_dims.y * q.z);
}

// (A x)_c and (A tmp)_c: WGSL passes no storage pointers to functions, so one of each.
fn apply_x(c: u32) -> f32 {
    let k = coeffs[c];
    var q = k.x * x[c];
    for (var a = 0u; a < 3u; a++) {
        let s = stride(a);
        if c + s < lv.cells {
            q += k[a + 1u] * x[c + s];
        }
        if c >= s {
            q += coeffs[c - s][a + 1u] * x[c - s];
        }
    }
    return q;
}

fn apply_tmp(c: u32) -> f32 {
    let k = coeffs[c];
    var q = k.x * tmp[c];
    for (var a = 0u; a < 3u; a++) {
        let s = stride(a);
        if c + s < lv.cells {
            q += k[a + 1u] * tmp[c + s];
        }
        if c >= s {
            q += coeffs[c - s][a + 1u] * tmp[c - s];
        }
    }
    return q;
}

// The coarse neighbour along `axis` that a fine cell at `at` (parent `parent`) interpolates from,
// or −1 where it is past the grid or solid (the twin's `for_each_weight`).
fn side_of(at: vec3<u32>, parent: vec3<u32>, axis: u32) -> i32 {
    var n = i32(parent[axis]) + 1;
    if at[axis] % 2u == 0u {
        n = i32(parent[axis]) - 1;
    }
    if n < 0 || n >= i32(lv.coarse_dims[axis]) {
        return -1;
    }
    var q = parent;
    q[axis] = u32(n);
    if coarse_kinds[coarse_index(q)] == CELL_SOLID {
        return -1;
    }
    return n;
}

// The first sweep, from x = 0 into tmp: tmp = ω D⁻¹ b (a level's cycle starts from zero).
@compute @workgroup_size(256)
fn mg_smooth_from_zero(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells {
        return;
    }
    let d = coeffs[c].x;
    tmp[c] = select(0.0, JACOBI_WEIGHT * rhs[c] / d, d > 0.0);
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

// Per coarse cell: its right-hand side, the fine residual gathered with the prolongation's
// weights over 8.
@compute @workgroup_size(256)
fn mg_restrict(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let cc = linear(id, groups);
    if scalars.done != 0u || cc >= lv.coarse_cells {
        return;
    }
    if coarse_coeffs[cc].x <= 0.0 {
        coarse_rhs[cc] = 0.0;
        return;
    }
    let cq = vec3<u32>(cc % lv.coarse_dims.x, (cc / lv.coarse_dims.x) % lv.coarse_dims.y,
                       cc / (lv.coarse_dims.x * lv.coarse_dims.y));
    // The fine cells within reach: 2C − 1 … 2C + 2 along each axis.
    let lo = vec3<i32>(2u * cq) - vec3<i32>(1);
    var sum = 0.0;
    for (var dz = 0; dz < 4; dz++) {
        for (var dy = 0; dy < 4; dy++) {
            for (var dx = 0; dx < 4; dx++) {
                let f = lo + vec3<i32>(dx, dy, dz);
                if any(f < vec3<i32>(0)) || any(f >= vec3<i32>(lv.dims)) {
                    continue;
                }
                let at = vec3<u32>(f);
                let c = at.x + lv.dims.x * (at.y + lv.dims.y * at.z);
                if coeffs[c].x <= 0.0 {
                    continue;
                }
                let parent = at / 2u;
                var w = 1.0;
                for (var a = 0u; a < 3u; a++) {
                    let side = side_of(at, parent, a);
                    if parent[a] == cq[a] {
                        w *= select(1.0, 0.75, side >= 0);
                    } else if side == i32(cq[a]) {
                        w *= 0.25;
                    } else {
                        w = 0.0;
                    }
                }
                sum += w * res[c];
            }
        }
    }
    coarse_rhs[cc] = sum / 8.0;
}

// Per fine cell: x += the coarse correction, trilinearly.
@compute @workgroup_size(256)
fn mg_prolong(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= lv.cells || coeffs[c].x <= 0.0 {
        return;
    }
    let at = coords(c);
    let parent = at / 2u;
    let side = vec3<i32>(side_of(at, parent, 0u), side_of(at, parent, 1u), side_of(at, parent, 2u));
    var sum = 0.0;
    for (var corner = 0u; corner < 8u; corner++) {
        var q = parent;
        var w = 1.0;
        var valid = true;
        for (var a = 0u; a < 3u; a++) {
            let far = ((corner >> a) & 1u) == 1u;
            if !far {
                w *= select(1.0, 0.75, side[a] >= 0);
            } else if side[a] >= 0 {
                q[a] = u32(side[a]);
                w *= 0.25;
            } else {
                valid = false;
            }
        }
        if valid {
            let ci = coarse_index(q);
            if coarse_coeffs[ci].x > 0.0 {
                sum += w * coarse_x[ci];
            }
        }
    }
    x[c] += sum;
}

var<workgroup> coarsest: array<f32, 64>;

// The coarsest level's sweeps from zero in one workgroup, one thread a cell: what the level-by-level
// sweeps do, in one dispatch instead of 33.
@compute @workgroup_size(64)
fn mg_coarsest(@builtin(local_invocation_index) c: u32) {
    // No early return on `done`: the barriers below need every thread; a finished solve only
    // sweeps a few dozen cells for nothing.
    let live = c < lv.cells;
    var k = vec4<f32>(0.0);
    var b = 0.0;
    if live {
        k = coeffs[c];
        b = rhs[c];
    }
    coarsest[c] = 0.0;
    workgroupBarrier();
    for (var sweep = 0u; sweep < COARSEST_SWEEPS; sweep++) {
        var ax = k.x * coarsest[c];
        for (var a = 0u; a < 3u; a++) {
            let s = stride(a);
            if live && c + s < lv.cells {
                ax += k[a + 1u] * coarsest[c + s];
            }
            if live && c >= s {
                ax += coeffs[c - s][a + 1u] * coarsest[c - s];
            }
        }
        workgroupBarrier();
        if live && k.x > 0.0 {
            coarsest[c] += JACOBI_WEIGHT * (b - ax) / k.x;
        }
        workgroupBarrier();
    }
    if live {
        x[c] = select(0.0, coarsest[c], k.x > 0.0);
    }
}
