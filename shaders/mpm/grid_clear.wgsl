// grid_clear: zero every node's fixed-point mass and momentum before p2g accumulates into them
// (every node of the dense grid, or every block of a sparse grid's pool).
// One thread per 32-bit word (GRID_FIXED_WORDS per node), so consecutive threads store consecutive
// words: one thread per node striding over its eight words was 8× slower on the H100.
// Reads: params. Writes: grid_fixed.

@compute @workgroup_size(WORKGROUP_SIZE)
fn grid_clear(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let word = flat_index(workgroup, local, workgroups);
    if (word >= arrayLength(&grid_fixed)) {
        return;
    }
    atomicStore(&grid_fixed[word], 0);
}
