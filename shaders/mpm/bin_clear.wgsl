// bin_clear: empty every block's bin and cell counters, and the bin counters, before bin_count; on
// a sparse grid's first page also the map of pool blocks and its count, which bin_offsets of each
// page then fills. One thread per cell counter (BLOCK_CELLS per block). Reads: params. Writes:
// block_bins, cell_bins, bin_header, block_slots and status.grid_blocks_used (sparse grid).

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_clear(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let cell = flat_index(workgroup, local, workgroups);
    if (cell == 0u) {
        atomicStore(&bin_header.particle_total, 0u);
        atomicStore(&bin_header.occupied_count, 0u);
        atomicStore(&bin_header.touched_count, 0u);
        if (params.reset_grid_blocks != 0u) {
            atomicStore(&status.grid_blocks_used, 0u);
        }
    }
    if (cell >= block_count() * BLOCK_CELLS) {
        return;
    }
    atomicStore(&cell_bins[cell], 0u);
    if (cell < block_count()) {
        atomicStore(&block_bins[cell].count, 0u);
        if (params.reset_grid_blocks != 0u) {
            block_slots[cell] = NO_SLOT;
        }
    }
}
