// p2g_tiled: the sorted path's P2G. One workgroup per occupied grid block (bin_offsets listed
// them): its threads scatter the block's particles into a TILE_EDGE³-node tile in workgroup
// memory, then add each non-zero tile sum to grid_fixed with one global 64-bit add. Particles of
// a block share most of their stencil nodes, so the many global atomics per node of p2g become
// cheap workgroup atomics and a single global one (and only at the tile's rim do neighbouring
// blocks' workgroups meet on the same node).
// Reads: params, particles, bins. Writes: grid_fixed, status counters, and particles only to reset
// one whose state is not finite.

// The tile's 64-bit sums (a node can gather more than 2³¹ units), one array per word: low words of
// mass, momentum x, y, z, then the high words, each TILE_NODES long. Unlike grid_fixed's eight
// words per node, consecutive nodes then sit in consecutive memory banks: with an 8-word stride
// the threads of a warp adding to different nodes met in 4 of the 32 banks.
var<workgroup> tile: array<atomic<i32>, 1728>; // TILE_NODES · GRID_FIXED_WORDS

fn tile_slot(node: u32, quantity: u32, high: u32) -> u32 {
    return (4u * high + quantity) * TILE_NODES + node;
}

// add_wide on the tile (same carry rule, on workgroup memory).
fn tile_add_wide(node: u32, quantity: u32, value: i32) {
    if (value == 0) {
        return;
    }
    let before = bitcast<u32>(atomicAdd(&tile[tile_slot(node, quantity, 0u)], value));
    let after = before + bitcast<u32>(value);
    let high = select(0, -1, value < 0) + select(0, 1, after < before);
    if (high != 0) {
        atomicAdd(&tile[tile_slot(node, quantity, 1u)], high);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g_tiled(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    for (var i = local; i < TILE_NODES * GRID_FIXED_WORDS; i += WORKGROUP_SIZE) {
        atomicStore(&tile[i], 0);
    }
    workgroupBarrier();

    // The dispatch is sized from the occupied count, spilled into y, so a few slots run past it.
    let slot = workgroup_slot(workgroup, workgroups);
    let has_block = slot < atomicLoad(&bin_header.occupied_count);
    var corner = vec3<i32>(0);
    if (has_block) {
        let block = block_lists[slot];
        corner = vec3<i32>(block_coords(block) * BLOCK_EDGE);
        let count = atomicLoad(&block_bins[block].count);
        let first = block_bins[block].offset;
        for (var k = local; k < count; k += WORKGROUP_SIZE) {
            let p = load_for_scatter(particle_order[first + k]);
            let s = stencil_at(p.position);
            let affine = scatter_affine(p);
            for (var z = 0u; z < 3u; z++) {
                for (var y = 0u; y < 3u; y++) {
                    for (var x = 0u; x < 3u; x++) {
                        let o = vec3<u32>(x, y, z);
                        let c = contribution(p, s, affine, o);
                        if (!c.valid) {
                            continue;
                        }
                        // The node as stencil_node clamps it, relative to the block's corner. The
                        // base is clamped the same way when binning (home_block), and clamping is
                        // monotone, so the offset lies in 0 .. TILE_EDGE − 1 on every axis.
                        let node = clamp(s.base + vec3<i32>(o), vec3<i32>(0), vec3<i32>(params.node_dims) - 1);
                        let t = vec3<u32>(node - corner);
                        let tile_node = t.x + TILE_EDGE * (t.y + TILE_EDGE * t.z);
                        tile_add_wide(tile_node, 0u, c.units.x);
                        tile_add_wide(tile_node, 1u, c.units.y);
                        tile_add_wide(tile_node, 2u, c.units.z);
                        tile_add_wide(tile_node, 3u, c.units.w);
                    }
                }
            }
        }
    }
    workgroupBarrier();

    if (has_block) {
        // One thread per (tile node, quantity): consecutive threads add to consecutive words.
        for (var i = local; i < TILE_NODES * 4u; i += WORKGROUP_SIZE) {
            let t = i / 4u;
            let q = i % 4u;
            let low = bitcast<u32>(atomicLoad(&tile[tile_slot(t, q, 0u)]));
            let high = atomicLoad(&tile[tile_slot(t, q, 1u)]);
            let node = corner + vec3<i32>(vec3<u32>(t % TILE_EDGE, (t / TILE_EDGE) % TILE_EDGE, t / (TILE_EDGE * TILE_EDGE)));
            if ((low != 0u || high != 0) && all(node < vec3<i32>(params.node_dims))) {
                add_wide_pair(GRID_FIXED_WORDS * node_index(vec3<u32>(node)) + 2u * q, low, high);
            }
        }
    }
}
