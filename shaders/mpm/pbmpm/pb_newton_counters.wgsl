// pb_newton_counters: zeroes a page's sort cell counters for its next sort, once per page and step
// on the binned paths, as the constraint iterations' grid passes do (bin_clear leaves the counters
// to the grid passes, and no other pass of a Newton step visits them). Without it the counts grow
// from step to step, the sort's places overlap and the reorder loses particles. No CPU twin (the
// twin has no sort).
// Reads: params. Writes: cell_bins.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_counters(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    // A dense grid's counters, one per cell of every block (edge blocks reach past the nodes).
    for (var c = node; c < block_count() * BLOCK_CELLS; c += node_count()) {
        atomicStore(&cell_bins[c], 0u);
    }
}
