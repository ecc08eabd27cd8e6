// reorder: move every particle to its place in block order (particle_order, as the sort just left
// it) in the scratch streams, its host index (particle_id) with it, and make particle_order the
// identity: after reorder_copy puts the scratch back, the particle at place k is the k-th in block
// order, so the passes that read through particle_order read consecutive memory.
// One thread per place. Reads: params, particle_order, the streams and particle_id.
// Writes: the reorder_* scratch, particle_order.

@compute @workgroup_size(WORKGROUP_SIZE)
fn reorder(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let source = particle_order[index];
    reorder_position[index] = particle_position[source];
    reorder_velocity[index] = particle_velocity[source];
    reorder_affine[index] = particle_affine[source];
    reorder_deformation[index] = particle_deformation[source];
    reorder_plastic[index] = particle_plastic[source];
    reorder_stress[2u * index] = particle_stress[2u * source];
    reorder_stress[2u * index + 1u] = particle_stress[2u * source + 1u];
    reorder_id[index] = particle_id[source];
    particle_order[index] = index;
}
