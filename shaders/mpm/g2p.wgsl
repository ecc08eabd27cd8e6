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
    // Neighbouring threads should read neighbouring grid nodes: on the binned paths the particles'
    // places are in block order (as of the last reorder), or else thread k takes the k-th particle
    // of the sort's block order (see PARTICLE_ORDER_* in types.wgsl).
    let index = select(thread, particle_order[thread], params.particle_order == PARTICLE_ORDER_BINNED);
    let a = advanced(load_particle(index));
    store_particle(index, a.particle);
    // The stress of the new F for the next P2G, from the SVD the plasticity step made of it.
    let m = material_of(a.particle.material);
    let j = a.sigma.x * a.sigma.y * a.sigma.z;
    store_stress(index, kirchhoff_stress_svd(m, a.u, a.sigma, a.particle.plastic_jacobian, a.particle.damage) + viscous_stress(m, a.particle.affine, j));
}
