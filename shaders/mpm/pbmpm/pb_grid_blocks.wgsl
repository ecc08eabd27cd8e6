// pb_grid_blocks: pb_grid on the binned path, over the blocks the step's sort listed as touched
// (every node a particle's stencil reaches this step), one workgroup of BLOCK_EDGE³ threads per
// block, one node each, as grid_update_blocks does for the explicit integrator. It zeroes each
// node's sums once read, so after it the grid is all zeros again for the next iteration (no pass
// over the dense grid), and the block's cell counters, which the step's sort set and the next one
// expects to find at zero (bin_clear leaves them to this pass; zeroing them again in later
// iterations changes nothing). Particles keep their positions through a step's iterations, so the
// stencils the iterations gather from are the ones this pass updated.
// With several pages params.keep_grid_sums leaves the sums in place (a block two pages touch is
// updated twice from the same sums), and the grid is cleared whole after each iteration instead.
// CPU twin: src/sim/pbmpm/cpu/grid.rs.
// Its first thread sets clock.pb_gathering, as pb_grid's does.
// Reads: params, clock, grid_fixed, colliders, bins. Writes: grid_velocity, grid_fixed (zeros),
// cell_bins (zeros), clock.pb_gathering.

@compute @workgroup_size(64)
fn pb_grid_blocks(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    if (all(workgroup == vec3<u32>(0u)) && local == 0u) {
        clock.pb_gathering = 1u;
    }
    update_touched_node(workgroup, workgroups, local, vec3<f32>(0.0));
}
