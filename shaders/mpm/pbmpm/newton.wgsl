// PB-MPM's Newton–PCG solve on the GPU: what its passes (pb_newton_*.wgsl) share. CPU twin and
// the method: src/sim/pbmpm/cpu/newton.rs. Velocity units throughout (ṽ = u/dt, as the constraint
// iterations keep them): the residual is r̃ = M(ṽ* − ṽ) + dt·f in momentum units and the operator
// A x̃ = M x̃ + dt·Σ_p V⁰ δτ(dt·∇x̃) ∇w.
//
// pb_solve holds, as vec4s: a header of NEWTON_HEAD entries (0: x = rᵀz, y = pᵀAp, z = α, w = β;
// 1: x = rᵀM⁻¹r at the prediction, y = the same after the last iteration, z = the grid's mass,
// w = rᵀz at the prediction; 2: x = 1 once the solve has met its tolerance, y = the CG iterations
// run), then NEWTON_FIELDS fields of one entry per grid node (newton_field), then the coarse
// levels 1 .. NEWTON_LEVELS − 1 at two entries per level node (restricted residual and lumped
// mass; the level's correction), then one partial sum per workgroup of a node dispatch.
// src/sim/page/sizes.rs sizes it the same way (newton_solve_len).
@group(0) @binding(24) var<storage, read_write> pb_solve: array<vec4<f32>>;

const NEWTON_HEAD: u32 = 3u;
const NEWTON_FIELDS: u32 = 5u;
// ṽ* (xyz) and the node's mass (w).
const FIELD_TARGET: u32 = 0u;
// x̃ (xyz) and the axes the conditions hold, as bits (w).
const FIELD_X: u32 = 1u;
// The residual r during the solve; after it, what the walls' friction took off the solution's
// velocity (the slide: pb_newton_finish writes it, pb_newton_g2p keeps it out of a liquid's C).
const FIELD_R: u32 = 2u;
const FIELD_P: u32 = 3u;
// The preconditioned residual z, then A p in the same place.
const FIELD_Z: u32 = 4u;
// The grid and three coarser levels (NewtonSettings::levels in the twin).
const NEWTON_LEVELS: u32 = 4u;
// The Gershgorin constant of the level ratio (newton.rs, LEVEL_BOUND).
const NEWTON_LEVEL_BOUND: f32 = 28.0;

fn newton_field(field: u32, node: u32) -> u32 {
    return NEWTON_HEAD + field * node_count() + node;
}

// Level l's node counts: each level has a node at every other node of the one below.
fn level_dims(l: u32) -> vec3<u32> {
    var d = params.node_dims;
    for (var i = 0u; i < l; i++) {
        d = d / 2u + vec3<u32>(1u);
    }
    return d;
}

fn level_nodes(l: u32) -> u32 {
    let d = level_dims(l);
    return d.x * d.y * d.z;
}

// The first entry of coarse level l ≥ 1.
fn level_base(l: u32) -> u32 {
    var base = NEWTON_HEAD + NEWTON_FIELDS * node_count();
    for (var i = 1u; i < l; i++) {
        base += 2u * level_nodes(i);
    }
    return base;
}

fn partial_base() -> u32 {
    return level_base(NEWTON_LEVELS);
}

// Level l's diagonal over its lumped mass: 1 + B dt² (λ₀ + 2μ₀) / (ρ₀ h²) / 4^l (newton.rs,
// level_ratio), at the fastest material's (λ₀ + 2μ₀) / ρ₀.
fn level_ratio(l: u32) -> f32 {
    let dt = substep_dt();
    let h = params.cell_size;
    let stiffness = NEWTON_LEVEL_BOUND * dt * dt * params.fastest_wave_squared / (h * h);
    return 1.0 + stiffness / f32(1u << (2u * l));
}

// The axes whose bits are set in `held` (x̃'s w: the axes the grid's conditions hold).
fn held_axes(held: f32) -> vec3<bool> {
    return (vec3<u32>(u32(held)) & vec3<u32>(1u, 2u, 4u)) != vec3<u32>(0u);
}

// Zeroes the components of `v` whose bits are set in `held`.
fn newton_mask(v: vec3<f32>, held: f32) -> vec3<f32> {
    return select(v, vec3<f32>(0.0), held_axes(held));
}

// The fixed-point scale of the force sums (scatter_stress, take_forces): the momentum scale,
// divided by a power of two large enough that a particle's share of a node's force,
// dt V⁰ τ ∇w ≈ 10 dt V⁰ τ / h, fits in a contribution for a stress of 5 % strain at the most
// hardened moduli (e⁵ λ₀, e⁵ μ₀) of the stiffest material. A contribution of the momentum scatter may carry
// m·max_speed, so the stress it allows is ρ₀ max_speed h / (10 dt); the sums are 64-bit, so
// only each share must fit in 31 bits. The divisor costs precision in proportion (the force
// sums resolve 1/force_scale kg·m/s).
fn force_scale() -> f32 {
    let allowed = params.lightest_density * params.max_speed * params.cell_size / (10.0 * substep_dt());
    let expected = 0.05 * exp(MAX_HARDENING_EXPONENT) * params.stiffest_modulus;
    let divisor = exp2(ceil(log2(max(1.0, expected / allowed))));
    return params.momentum_scale / divisor;
}

// The node's force sums (words 2..7 of grid_fixed) in kg·m/s, zeroed as they are read.
fn take_forces(node: u32) -> vec3<f32> {
    let base = GRID_FIXED_WORDS * node;
    let m = vec3<f32>(read_wide(base + 2u), read_wide(base + 4u), read_wide(base + 6u)) / force_scale();
    for (var w = 0u; w < GRID_FIXED_WORDS; w++) {
        atomicStore(&grid_fixed[base + w], 0);
    }
    return m;
}

// `stress · ∇w_ip` (∇w = (4/h²) w (x_i − x_p)) for stencil node `o`, in the force sums' fixed
// point (force_scale).
fn stress_units(s: Stencil, o: vec3<u32>, stress: mat3x3<f32>) -> vec3<i32> {
    let scale = 4.0 / (params.cell_size * params.cell_size) * force_scale();
    let value = (scale * stencil_weight(s, o)) * (stress * stencil_offset(s, o));
    return vec3<i32>(to_fixed(value.x), to_fixed(value.y), to_fixed(value.z));
}

// Adds `stress · ∇w_ip` to the force sums of the 27 nodes of a
// particle at `position` (a scatter_position): a force in momentum units. Dense grid.
//
// Σ_i ∇w_ip is zero, but not in f32: each contribution rounds at 1e-7 of its size, and at stiff
// moduli a particle's force is many times its momentum, so the rounding leaked momentum (5e-4 of
// it through two colliding blocks, tests/pbmpm_newton_gpu.rs). The centre node therefore takes
// the negative of the other contributions' fixed-point sum, and each particle's forces add up to
// exactly zero. (i32 addition wraps, so the running sum is right whenever the total fits.)
fn scatter_stress(position: vec3<f32>, stress: mat3x3<f32>) {
    let s = stencil_at(position);
    var others = vec3<i32>(0);
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                if (all(o == vec3<u32>(1u))) {
                    continue;
                }
                let fixed = stress_units(s, o, stress);
                others += fixed;
                let base = GRID_FIXED_WORDS * stencil_node(s, o);
                add_wide(base + 2u, fixed.x);
                add_wide(base + 4u, fixed.y);
                add_wide(base + 6u, fixed.z);
            }
        }
    }
    let base = GRID_FIXED_WORDS * stencil_node(s, vec3<u32>(1u));
    add_wide(base + 2u, -others.x);
    add_wide(base + 4u, -others.y);
    add_wide(base + 6u, -others.z);
}

// scatter_stress into the workgroup-memory tile of reach³ nodes from `start` that holds the
// particle's stencil (tile.wgsl; the force sums are the tile's momentum quantities, which
// tile_flush adds to words 2..7): the same fixed-point contributions, the centre's included.
fn tile_scatter_stress(position: vec3<f32>, stress: mat3x3<f32>, start: vec3<i32>, reach: u32) {
    let s = stencil_at(position);
    let first = tile_first_node(s, start, reach);
    var others = vec3<i32>(0);
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                if (all(o == vec3<u32>(1u))) {
                    continue;
                }
                let fixed = stress_units(s, o, stress);
                others += fixed;
                tile_add_force(tile_node_from(first, o, reach), fixed);
            }
        }
    }
    tile_add_force(tile_node_from(first, vec3<u32>(1u), reach), -others);
}

// Adds a force contribution to tile node t's momentum quantities (1, 2, 3).
fn tile_add_force(t: u32, f: vec3<i32>) {
    for (var q = 0u; q < 3u; q++) {
        tile_add_pair(t, q + 1u, bitcast<u32>(f[q]), select(0, -1, f[q] < 0));
    }
}

var<workgroup> newton_stop_flag: u32;

// Whether this step's solve has met its tolerance (pb_newton_reduce sets the flag), the same for
// every thread of the workgroup, so that a pass may return on it before its barriers. The
// iterations' passes return at once then: the dispatches of a fixed count still run, but do
// nothing. Call from uniform control flow, first thing.
fn newton_stopped(local: u32) -> bool {
    if (local == 0u) {
        newton_stop_flag = u32(pb_solve[2].x);
    }
    return workgroupUniformLoad(&newton_stop_flag) != 0u;
}

var<workgroup> newton_partial: array<vec2<f32>, 256>;

// Below this rms speed, m/s, a step's residual at the prediction, √(rᵀM⁻¹r / Σm), is rounding
// (a body in free fall has none), and the step counts as converged in the residual it reports
// (newton.rs, RESIDUAL_FLOOR).
const NEWTON_RESIDUAL_FLOOR: f32 = 1.0e-3;

// Whether the prediction's rᵀM⁻¹r (pb_solve[1].x) is under NEWTON_RESIDUAL_FLOOR for the grid's
// mass (pb_solve[1].z).
fn newton_rounding(head: vec4<f32>) -> bool {
    return head.x <= NEWTON_RESIDUAL_FLOOR * NEWTON_RESIDUAL_FLOOR * head.z;
}

// The workgroup's sum of every thread's `mine` (two sums at once), written to its partial-sum
// entry by thread 0. Call from uniform control flow (it has barriers).
fn store_partial_sum(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32, mine: vec2<f32>) {
    newton_partial[local] = mine;
    workgroupBarrier();
    for (var stride = 128u; stride > 0u; stride >>= 1u) {
        if (local < stride && local + stride < WORKGROUP_SIZE) {
            newton_partial[local] += newton_partial[local + stride];
        }
        workgroupBarrier();
    }
    if (local == 0u) {
        pb_solve[partial_base() + workgroup.y * workgroups.x + workgroup.x] = vec4<f32>(newton_partial[0], 0.0, 0.0);
    }
}

// A yielding particle's trial deformation returned inside the solve, sand onto its cone
// (sand_return, sand_secant), a visco-plastic fluid toward its yield surface (visco_return,
// visco_secant), with the secant scales of its moduli there kept in the particle's first in-step
// slot of reorder_scratch for the operator's passes (pb_begin zeroes the slots each step; under
// the Newton solve nothing else uses them). Other kinds keep the trial. CPU twin: newton.rs,
// yielded.
fn newton_yielded(m: Material, trial: mat3x3<f32>, plastic_jacobian: f32, index: u32) -> mat3x3<f32> {
    if (!yields_in_solve(m)) {
        return trial;
    }
    let sand = m.plasticity == PLASTICITY_SAND;
    let d = svd3(trial);
    var returned: vec3<f32>;
    var secant: vec2<f32>;
    if (sand) {
        returned = sand_return(m, d.sigma, plastic_jacobian).xyz;
        secant = sand_secant(m, d.sigma, plastic_jacobian);
    } else {
        returned = visco_return(m, d.sigma);
        secant = vec2<f32>(visco_secant(m, d.sigma), 1.0);
    }
    reorder_scratch[reorder_slot(index, 0u)] = bitcast<vec4<u32>>(vec4<f32>(secant, 0.0, 0.0));
    let removed = returned - d.sigma;
    let correction = mat3x3<f32>(removed.x, 0.0, 0.0, 0.0, removed.y, 0.0, 0.0, 0.0, removed.z);
    return trial + d.u * correction * transpose(d.v);
}

// The small-strain stress of the operator, δτ = 2μ sym(δD) + λ tr(δD) I, at the particle's
// hardened moduli, a yielding kind's scaled by the secant scales pb_newton_force kept
// (newton_yielded), a viscous liquid's with its viscous stress's own 2η/dt and −2η/(3dt) added
// (CPU twin: newton.rs, operator_moduli, which says why).
fn newton_operator_stress(m: Material, dd: mat3x3<f32>, plastic_jacobian: f32, index: u32) -> mat3x3<f32> {
    let hc = hardening_factor(m, plastic_jacobian);
    var scales = vec2<f32>(1.0);
    if (yields_in_solve(m)) {
        scales = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 0u)]).xy;
    }
    var mu = m.mu0 * hc * scales.x;
    var lambda = m.lambda0 * hc * scales.y;
    if (m.plasticity == PLASTICITY_LIQUID && m.viscosity > 0.0) {
        let rate = m.viscosity / substep_dt();
        mu += rate;
        lambda -= (2.0 / 3.0) * rate;
    }
    let trace = dd[0][0] + dd[1][1] + dd[2][2];
    return mu * (dd + transpose(dd)) + (lambda * trace) * IDENTITY3;
}
