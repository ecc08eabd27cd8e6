// bin_count: count the particles of each grid block and of each cell within it (the block and
// node of a particle's stencil base, see home_cell in scatter.wgsl). One thread per particle; it
// reads the 16-byte position only. Reads: params, particles. Writes: block_bins[].count, cell_bins.

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_count(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let cell = home_cell(scatter_position(particle_position[index].xyz));
    // The block count as well as the cell's: bin_offsets reads the neighbours' block counts.
    atomicAdd(&block_bins[cell / BLOCK_CELLS].count, 1u);
    atomicAdd(&cell_bins[cell], 1u);
}
