// bin_scatter: write each particle's index into its block's range of particle_order. Within a
// block the order is whatever order the threads arrive in; p2g_tiled's integer sums do not depend
// on it. One thread per particle. Reads: params, particles (positions), block_bins.
// Writes: block_bins[].fill, particle_order.

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_scatter(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let block = home_block(scatter_position(particles[index].position));
    let place = atomicAdd(&block_bins[block].fill, 1u);
    particle_order[block_bins[block].offset + place] = index;
}
