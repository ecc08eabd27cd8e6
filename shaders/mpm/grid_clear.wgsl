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
    for (var word = 0u; word < GRID_FIXED_WORDS; word++) {
        atomicStore(&grid_fixed[GRID_FIXED_WORDS * node + word], 0);
    }
}
