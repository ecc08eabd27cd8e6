// g2p: each particle's update from the grid (advance.wgsl): velocity and C gathered from its 27
// stencil nodes, the deformation gradient updated, snow plasticity applied, the particle advected.
// Reads: params, grid_velocity, particles, particle_order (binned paths without reorder). Writes: particles (the stress
// of the new F among them), status.nonfinite_count.

@compute @workgroup_size(WORKGROUP_SIZE)
fn g2p(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let thread = flat_index(workgroup, local, workgroups);
    if (thread >= params.particle_count) {
        return;
    }
    let index = g2p_particle(thread);
    store_advanced(index, advanced(load_particle(index)));
}
