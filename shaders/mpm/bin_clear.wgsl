// bin_clear: empty every block's bin and the bin counters before bin_count.
// One thread per grid block. Reads: params. Writes: block_bins, bin_header.

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
    }
    if (block >= block_count()) {
        return;
    }
    atomicStore(&block_bins[block].count, 0u);
    atomicStore(&block_bins[block].fill, 0u);
}
