// bin_scatter: write each particle's index into its block's range of particle_order, in the part
// of its cell: within a block the particles are in cell order, so neighbouring threads of
// p2g_tiled mostly add to the same nodes (p2g_tiled_subgroup relies on it). Within a cell
// the order is whatever order the threads arrive in; the integer sums do not depend on it.
// One thread per particle. Reads: params, particles (positions), block_bins, block_slots. Writes:
// cell_bins (cursors), particle_order, block_bins[].cursor (a sparse block without a pool block).

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
    let cell = home_cell(scatter_position(particle_position[index].xyz));
    let block = cell / BLOCK_CELLS;
    let counter = cell_counter(cell);
    var place: u32;
    if (counter != NO_SLOT) {
        place = atomicAdd(&cell_bins[counter], 1u);
    } else {
        // A sparse grid's block left without a pool block: its particles in arrival order.
        place = atomicAdd(&block_bins[block].cursor, 1u);
    }
    particle_order[block_bins[block].offset + place] = index;
}
