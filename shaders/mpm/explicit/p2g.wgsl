// p2g: scatter each particle's mass and MLS-MPM momentum (velocity, affine C and the elastic
// stress) to its 27 stencil nodes as fixed-point integers, one global 64-bit add per node and
// quantity. The dense path; p2g_tiled is the sorted path's version.
// Reads: params, particles. Writes: grid_fixed, status counters, and particles only to reset a
// particle whose state is not finite.

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = load_for_scatter(index);
    grid_scatter(p, scatter_affine(p, index));
}
