// bin_clear: empty the bins the last sort filled, before bin_count. Only the blocks on the last
// sort's touched list can hold anything (a count, a cursor, a touched mark, a sparse grid's map
// entry): every occupied block is touched, and bin_offsets marks and maps touched blocks only. So
// this pass visits those, header.listed_touched of them, not every block of the domain: in a large,
// mostly empty domain the pass over every block was most of a substep (docs/performance.md,
// "Occupied-block lists").
//
// A fixed number of threads (src/sim/passes.rs: Items::BinClear) strides over the list, since the
// count is known on the GPU only. Thread 0 also zeroes the counters: no thread of this pass reads
// them (listed_touched is a copy bin_dispatch made). With several pages every page's bin_clear runs
// before any page's bin_count (src/sim/sort/bins.rs), so that no page empties a map entry that another
// page's bin_offsets has just set.
// The cell counters are not cleared here: grid_update_blocks zeroes those of the blocks it visits
// once the substep's P2G has read them.
// Reads: params, bin_header.listed_touched, block_lists (touched part). Writes: block_bins,
// bin_header counters, block_slots and status.grid_blocks_used (sparse grid).

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_clear(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index == 0u) {
        atomicStore(&bin_header.particle_total, 0u);
        atomicStore(&bin_header.occupied_count, 0u);
        atomicStore(&bin_header.touched_count, 0u);
        if (params.reset_grid_blocks != 0u) {
            atomicStore(&status.grid_blocks_used, 0u);
        }
    }
    let threads = workgroups.x * workgroups.y * WORKGROUP_SIZE;
    let listed = min(bin_header.listed_touched, block_count());
    for (var i = index; i < listed; i += threads) {
        let block = block_lists[block_count() + i];
        atomicStore(&block_bins[block].count, 0u);
        atomicStore(&block_bins[block].cursor, 0u);
        atomicStore(&block_bins[block].listed, 0u);
        if (params.grid_pool_blocks > 0u) {
            block_slots[block] = 0u;
        }
    }
}
