// p2g_tiled: the sorted path's P2G. One workgroup per occupied grid block: its threads scatter the
// block's particles into the workgroup-memory tile (tile.wgsl), then add the tile to grid_fixed.
// Particles of a block share most of their stencil nodes, so the many global atomics per node of
// p2g become cheap workgroup atomics and a single global one (and only at the tile's rim do
// neighbouring blocks' workgroups meet on the same node). p2g_tiled_subgroup is the same pass with
// the threads of a subgroup summing their contributions to a node before one of them adds.
// Reads: params, particles, bins. Writes: grid_fixed, status counters, and particles only to reset
// one whose state is not finite.

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g_tiled(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    tile_clear(local);
    workgroupBarrier();
    let block = tile_block(workgroup, workgroups);
    if (block.valid) {
        for (var k = local; k < block.count; k += WORKGROUP_SIZE) {
            let index = particle_order[block.first + k];
            let p = load_for_scatter(index);
            tile_scatter(p, scatter_affine(p, index), block.corner, BLOCK_REACH);
        }
    }
    workgroupBarrier();
    if (block.valid) {
        tile_flush(local, block.corner, BLOCK_REACH);
    }
}
