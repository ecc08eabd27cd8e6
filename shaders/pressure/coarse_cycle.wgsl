// The multigrid V-cycle's coarse levels in one workgroup (src/sim/pressure/gpu/multigrid.rs,
// FUSED_CELLS): below a few hundred cells a level's dispatch costs the GPU its launch and the
// barrier after it, not its work. So from the first such level down to the coarsest and back up,
// one workgroup of 256 threads runs every sweep, residual and transfer that multigrid.wgsl runs
// level by level, in the same order and with the same arithmetic, a storage barrier between
// steps (the constants and transfer weights both use are vcycle.wgsl's). Every coarse level lives
// in buffers the levels share, each level from its offset.

struct CycleLevel {
    dims: vec3<u32>,
    cells: u32,
    // The level's first element in the shared buffers.
    offset: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// The most levels one cycle holds (MAX_CYCLE_LEVELS in multigrid.rs): a level of at most
// FUSED_CELLS cells is at most that long, and halves until 4 cells.
const MAX_CYCLE_LEVELS: u32 = 16u;

struct CycleUniforms {
    // Levels in use, the finest fused first and the coarsest last.
    count: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    levels: array<CycleLevel, MAX_CYCLE_LEVELS>,
}

@group(0) @binding(0) var<uniform> cu: CycleUniforms;
@group(0) @binding(1) var<storage, read> coeffs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> rhs: array<f32>;
@group(0) @binding(3) var<storage, read_write> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> tmp: array<f32>;
@group(0) @binding(5) var<storage, read_write> res: array<f32>;
// Per cell, as multigrid.wgsl's `sides`: bit a where its parent's neighbour along axis a carries
// a value, UNKNOWN_BIT where it is an unknown.
@group(0) @binding(6) var<storage, read> sides: array<u32>;
@group(0) @binding(7) var<storage, read> scalars: PcgScalars;

const THREADS: u32 = 256u;

fn strides_of(l: CycleLevel) -> vec3<u32> {
    return vec3<u32>(1u, l.dims.x, l.dims.x * l.dims.y);
}

// (A x)_c and (A tmp)_c on level `l`, as multigrid.wgsl's: WGSL passes no storage pointers to
// functions, so one of each.
fn apply_x(l: CycleLevel, c: u32) -> f32 {
    let o = l.offset;
    let k = coeffs[o + c];
    let s = strides_of(l);
    var q = k.x * x[o + c];
    if c + s.x < l.cells { q += k.y * x[o + c + s.x]; }
    if c >= s.x { q += coeffs[o + c - s.x].y * x[o + c - s.x]; }
    if c + s.y < l.cells { q += k.z * x[o + c + s.y]; }
    if c >= s.y { q += coeffs[o + c - s.y].z * x[o + c - s.y]; }
    if c + s.z < l.cells { q += k.w * x[o + c + s.z]; }
    if c >= s.z { q += coeffs[o + c - s.z].w * x[o + c - s.z]; }
    return q;
}

fn apply_tmp(l: CycleLevel, c: u32) -> f32 {
    let o = l.offset;
    let k = coeffs[o + c];
    let s = strides_of(l);
    var q = k.x * tmp[o + c];
    if c + s.x < l.cells { q += k.y * tmp[o + c + s.x]; }
    if c >= s.x { q += coeffs[o + c - s.x].y * tmp[o + c - s.x]; }
    if c + s.y < l.cells { q += k.z * tmp[o + c + s.y]; }
    if c >= s.y { q += coeffs[o + c - s.y].z * tmp[o + c - s.y]; }
    if c + s.z < l.cells { q += k.w * tmp[o + c + s.z]; }
    if c >= s.z { q += coeffs[o + c - s.z].w * tmp[o + c - s.z]; }
    return q;
}

// The first sweep from x = 0 at cell `n` of `l`: ω D⁻¹ b.
fn first_sweep(l: CycleLevel, n: u32) -> f32 {
    let d = coeffs[l.offset + n].x;
    return select(0.0, JACOBI_WEIGHT * rhs[l.offset + n] / d, d > 0.0);
}

// The first two sweeps from zero, into x (multigrid.wgsl's `mg_smooth_from_zero`).
fn smooth_from_zero(l: CycleLevel, lid: u32) {
    let s = strides_of(l);
    for (var c = lid; c < l.cells; c += THREADS) {
        let k = coeffs[l.offset + c];
        let own = first_sweep(l, c);
        var ax = k.x * own;
        if c + s.x < l.cells { ax += k.y * first_sweep(l, c + s.x); }
        if c >= s.x { ax += coeffs[l.offset + c - s.x].y * first_sweep(l, c - s.x); }
        if c + s.y < l.cells { ax += k.z * first_sweep(l, c + s.y); }
        if c >= s.y { ax += coeffs[l.offset + c - s.y].z * first_sweep(l, c - s.y); }
        if c + s.z < l.cells { ax += k.w * first_sweep(l, c + s.z); }
        if c >= s.z { ax += coeffs[l.offset + c - s.z].w * first_sweep(l, c - s.z); }
        x[l.offset + c] = select(0.0, own + JACOBI_WEIGHT * (rhs[l.offset + c] - ax) / k.x, k.x > 0.0);
    }
}

// A pair of sweeps, x → tmp → x, a barrier after each.
fn smooth_pair(l: CycleLevel, lid: u32) {
    for (var c = lid; c < l.cells; c += THREADS) {
        let d = coeffs[l.offset + c].x;
        tmp[l.offset + c] = select(0.0, x[l.offset + c] + JACOBI_WEIGHT * (rhs[l.offset + c] - apply_x(l, c)) / d, d > 0.0);
    }
    storageBarrier();
    for (var c = lid; c < l.cells; c += THREADS) {
        let d = coeffs[l.offset + c].x;
        x[l.offset + c] = select(0.0, tmp[l.offset + c] + JACOBI_WEIGHT * (rhs[l.offset + c] - apply_tmp(l, c)) / d, d > 0.0);
    }
    storageBarrier();
}

fn residual(l: CycleLevel, lid: u32) {
    for (var c = lid; c < l.cells; c += THREADS) {
        let o = l.offset + c;
        res[o] = select(0.0, rhs[o] - apply_x(l, c), coeffs[o].x > 0.0);
    }
}

var<workgroup> gathered: array<f32, THREADS>;

// The coarse right-hand side: per coarse cell the fine residual over the 4×4×4 window within
// reach, with the prolongation's weights, over 8 (multigrid.wgsl's `mg_restrict`, and as there
// eight threads a coarse cell, each gathering one 2×2×2 corner of the window, added in workgroup
// memory: one thread gathering all 64 left the cycle waiting on memory).
fn restrict_to(l: CycleLevel, coarse: CycleLevel, lid: u32) {
    let rounds = (8u * coarse.cells + THREADS - 1u) / THREADS;
    for (var round = 0u; round < rounds; round++) {
        let t = round * THREADS + lid;
        let cc = t / 8u;
        let live = cc < coarse.cells;
        var sum = 0.0;
        if live && coeffs[coarse.offset + cc].x > 0.0 {
            let cq = cell_at(cc, coarse.dims);
            let corner = vec3<u32>(t & 1u, (t >> 1u) & 1u, (t >> 2u) & 1u);
            let lo = vec3<i32>(2u * cq + 2u * corner) - vec3<i32>(1);
            for (var k = 0u; k < 8u; k++) {
                let f = lo + vec3<i32>(vec3<u32>(k & 1u, (k >> 1u) & 1u, k >> 2u));
                if any(f < vec3<i32>(0)) || any(f >= vec3<i32>(l.dims)) {
                    continue;
                }
                let at = vec3<u32>(f);
                let c = l.offset + at.x + l.dims.x * (at.y + l.dims.y * at.z);
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
            rhs[coarse.offset + cc] = total / 8.0;
        }
        workgroupBarrier();
    }
}

// x += the coarse correction, per fine cell (multigrid.wgsl's `mg_prolong`).
fn prolong_from(l: CycleLevel, coarse: CycleLevel, lid: u32) {
    let strides = vec3<i32>(1, i32(coarse.dims.x), i32(coarse.dims.x * coarse.dims.y));
    for (var c = lid; c < l.cells; c += THREADS) {
        let bits = sides[l.offset + c];
        if (bits & UNKNOWN_BIT) == 0u {
            continue;
        }
        let at = cell_at(c, l.dims);
        let side = side_bits(bits);
        let toward = select(vec3<i32>(1), vec3<i32>(-1), at % vec3<u32>(2u) == vec3<u32>(0u));
        let step = select(vec3<i32>(0), toward * strides, side);
        let near = select(vec3<f32>(1.0), vec3<f32>(0.75), side);
        let far = select(vec3<f32>(0.0), vec3<f32>(0.25), side);
        let p = at / 2u;
        let b = i32(coarse.offset + p.x + coarse.dims.x * (p.y + coarse.dims.y * p.z));
        let r00 = near.x * x[b] + far.x * x[b + step.x];
        let r10 = near.x * x[b + step.y] + far.x * x[b + step.y + step.x];
        let r01 = near.x * x[b + step.z] + far.x * x[b + step.z + step.x];
        let r11 = near.x * x[b + step.y + step.z] + far.x * x[b + step.y + step.z + step.x];
        x[l.offset + c] += near.z * (near.y * r00 + far.y * r10) + far.z * (near.y * r01 + far.y * r11);
    }
}

var<workgroup> coarsest: array<array<f32, COARSEST_MAX>, 2>;

// The coarsest level's sweeps from zero in workgroup memory, one thread a cell
// (multigrid.wgsl's `mg_coarsest`).
fn solve_coarsest(l: CycleLevel, lid: u32) {
    let live = lid < l.cells;
    let o = l.offset;
    let s = strides_of(l);
    var k = vec4<f32>(0.0);
    var below = vec3<f32>(0.0);
    var b = 0.0;
    if live {
        k = coeffs[o + lid];
        b = rhs[o + lid];
        if lid >= s.x { below.x = coeffs[o + lid - s.x].y; }
        if lid >= s.y { below.y = coeffs[o + lid - s.y].z; }
        if lid >= s.z { below.z = coeffs[o + lid - s.z].w; }
    }
    if lid < COARSEST_MAX {
        coarsest[0][lid] = 0.0;
    }
    workgroupBarrier();
    for (var sweep = 0u; sweep < COARSEST_SWEEPS; sweep++) {
        let src = sweep % 2u;
        if live {
            let own = coarsest[src][lid];
            var ax = k.x * own;
            if lid + s.x < l.cells { ax += k.y * coarsest[src][lid + s.x]; }
            if lid >= s.x { ax += below.x * coarsest[src][lid - s.x]; }
            if lid + s.y < l.cells { ax += k.z * coarsest[src][lid + s.y]; }
            if lid >= s.y { ax += below.y * coarsest[src][lid - s.y]; }
            if lid + s.z < l.cells { ax += k.w * coarsest[src][lid + s.z]; }
            if lid >= s.z { ax += below.z * coarsest[src][lid - s.z]; }
            var next = own;
            if k.x > 0.0 {
                next += JACOBI_WEIGHT * (b - ax) / k.x;
            }
            coarsest[1u - src][lid] = next;
        }
        workgroupBarrier();
    }
    if live {
        x[o + lid] = select(0.0, coarsest[COARSEST_SWEEPS % 2u][lid], k.x > 0.0);
    }
}

var<workgroup> finished: u32;

// The V-cycle from the first fused level down and back up, its right-hand side written by the
// finer level's restriction; its x is what the finer level's prolongation reads.
@compute @workgroup_size(256)
fn mg_cycle(@builtin(local_invocation_index) lid: u32) {
    if lid == 0u {
        finished = scalars.done;
    }
    // Every thread leaves together or none does: the barriers below need them all.
    if workgroupUniformLoad(&finished) != 0u {
        return;
    }
    let last = cu.count - 1u;
    for (var i = 0u; i < last; i++) {
        let l = cu.levels[i];
        smooth_from_zero(l, lid);
        storageBarrier();
        for (var pair = 1u; pair < SMOOTHING_SWEEPS / 2u; pair++) {
            smooth_pair(l, lid);
        }
        residual(l, lid);
        storageBarrier();
        restrict_to(l, cu.levels[i + 1u], lid);
        storageBarrier();
    }
    solve_coarsest(cu.levels[last], lid);
    storageBarrier();
    for (var i = last; i > 0u; i--) {
        let l = cu.levels[i - 1u];
        prolong_from(l, cu.levels[i], lid);
        storageBarrier();
        for (var pair = 0u; pair < SMOOTHING_SWEEPS / 2u; pair++) {
            smooth_pair(l, lid);
        }
    }
}
