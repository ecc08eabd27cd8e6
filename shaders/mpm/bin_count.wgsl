// bin_count: count the particles of each grid block (the block of a particle's stencil base node,
// see home_block in scatter.wgsl). One thread per particle; it reads the 16-byte position only.
// Reads: params, particles. Writes: block_bins[].count.

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
    atomicAdd(&block_bins[home_block(scatter_position(particles[index].position))].count, 1u);
}
