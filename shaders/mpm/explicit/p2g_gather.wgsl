// p2g_gather: the sorted path's P2G without atomics on the sums. One workgroup per touched block,
// one thread per node: the thread visits the 27 cells whose particles' stencils reach its node
// (base nodes node − {0,1,2}³), reads their particles from scatter_sources (cell ranges from
// cell_bins, contiguous after p2g_sources), sums their fixed-point contributions in registers and
// stores the node's eight words once; with several pages of particles (params.keep_grid_sums), each
// page's sums are added to the grid, which the substep cleared, instead of stored. Each (particle, node) pair is computed by exactly one
// thread, from the same inputs and with the same functions as p2g and p2g_tiled, so the integers,
// the overflow count and the 64-bit sums are the same: the grid is bit-identical.
//
// Where atomics are dear (a CPU adapter scalarises every one) this is cheaper than the tile; on a
// GPU each particle is read 27 times. docs/performance.md has both measurements.
// Reads: params, scatter_sources, the bins. Writes: grid_fixed (every word of its nodes, or adds to
// them with several pages), status.

// The places in particle_order (and scatter_sources) of the particles of cell counter `cell`. Within
// the block's range they run from the previous cell's end (0 for a block's first cell) to the
// cell's own end, which bin_scatter's cursor left in cell_bins. An empty cell gives (0, 0): its
// block may hold no particles and then has no offset.
fn cell_range(cell: u32) -> vec2<u32> {
    let counter = cell_counter(cell);
    if (counter == NO_SLOT) {
        return vec2<u32>(0u);
    }
    let end = atomicLoad(&cell_bins[counter]);
    var start = 0u;
    if (cell % BLOCK_CELLS != 0u) {
        start = atomicLoad(&cell_bins[counter - 1u]);
    }
    if (start == end) {
        return vec2<u32>(0u);
    }
    let first = block_bins[cell / BLOCK_CELLS].offset;
    return vec2<u32>(first + start, first + end);
}

@compute @workgroup_size(64)
fn p2g_gather(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let touched = touched_node(workgroup, workgroups, local);
    if (!touched.valid) {
        return;
    }
    let node = touched.node;
    // The node's four 64-bit sums.
    var sum = Wide4(vec4<u32>(0u), vec4<i32>(0));
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                if (any(node < o)) {
                    continue;
                }
                let range = cell_range(cell_of_node(node - o));
                for (var k = range.x; k < range.y; k++) {
                    let source = scatter_sources[k];
                    let w = offset_weights(source.fraction, o);
                    let offset = node_offset(source.fraction, o);
                    let sc = Scatter(source.velocity, source.mass, source.gradient, source.bounded != 0u);
                    let c = contribution_at(sc, w.x * w.y * w.z, offset);
                    if (c.valid) {
                        sum = wide4_add(sum, wide4(c.units));
                    }
                }
            }
        }
    }
    let place = grid_place(node);
    if (place == NO_SLOT) {
        return;
    }
    let base = GRID_FIXED_WORDS * place;
    for (var q = 0u; q < 4u; q++) {
        if (params.keep_grid_sums == 0u) {
            atomicStore(&grid_fixed[base + 2u * q], bitcast<i32>(sum.low[q]));
            atomicStore(&grid_fixed[base + 2u * q + 1u], sum.high[q]);
        } else {
            add_wide_pair(base + 2u * q, sum.low[q], sum.high[q]);
        }
    }
}
