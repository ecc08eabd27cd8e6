// bin_cell_offsets: on a sparse grid, each pool block's cell counts (bin_cells) become the first
// places of its cells within its block's range, as bin_offsets does for a dense grid's blocks.
// REACHED_BLOCKS threads per pool block, SEGMENT_CELLS cells each (place_cells_together in
// scatter.wgsl); those past the blocks handed out this substep have nothing to do (a pool block of
// a touched, unoccupied block holds zeros, which stay zeros).
// Reads: params, status.grid_blocks_used. Writes: cell_bins.

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_cell_offsets(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    let slot = index / REACHED_BLOCKS;
    let handed_out = min(atomicLoad(&status.grid_blocks_used), params.grid_pool_blocks);
    place_cells_together(slot * BLOCK_CELLS, index % REACHED_BLOCKS, local, slot < handed_out);
}
