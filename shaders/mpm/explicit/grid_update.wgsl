// grid_update: every node of the dense grid from its fixed-point sums to a velocity (see
// updated_node in grid_node.wgsl). The naive path, on a dense grid; grid_update_blocks is the sorted
// path's version.
// Reads: params, grid_fixed, colliders. Writes: grid_velocity (xyz velocity, w mass).

@compute @workgroup_size(WORKGROUP_SIZE)
fn grid_update(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    grid_velocity[node] = updated_node(node, node);
}
