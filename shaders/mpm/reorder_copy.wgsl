// reorder_copy: copy the scratch streams that reorder filled back into the particle streams (a
// copy kernel rather than buffer copies, so that it runs inside the timed `sort` pass).
// One thread per particle. Reads: params, the reorder_* scratch. Writes: the streams, particle_id.

@compute @workgroup_size(WORKGROUP_SIZE)
fn reorder_copy(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    particle_position[index] = reorder_position[index];
    particle_velocity[index] = reorder_velocity[index];
    particle_affine[index] = reorder_affine[index];
    particle_deformation[index] = reorder_deformation[index];
    particle_plastic[index] = reorder_plastic[index];
    particle_stress[2u * index] = reorder_stress[2u * index];
    particle_stress[2u * index + 1u] = reorder_stress[2u * index + 1u];
    particle_id[index] = reorder_id[index];
}
