// grid_clear: zero every node's fixed-point mass and momentum before p2g accumulates into them.
// Reads: params. Writes: grid_fixed.

@compute @workgroup_size(WORKGROUP_SIZE)
fn grid_clear(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    atomicStore(&grid_fixed[4u * node], 0);
    atomicStore(&grid_fixed[4u * node + 1u], 0);
    atomicStore(&grid_fixed[4u * node + 2u], 0);
    atomicStore(&grid_fixed[4u * node + 3u], 0);
}
