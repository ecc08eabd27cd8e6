// bin_cells: a sparse grid's cell counts. bin_count counted the blocks only, since a sparse grid's
// cell counters live in pool blocks (cell_counter in scatter.wgsl) and bin_offsets hands those out
// after it; this pass counts each particle into its cell's counter. A particle whose block got no
// pool block (the pool ran out) is left to its block's cursor (bin_scatter).
// One thread per particle. Reads: params, particles (positions), block_slots. Writes: cell_bins.

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_cells(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let counter = cell_counter(home_cell(scatter_position(particle_position[index].xyz)));
    if (counter != NO_SLOT) {
        atomicAdd(&cell_bins[counter], 1u);
    }
}
