// Preconditioned conjugate gradients for the pressure Poisson problem, the GPU side of
// src/sim/pressure/gpu/mod.rs (its CPU twin: src/sim/pressure/cpu/pcg.rs). One thread per cell, x
// fastest; every vector spans all cells and is zero off the unknowns. Each dot product is a
// workgroup sum into `partials`, then a one-workgroup pass (`pcg_reduce_*`) that adds the
// partials and takes the step's scalar decision. Once the solve has converged every pass returns
// at once, so the host can record the cap's iterations in one submission.

struct PressureUniforms {
    // Cells along x, y, z and their count.
    dims: vec3<u32>,
    cells: u32,
    // 0 none, 1 Jacobi, 2 incomplete Poisson, 3 MIC(0), 4 multigrid (preconditioner_code in
    // src/sim/pressure/gpu/mod.rs).
    preconditioner: u32,
    // Workgroups of the cell passes: how many partial sums there are.
    partial_count: u32,
    // The relative residual to stop at, squared.
    tolerance_squared: f32,
    // 1: start from the pressure buffer's values on the unknowns (a warm start), 0: from zero.
    warm: u32,
}

@group(0) @binding(0) var<uniform> u: PressureUniforms;
// Per cell: (diagonal, coupling to the next cell up x, up y, up z).
@group(0) @binding(1) var<storage, read> coeffs: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> rhs: array<f32>;
@group(0) @binding(3) var<storage, read_write> pressure: array<f32>;
@group(0) @binding(4) var<storage, read_write> residual: array<f32>;
@group(0) @binding(5) var<storage, read_write> precond: array<f32>;
@group(0) @binding(6) var<storage, read_write> direction: array<f32>;
@group(0) @binding(7) var<storage, read_write> applied: array<f32>;
@group(0) @binding(8) var<storage, read_write> partials: array<f32>;
@group(0) @binding(9) var<storage, read_write> scalars: PcgScalars;
@group(0) @binding(10) var<storage, read_write> half_step: array<f32>;
// The relative residual ‖r‖/‖b‖ after each iteration, entry 0 the start's (1 from zero, less
// from a warm start): what the Stats panel plots. As long as the iteration cap allows (MAX_ITERATIONS_RANGE's upper end, plus one).
@group(0) @binding(11) var<storage, read_write> history: array<f32>;

var<workgroup> sums: array<f32, 256>;

fn stride(axis: u32) -> u32 {
    return axis_stride(u.dims, axis);
}

// The sum of every thread's `value` over the workgroup, which every thread gets.
fn workgroup_total(local: u32, value: f32) -> f32 {
    sums[local] = value;
    workgroupBarrier();
    for (var width = WORKGROUP / 2u; width > 0u; width = width / 2u) {
        if local < width {
            sums[local] += sums[local + width];
        }
        workgroupBarrier();
    }
    return sums[0];
}

// Adds `value` over the workgroup and writes the sum to partials[group].
fn workgroup_sum(local: u32, group: u32, value: f32) {
    let total = workgroup_total(local, value);
    if local == 0u {
        partials[group] = total;
    }
}

// Adds all partial sums in one workgroup; every thread gets the total. Eight loads a round into
// eight sums, so a thread waits on memory once per round rather than once per load (a 128³ solve
// has 8192 partials, 32 a thread).
fn total(local: u32) -> f32 {
    var s = vec4<f32>(0.0);
    var t = vec4<f32>(0.0);
    var i = local;
    let n = u.partial_count;
    for (; i + 7u * WORKGROUP < n; i += 8u * WORKGROUP) {
        s += vec4<f32>(partials[i], partials[i + WORKGROUP], partials[i + 2u * WORKGROUP], partials[i + 3u * WORKGROUP]);
        t += vec4<f32>(partials[i + 4u * WORKGROUP], partials[i + 5u * WORKGROUP], partials[i + 6u * WORKGROUP],
                       partials[i + 7u * WORKGROUP]);
    }
    for (; i < n; i += WORKGROUP) {
        s.x += partials[i];
    }
    s += t;
    return workgroup_total(local, (s.x + s.y) + (s.z + s.w));
}

fn is_unknown(c: u32) -> bool {
    return c < u.cells && coeffs[c].x > 0.0;
}

// The index steps to a cell's neighbours along x, y and z.
fn strides() -> vec3<u32> {
    return vec3<u32>(1u, u.dims.x, u.dims.x * u.dims.y);
}

// (A pressure)_c and (A direction)_c: WGSL passes no storage pointers to functions, so one of
// each. The axes are written out: indexing a vector by a loop counter left the GPU keeping it in
// memory.
fn apply_pressure(c: u32) -> f32 {
    let k = coeffs[c];
    let s = strides();
    var q = k.x * pressure[c];
    if c + s.x < u.cells { q += k.y * pressure[c + s.x]; }
    if c >= s.x { q += coeffs[c - s.x].y * pressure[c - s.x]; }
    if c + s.y < u.cells { q += k.z * pressure[c + s.y]; }
    if c >= s.y { q += coeffs[c - s.y].z * pressure[c - s.y]; }
    if c + s.z < u.cells { q += k.w * pressure[c + s.z]; }
    if c >= s.z { q += coeffs[c - s.z].w * pressure[c - s.z]; }
    return q;
}

fn apply_direction(c: u32) -> f32 {
    let k = coeffs[c];
    let s = strides();
    var q = k.x * direction[c];
    if c + s.x < u.cells { q += k.y * direction[c + s.x]; }
    if c >= s.x { q += coeffs[c - s.x].y * direction[c - s.x]; }
    if c + s.y < u.cells { q += k.z * direction[c + s.y]; }
    if c >= s.y { q += coeffs[c - s.y].z * direction[c - s.y]; }
    if c + s.z < u.cells { q += k.w * direction[c + s.z]; }
    if c >= s.z { q += coeffs[c - s.z].w * direction[c - s.z]; }
    return q;
}

// r = b, p = 0 (warm: p kept on the unknowns, 0 elsewhere), and bᵀb's partial sums.
@compute @workgroup_size(256)
fn pcg_begin(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
             @builtin(workgroup_id) wg: vec3<u32>) {
    let c = linear(id, groups);
    var bb = 0.0;
    if c < u.cells {
        let unknown = is_unknown(c);
        let b = select(0.0, rhs[c], unknown);
        residual[c] = b;
        if u.warm == 0u || !unknown {
            pressure[c] = 0.0;
        }
        bb = b * b;
    }
    workgroup_sum(local, wg.x + wg.y * groups.x, bb);
}

@compute @workgroup_size(256)
fn pcg_reduce_bb(@builtin(local_invocation_index) local: u32) {
    let bb = total(local);
    if local == 0u {
        scalars.bb = bb;
        scalars.rr = bb;
        scalars.iterations = 0u;
        scalars.done = select(0u, 1u, bb == 0.0);
        scalars.sigma = 0.0;
        scalars.beta = 0.0;
        history[0] = select(0.0, 1.0, bb > 0.0);
    }
}

// A warm start's residual r = b − A p and rᵀr's partial sums (after `pcg_begin` zeroed p off the
// unknowns, so every neighbour read here is settled); nothing from zero.
@compute @workgroup_size(256)
fn pcg_warm_residual(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                     @builtin(workgroup_id) wg: vec3<u32>) {
    let c = linear(id, groups);
    var rr = 0.0;
    if u.warm != 0u && is_unknown(c) {
        let r = rhs[c] - apply_pressure(c);
        residual[c] = r;
        rr = r * r;
    }
    workgroup_sum(local, wg.x + wg.y * groups.x, rr);
}

// A warm start's rᵀr: the start's relative residual, done at once if it is within the tolerance.
// A start farther from the answer than zero (rr > bb) is dropped by `pcg_warm_fallback`, which
// finds rr > bb here and restarts from zero; `pcg_reduce_zr` then sets rr = bb.
@compute @workgroup_size(256)
fn pcg_reduce_warm(@builtin(local_invocation_index) local: u32) {
    let rr = total(local);
    if local == 0u && u.warm != 0u && scalars.bb > 0.0 {
        scalars.rr = rr;
        history[0] = min(sqrt(rr / scalars.bb), 1.0);
        if rr <= u.tolerance_squared * scalars.bb {
            scalars.done = 1u;
        }
    }
}

// p = 0 and r = b again where a warm start was worse than zero.
@compute @workgroup_size(256)
fn pcg_warm_fallback(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if u.warm != 0u && scalars.rr > scalars.bb && is_unknown(c) {
        pressure[c] = 0.0;
        residual[c] = rhs[c];
    }
}

// Incomplete Poisson's first pass: y = r − D⁻¹ Lᵀ r (Lᵀ's row c: the couplings up each axis).
@compute @workgroup_size(256)
fn pcg_ip_upper(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= u.cells {
        return;
    }
    if !is_unknown(c) {
        half_step[c] = 0.0;
        return;
    }
    let k = coeffs[c];
    var up = 0.0;
    for (var a = 0u; a < 3u; a++) {
        let n = c + stride(a);
        if n < u.cells {
            up += k[a + 1u] * residual[n];
        }
    }
    half_step[c] = residual[c] - up / k.x;
}

// z = M⁻¹ r (for incomplete Poisson its second pass, z = y − L D⁻¹ y), and zᵀr's partial sums.
@compute @workgroup_size(256)
fn pcg_precondition(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
                    @builtin(workgroup_id) wg: vec3<u32>) {
    // No early return before the workgroup sum's barriers: the flag is not uniform to naga.
    let c = linear(id, groups);
    var zr = 0.0;
    // b = 0 solves to p = 0 whatever a warm start began from.
    if u.warm != 0u && scalars.bb == 0.0 && c < u.cells {
        pressure[c] = 0.0;
    }
    if scalars.done == 0u && c < u.cells && u.preconditioner == 4u {
        // The V-cycle left z in place, zero off the unknowns (its sweeps write it so), where the
        // residual is zero too: no kind to read, nothing to write.
        zr = precond[c] * residual[c];
    } else if scalars.done == 0u && c < u.cells {
        var z = 0.0;
        if is_unknown(c) {
            let r = residual[c];
            if u.preconditioner == 0u {
                z = r;
            } else if u.preconditioner == 1u {
                z = r / coeffs[c].x;
            } else if u.preconditioner == 2u {
                var down = 0.0;
                for (var a = 0u; a < 3u; a++) {
                    let s = stride(a);
                    if c >= s && is_unknown(c - s) {
                        let below = coeffs[c - s];
                        down += below[a + 1u] * half_step[c - s] / below.x;
                    }
                }
                z = half_step[c] - down;
            } else {
                // MIC(0): its passes left z here.
                z = precond[c];
            }
        }
        precond[c] = z;
        zr = z * residual[c];
    }
    workgroup_sum(local, wg.x + wg.y * groups.x, zr);
}

// σ' = zᵀr; β = σ'/σ (0 on the first iteration, whose direction is z).
@compute @workgroup_size(256)
fn pcg_reduce_zr(@builtin(local_invocation_index) local: u32) {
    let zr = total(local);
    if local == 0u && scalars.done == 0u {
        scalars.beta = select(zr / scalars.sigma, 0.0, scalars.iterations == 0u);
        scalars.sigma = zr;
        if scalars.iterations == 0u {
            // After `pcg_warm_fallback`: the residual is b again.
            scalars.rr = min(scalars.rr, scalars.bb);
        }
    }
}

// s = z + β s.
@compute @workgroup_size(256)
fn pcg_direction(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if scalars.done != 0u || c >= u.cells {
        return;
    }
    direction[c] = precond[c] + scalars.beta * select(0.0, direction[c], scalars.iterations > 0u);
}

// q = A s, and sᵀq's partial sums.
@compute @workgroup_size(256)
fn pcg_apply(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
             @builtin(workgroup_id) wg: vec3<u32>) {
    let c = linear(id, groups);
    var sq = 0.0;
    if scalars.done == 0u && c < u.cells {
        var q = 0.0;
        if is_unknown(c) {
            q = apply_direction(c);
        }
        applied[c] = q;
        sq = q * direction[c];
    }
    workgroup_sum(local, wg.x + wg.y * groups.x, sq);
}

// α = σ / sᵀq; a direction of no curvature means nothing more can be gained (the twin stops too).
@compute @workgroup_size(256)
fn pcg_reduce_sq(@builtin(local_invocation_index) local: u32) {
    let sq = total(local);
    if local == 0u && scalars.done == 0u {
        if sq <= 0.0 {
            scalars.done = 1u;
            scalars.alpha = 0.0;
        } else {
            scalars.alpha = scalars.sigma / sq;
        }
    }
}

// p += α s, r −= α q, and rᵀr's partial sums.
@compute @workgroup_size(256)
fn pcg_update(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>, @builtin(local_invocation_index) local: u32,
              @builtin(workgroup_id) wg: vec3<u32>) {
    let c = linear(id, groups);
    var rr = 0.0;
    if scalars.done == 0u && c < u.cells {
        let alpha = scalars.alpha;
        pressure[c] += alpha * direction[c];
        let r = residual[c] - alpha * applied[c];
        residual[c] = r;
        rr = r * r;
    }
    workgroup_sum(local, wg.x + wg.y * groups.x, rr);
}

// Counts the iteration and stops once ‖r‖² ≤ tolerance² ‖b‖².
@compute @workgroup_size(256)
fn pcg_reduce_rr(@builtin(local_invocation_index) local: u32) {
    let rr = total(local);
    if local == 0u && scalars.done == 0u {
        scalars.rr = rr;
        scalars.iterations += 1u;
        if scalars.iterations < arrayLength(&history) {
            history[scalars.iterations] = sqrt(rr / scalars.bb);
        }
        if rr <= u.tolerance_squared * scalars.bb {
            scalars.done = 1u;
        }
    }
}
