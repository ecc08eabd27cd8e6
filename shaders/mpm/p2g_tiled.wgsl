// p2g_tiled: the sorted path's P2G. One workgroup per occupied grid block sums the block's
// particles into the workgroup-memory tile (tile.wgsl), then adds the tile to grid_fixed.
// Particles of a block share most of their stencil nodes, so the many global atomics per node of
// p2g become workgroup atomics and a single global one (and only at the tile's rim do
// neighbouring blocks' workgroups meet on the same node).
//
// Within a block the particles are in cell order (bin_scatter), and the particles of one cell
// share all 27 stencil nodes. So the pass runs in rounds of WORKGROUP_SIZE particles:
//   1. each thread stages one particle's scatter data (scatter_of, and its place in its stencil)
//      in workgroup memory;
//   2. groups of CELL_GROUP threads take the round's cells, one thread per stencil node: each sums
//      its node's contributions from the cell's particles in registers (64-bit, exact) and adds
//      the sum to the tile once.
// A cell of k particles then costs 27 tile adds per quantity instead of 27·k. On the H100 the tile
// adds were most of the pass (doubling them doubled its time; docs/performance.md). Every
// contribution is still computed once, from the same inputs and with the same functions as p2g's,
// so the integers are the same. p2g_tiled_subgroup is the per-particle form with subgroup sums.
// Reads: params, particles, bins. Writes: grid_fixed, status counters, and particles only to reset
// one whose state is not finite.

// Threads per cell in step 2: one per stencil node (27), rounded up to 32 so that on 32-wide
// hardware a group is one warp and its reads of a staged particle are broadcasts.
const CELL_GROUP: u32 = 32u;
// staged_cell: the cell within the block (0 .. BLOCK_CELLS) in the low bits, BOUNDED_BIT set if
// the particle's Scatter is bounded, NO_CELL past the round's last particle.
const CELL_BITS: u32 = 0xffu;
const BOUNDED_BIT: u32 = 0x100u;
const NO_CELL: u32 = 0xffu;

override STAGED_COLUMNS: u32 = 3u * WORKGROUP_SIZE;
// Per staged particle: velocity and mass; the gradient's three columns, each with one component of
// the particle's place in its stencil (Stencil::fraction) as w; and its cell.
var<workgroup> staged_motion: array<vec4<f32>, WORKGROUP_SIZE>;
var<workgroup> staged_gradient: array<vec4<f32>, STAGED_COLUMNS>;
var<workgroup> staged_cell: array<u32, WORKGROUP_SIZE>;
var<workgroup> particles_in_block: u32;

// The first place in [0, staged) whose cell is not below `cell` (staged_cell is in cell order).
fn first_staged_at(cell: u32, staged: u32) -> u32 {
    var lo = 0u;
    var hi = staged;
    while (lo < hi) {
        let mid = (lo + hi) / 2u;
        if ((staged_cell[mid] & CELL_BITS) < cell) {
            lo = mid + 1u;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Stage the particle at place k of the block (if there is one) in slot `local`.
fn stage_particle(block: TileBlock, k: u32, local: u32) {
    var cell = NO_CELL;
    if (k < block.count) {
        let p = load_for_scatter(particle_order[block.first + k]);
        let s = stencil_at(p.position);
        let sc = scatter_of(p.velocity, p.mass, scatter_affine(p));
        staged_motion[local] = vec4<f32>(sc.velocity, sc.mass);
        for (var c = 0u; c < 3u; c++) {
            staged_gradient[3u * local + c] = vec4<f32>(sc.gradient[c], s.fraction[c]);
        }
        cell = (cell_of_node(base_node(s)) % BLOCK_CELLS) | select(0u, BOUNDED_BIT, sc.bounded);
    }
    staged_cell[local] = cell;
}

// The sum of the contributions of staged particles [first, end) (all of one cell) to their stencil
// node o.
fn staged_sum(first: u32, end: u32, o: vec3<u32>) -> Wide4 {
    var sum = Wide4(vec4<u32>(0u), vec4<i32>(0));
    for (var i = first; i < end; i++) {
        let g0 = staged_gradient[3u * i];
        let g1 = staged_gradient[3u * i + 1u];
        let g2 = staged_gradient[3u * i + 2u];
        let motion = staged_motion[i];
        let sc = Scatter(motion.xyz, motion.w, mat3x3<f32>(g0.xyz, g1.xyz, g2.xyz), (staged_cell[i] & BOUNDED_BIT) != 0u);
        let fraction = vec3<f32>(g0.w, g1.w, g2.w);
        let w = offset_weights(fraction, o);
        let c = contribution_at(sc, w.x * w.y * w.z, node_offset(fraction, o));
        if (c.valid) {
            sum = wide4_add(sum, wide4(c.units));
        }
    }
    return sum;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g_tiled(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    tile_clear(local);
    let block = tile_block(workgroup, workgroups);
    if (local == 0u) {
        particles_in_block = select(0u, block.count, block.valid);
    }
    // Also the barrier after tile_clear; the count is the same for every thread, as the round
    // loop's barriers need.
    let count = workgroupUniformLoad(&particles_in_block);
    let group = local / CELL_GROUP;
    let lane = local % CELL_GROUP;
    let o = vec3<u32>(lane % 3u, (lane / 3u) % 3u, lane / 9u);
    for (var round = 0u; round < count; round += WORKGROUP_SIZE) {
        stage_particle(block, round + local, local);
        workgroupBarrier();
        let staged = min(count - round, WORKGROUP_SIZE);
        let last_cell = staged_cell[staged - 1u] & CELL_BITS;
        var cell = (staged_cell[0] & CELL_BITS) + group;
        for (; lane < 27u && cell <= last_cell; cell += WORKGROUP_SIZE / CELL_GROUP) {
            let first = first_staged_at(cell, staged);
            let end = first_staged_at(cell + 1u, staged);
            if (first == end) {
                continue;
            }
            // The cell's base node is its block's corner plus its place in the block; the node
            // is clamped as stencil_node clamps it.
            let within = vec3<i32>(vec3<u32>(cell % BLOCK_EDGE, (cell / BLOCK_EDGE) % BLOCK_EDGE, cell / (BLOCK_EDGE * BLOCK_EDGE)));
            let node = clamp(block.corner + within + vec3<i32>(o), vec3<i32>(0), vec3<i32>(params.node_dims) - 1);
            let t = vec3<u32>(node - block.corner);
            tile_add_units(t.x + BLOCK_REACH * (t.y + BLOCK_REACH * t.z), staged_sum(first, end, o));
        }
        workgroupBarrier();
    }
    workgroupBarrier();
    if (block.valid) {
        tile_flush(local, block.corner, BLOCK_REACH);
    }
}
