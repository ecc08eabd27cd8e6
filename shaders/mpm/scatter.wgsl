// What p2g and the sorted path's P2G kernels share: the position a particle scatters from, its
// fixed-point contributions, and the exact 64-bit sums of them, in registers (Wide4) and in
// grid_fixed. Every kernel produces the same integers for the same particle, and integer sums do
// not depend on their order, so all of them build bit-identical grids (tests/sorted_path.rs).
// g2p2g scatters with these functions too, from a stress computed another way (g2p2g.wgsl).

// The position P2G scatters from: the particle's, clamped into the domain box, or the domain's
// centre if it is not finite. It depends on the position alone, so bin_count and bin_scatter can
// bin a particle by reading 16 bytes of it, and still agree with the sorted P2G on its block.
fn scatter_position(position: vec3<f32>) -> vec3<f32> {
    let finite = select(0.5 * (domain_lo() + domain_hi()), position, is_finite_vec3(position));
    return clamp(finite, domain_lo(), domain_hi());
}

// The base node of stencil `s`, clamped into the grid. For a scatter_position the clamp changes
// nothing (the grid's padding holds every such stencil); it guards the indexing.
fn base_node(s: Stencil) -> vec3<u32> {
    return vec3<u32>(clamp(s.base, vec3<i32>(0), vec3<i32>(params.node_dims) - vec3<i32>(1)));
}

// The stencil base node of a particle at `position` (a scatter_position).
fn home_node(position: vec3<f32>) -> vec3<u32> {
    return base_node(stencil_at(position));
}

// The cell counter of base node `node` in cell_bins: its block's, at the node within the block.
// The block is the counter divided by BLOCK_CELLS.
fn cell_of_node(node: vec3<u32>) -> u32 {
    return block_place(block_index(node / BLOCK_EDGE), node % BLOCK_EDGE);
}

// The cell counter of a particle at `position` (a scatter_position): that of its home node.
fn home_cell(position: vec3<f32>) -> u32 {
    return cell_of_node(home_node(position));
}

// Cells per thread where REACHED_BLOCKS threads turn a block's cell counts into places together.
const SEGMENT_CELLS: u32 = BLOCK_CELLS / REACHED_BLOCKS;
// Each thread's sum of its SEGMENT_CELLS cell counts (sized for params::WORKGROUP_SIZE).
var<workgroup> segment_sums: array<u32, 256>;

// Turns the BLOCK_CELLS cell counts from cell_bins[first] on into their exclusive prefix sums, in
// place: each cell's first place within its block's range (bin_offsets on a dense grid,
// bin_cell_offsets on a sparse one). REACHED_BLOCKS consecutive threads of a workgroup share a
// block, SEGMENT_CELLS cells each: `k` is this thread's share and `local` its index in the
// workgroup, so the block's first thread is local - k. One thread walking all 64 cells in turn,
// with the other lanes of its warp idle, made the sort slower on the H100. It holds a barrier: every thread of the workgroup
// calls it, `has_block` false where a thread has none.
fn place_cells_together(first: u32, k: u32, local: u32, has_block: bool) {
    let cells = first + k * SEGMENT_CELLS;
    var segment = 0u;
    if (has_block) {
        for (var c = cells; c < cells + SEGMENT_CELLS; c++) {
            segment += atomicLoad(&cell_bins[c]);
        }
    }
    segment_sums[local] = segment;
    workgroupBarrier();
    if (has_block) {
        var place = 0u;
        for (var j = local - k; j < local; j++) {
            place += segment_sums[j];
        }
        for (var c = cells; c < cells + SEGMENT_CELLS; c++) {
            let n = atomicLoad(&cell_bins[c]);
            atomicStore(&cell_bins[c], place);
            place += n;
        }
    }
}

// Where cell `cell` (cell_of_node's number: block · BLOCK_CELLS + cell within the block) keeps its
// counter in cell_bins: there on a dense grid; on a sparse one in its block's pool block, so that
// the counters take 4 bytes per pool node rather than per node of the domain, and NO_SLOT where the
// block has none (the pool ran out).
fn cell_counter(cell: u32) -> u32 {
    if (!SPARSE_GRID) {
        return cell;
    }
    let slot = block_slot(cell / BLOCK_CELLS);
    if (slot >= POOL_FULL) {
        return NO_SLOT;
    }
    return slot * BLOCK_CELLS + cell % BLOCK_CELLS;
}

// A particle as P2G takes it: as stored, or, if its state is not finite (it came from outside: a
// scene, an edit), counted and reset to rest and undeformed where it is, so its mass still reaches
// the grid. `reset` says which; a reset particle must be written back.
struct Checked {
    particle: Particle,
    reset: bool,
}

fn checked_for_scatter(stored: Particle) -> Checked {
    var p = stored;
    let finite = is_finite_vec3(p.position) && is_finite_vec3(p.velocity) && is_finite_mat3(p.affine)
        && is_finite_mat3(p.deformation) && abs(p.plastic_jacobian) < 3.0e38;
    if (!finite) {
        atomicAdd(&status.nonfinite_count, 1u);
        p.position = scatter_position(p.position);
        p.velocity = vec3<f32>(0.0);
        p.affine = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
        p.deformation = IDENTITY3;
        p.plastic_jacobian = 1.0;
    }
    return Checked(p, !finite);
}

// p moved to the position it scatters from.
fn at_scatter_position(p: Particle) -> Particle {
    var moved = p;
    moved.position = scatter_position(p.position);
    return moved;
}

// Particle `index` as P2G sees it (checked_for_scatter, written back if reset, its stored stress
// then zero: a reset particle is undeformed), at its scatter_position.
fn load_for_scatter(index: u32) -> Particle {
    let checked = checked_for_scatter(load_particle(index));
    if (checked.reset) {
        store_particle(index, checked.particle);
        store_stress(index, mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)));
    }
    return at_scatter_position(checked.particle);
}

// The MLS-MPM affine momentum of particle `index` (p, as load_for_scatter gave it): −dt V⁰ D⁻¹ τ
// + m C, with D⁻¹ = 4/h² for the quadratic B-spline and τ the stored stress (particle_stress).
fn scatter_affine(p: Particle, index: u32) -> mat3x3<f32> {
    return affine_momentum(p, load_stress(index));
}

// scatter_affine given the particle's Kirchhoff stress τ.
fn affine_momentum(p: Particle, tau: mat3x3<f32>) -> mat3x3<f32> {
    let inverse_d = 4.0 / (params.cell_size * params.cell_size);
    return (-substep_dt() * p.volume * inverse_d) * tau + p.mass * p.affine;
}

// round(x) as i32. By the choice of scales |x| < 2³⁰; anything past the limit is clamped and
// counted rather than left to the conversion.
fn to_fixed(x: f32) -> i32 {
    let limit = params.contribution_limit;
    if (abs(x) > limit) {
        atomicAdd(&status.overflow_count, 1u);
    }
    return i32(clamp(round(x), -limit, limit));
}

// What a particle's 27 contributions share, worked out once per particle: its velocity and mass,
// its MLS-MPM affine momentum over its mass (the velocity gradient G: node i gets momentum
// w·m·(v + G·d_i)), and whether every node's v + G·d_i is finite and within max_speed and every
// fixed-point value within contribution_limit, so that the per-node checks, speed clamp and
// to_fixed's clamp have nothing to do (`bounded`).
struct Scatter {
    velocity: vec3<f32>,
    mass: f32,
    gradient: mat3x3<f32>,
    bounded: bool,
}

// Longest node offset of a stencil over the cell size: components lie in (−1.5, 1.5], so √3 · 1.5.
const STENCIL_REACH_CELLS: f32 = 2.5980763;

fn scatter_of(velocity: vec3<f32>, mass: f32, affine: mat3x3<f32>) -> Scatter {
    var sc: Scatter;
    sc.velocity = velocity;
    sc.mass = mass;
    sc.gradient = affine * (1.0 / mass);
    // |v + G·d| ≤ |v| + ‖G‖_F·|d|. The 1 % margin covers the rounding of this bound and of v + G·d
    // many times over, so where it holds clamp_speed would return u unchanged. A NaN or ∞ anywhere
    // makes the comparison false.
    let g = sc.gradient;
    let norm = sqrt(dot(g[0], g[0]) + dot(g[1], g[1]) + dot(g[2], g[2]));
    let bound = length(velocity) + norm * (STENCIL_REACH_CELLS * params.cell_size);
    // With the speed bounded, no contribution passes contribution_limit either if the whole mass
    // does not: |w·m·uᵢ|·momentum_scale ≤ m·0.99·max_speed·momentum_scale = 0.99·m·mass_scale.
    sc.bounded = bound <= 0.99 * params.max_speed && mass * params.mass_scale <= 0.99 * params.contribution_limit;
    return sc;
}

// The fixed-point contribution to stencil node o of a particle: mass in x, momentum in y, z, w.
// `valid` is false when the momentum is not finite (stress of a wildly deformed F): such a
// contribution carries no usable direction and is skipped, mass included.
struct Contribution {
    valid: bool,
    units: vec4<i32>,
}

fn contribution(sc: Scatter, s: Stencil, o: vec3<u32>) -> Contribution {
    return contribution_at(sc, stencil_weight(s, o), stencil_offset(s, o));
}

// contribution() given the node's weight and its offset from the particle (metres).
fn contribution_at(sc: Scatter, weight: f32, offset: vec3<f32>) -> Contribution {
    var c: Contribution;
    var u = sc.velocity + sc.gradient * offset;
    let weighted_mass = weight * sc.mass;
    c.valid = true;
    if (sc.bounded) {
        // u is finite and within max_speed, and every value lies inside ±contribution_limit
        // (scatter_of), so clamp_speed and to_fixed would change nothing and count nothing: the
        // same integers without their checks.
        let momentum = weighted_mass * u * params.momentum_scale;
        c.units = vec4<i32>(round(vec4<f32>(weighted_mass * params.mass_scale, momentum)));
        return c;
    }
    c.valid = is_finite_vec3(u);
    if (!c.valid) {
        return c;
    }
    u = clamp_speed(u, params.max_speed);
    let momentum = weighted_mass * u * params.momentum_scale;
    c.units = vec4<i32>(to_fixed(weighted_mass * params.mass_scale), to_fixed(momentum.x), to_fixed(momentum.y),
        to_fixed(momentum.z));
    return c;
}

// Four 64-bit sums (mass, momentum x, y, z) in registers: low words as unsigned bits, high words
// signed, as grid_fixed holds them (src/sim/fixed_point.rs).
struct Wide4 {
    low: vec4<u32>,
    high: vec4<i32>,
}

// A contribution's units as 64-bit values (sign-extended).
fn wide4(units: vec4<i32>) -> Wide4 {
    return Wide4(bitcast<vec4<u32>>(units), select(vec4<i32>(0), vec4<i32>(-1), units < vec4<i32>(0)));
}

// a + b, exact: the carry out of each low word goes to its high word.
fn wide4_add(a: Wide4, b: Wide4) -> Wide4 {
    let low = a.low + b.low;
    return Wide4(low, a.high + b.high + select(vec4<i32>(0), vec4<i32>(1), low < a.low));
}

// Adds the 64-bit value (high, low) to the sum at words (slot, slot + 1) of grid_fixed: low word as
// unsigned bits, high word signed. atomicAdd returns the low word before the add; the carry out of
// it goes to the high word with `high`, which is touched only if that is not zero, so almost every
// add is one atomic and the sum is exact (src/sim/fixed_point.rs).
fn add_wide_pair(slot: u32, low: u32, high: i32) {
    var carry = 0;
    if (low != 0u) {
        let before = bitcast<u32>(atomicAdd(&grid_fixed[slot], bitcast<i32>(low)));
        carry = select(0, 1, before + low < before);
    }
    if (high + carry != 0) {
        atomicAdd(&grid_fixed[slot + 1u], high + carry);
    }
}

// Adds a signed i32 contribution to the 64-bit sum at words (slot, slot + 1).
fn add_wide(slot: u32, value: i32) {
    add_wide_pair(slot, bitcast<u32>(value), select(0, -1, value < 0));
}

// Scatters particle p (at its scatter_position, with MLS-MPM `affine` momentum) straight into
// grid_fixed: one global 64-bit add per stencil node and quantity.
fn grid_scatter(p: Particle, affine: mat3x3<f32>) {
    let s = stencil_at(p.position);
    let sc = scatter_of(p.velocity, p.mass, affine);
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                let c = contribution(sc, s, o);
                if (!c.valid) {
                    continue;
                }
                let base = GRID_FIXED_WORDS * stencil_node(s, o);
                add_wide(base, c.units.x);
                add_wide(base + 2u, c.units.y);
                add_wide(base + 4u, c.units.z);
                add_wide(base + 6u, c.units.w);
            }
        }
    }
}
