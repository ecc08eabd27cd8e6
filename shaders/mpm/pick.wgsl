// pick: the nearest particle along a ray (the mouse ray of the grab tool). Each particle within
// `pick_ray.radius` of the ray offers its distance along it; atomicMin on the bits of that
// non-negative f32 keeps the nearest. Not part of a substep.
// Reads: params, pick_ray, particles. Writes: status.pick_distance_bits (reset by the host).

@compute @workgroup_size(WORKGROUP_SIZE)
fn pick(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let relative = particle_position[index].xyz - pick_ray.origin;
    let along = dot(relative, pick_ray.direction);
    if (!(along > 0.0)) {
        return;
    }
    let off_ray_squared = dot(relative, relative) - along * along;
    if (off_ray_squared <= pick_ray.radius * pick_ray.radius) {
        atomicMin(&status.pick_distance_bits, bitcast<u32>(along));
    }
}
