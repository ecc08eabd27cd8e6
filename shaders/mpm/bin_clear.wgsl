// bin_clear: empty every block's bin and the bin counters before bin_count; on a sparse grid's
// first page also the map of pool blocks and its count, which bin_offsets of each page then fills.
// One thread per block. The cell counters are not cleared here: grid_update_blocks zeroes those of
// the blocks it visits once the substep's P2G has read them (every cell with a count lies in an
// occupied block, and every occupied block is touched), so a pass over every cell of the domain,
// 4 bytes a node, is not paid each substep (docs/performance.md, "Sparse grid").
// Reads: params. Writes: block_bins, bin_header, block_slots and status.grid_blocks_used (sparse
// grid).

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_clear(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let block = flat_index(workgroup, local, workgroups);
    if (block == 0u) {
        atomicStore(&bin_header.particle_total, 0u);
        atomicStore(&bin_header.occupied_count, 0u);
        atomicStore(&bin_header.touched_count, 0u);
        if (params.reset_grid_blocks != 0u) {
            atomicStore(&status.grid_blocks_used, 0u);
        }
    }
    if (block >= block_count()) {
        return;
    }
    atomicStore(&block_bins[block].count, 0u);
    atomicStore(&block_bins[block].cursor, 0u);
    if (params.reset_grid_blocks != 0u) {
        block_slots[block] = NO_SLOT;
    }
}
