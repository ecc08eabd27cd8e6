// p2g_tiled_subgroup: p2g_tiled with subgroup pre-reduction (after Gao et al. 2018), built only
// where the adapter has subgroups. Within a block the particles are in cell order (bin_scatter),
// so neighbouring threads mostly share a stencil base and add to the same 27 nodes. The threads
// of a subgroup form runs of equal cell within groups of RUN_LANES lanes; for each stencil node a
// run sums its contributions with shuffles (64-bit, exact), and only its first thread adds the sum
// to the tile. Integer sums do not depend on how they are grouped, so the grid is bit-identical to
// p2g_tiled's. Reads and writes as p2g_tiled.

// Lanes per reduction group: three shuffle steps. A run never spans two groups, so a cell's
// particles cost one tile add per group they occupy rather than one per particle.
const RUN_LANES: u32 = 8u;
// The cell of a thread without a particle: no particle's (those threads add nothing). Equal cells
// mean equal stencil bases, since the clamp in base_node changes no scatter_position's base, so a
// run's threads add to the same tile nodes.
const NO_CELL: u32 = 0xffffffffu;

// Which shuffle steps a thread takes its neighbour's partial sum in (step k: the thread 2^k lanes
// up, if it is in the same run), and whether it is the first of its run.
struct Runs {
    head: bool,
    joins: vec3<bool>,
}

fn lane_runs(cell: u32, lane: u32, lanes: u32) -> Runs {
    let group_lane = lane % RUN_LANES;
    var r: Runs;
    r.head = group_lane == 0u || subgroupShuffleUp(cell, 1u) != cell;
    // The run's first lane, by a max-scan of the heads' lane numbers within the group: a run is
    // then a set of consecutive lanes however the threads map to lanes.
    var start = select(0u, lane, r.head);
    for (var step = 0u; step < 3u; step++) {
        let stride = 1u << step;
        let before = subgroupShuffleUp(start, stride);
        if (group_lane >= stride) {
            start = max(start, before);
        }
    }
    for (var step = 0u; step < 3u; step++) {
        let stride = 1u << step;
        let after = subgroupShuffleDown(start, stride);
        r.joins[step] = group_lane + stride < RUN_LANES && lane + stride < lanes && after == start;
    }
    return r;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g_tiled_subgroup(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) lanes: u32,
) {
    tile_clear(local);
    workgroupBarrier();
    let block = tile_block(workgroup, workgroups);
    let count = select(0u, block.count, block.valid);
    // Every thread runs the same rounds (the count is the workgroup's), so a subgroup's threads
    // meet at every shuffle; threads past the count take part with nothing to add.
    for (var round = 0u; round < count; round += WORKGROUP_SIZE) {
        let has_particle = round + local < count;
        var p: Particle;
        // Threads without a particle read entry 0's stress and add nothing.
        var index = 0u;
        if (has_particle) {
            index = particle_order[block.first + round + local];
            p = load_for_scatter(index);
        }
        let s = stencil_at(p.position);
        let cell = select(NO_CELL, cell_of_node(base_node(s)), has_particle);
        let sc = scatter_of(p.velocity, p.mass, scatter_affine(p, index));
        let runs = lane_runs(cell, lane, lanes);
        // Used only by threads with a particle, whose stencil lies in the tile.
        let first = tile_first_node(s, block.corner, BLOCK_REACH);
        for (var z = 0u; z < 3u; z++) {
            for (var y = 0u; y < 3u; y++) {
                for (var x = 0u; x < 3u; x++) {
                    let o = vec3<u32>(x, y, z);
                    var units = vec4<i32>(0);
                    if (has_particle) {
                        let c = contribution(sc, s, o);
                        if (c.valid) {
                            units = c.units;
                        }
                    }
                    // Segmented suffix sums: after step k a thread holds its run's sum over its
                    // own lane and the 2^(k+1) − 1 after it, so the head ends with the run's.
                    var sum = wide4(units);
                    for (var step = 0u; step < 3u; step++) {
                        let other = Wide4(subgroupShuffleDown(sum.low, 1u << step), subgroupShuffleDown(sum.high, 1u << step));
                        if (runs.joins[step]) {
                            sum = wide4_add(sum, other);
                        }
                    }
                    if (has_particle && runs.head) {
                        tile_add_units(tile_node_from(first, o, BLOCK_REACH), sum);
                    }
                }
            }
        }
    }
    workgroupBarrier();
    if (block.valid) {
        tile_flush(local, block.corner, BLOCK_REACH);
    }
}
