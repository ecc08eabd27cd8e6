// grid_update_blocks: the sorted path's grid update, over the touched blocks only (the blocks some
// particle's stencil reaches this substep, listed by bin_offsets): one workgroup of BLOCK_EDGE³
// threads per block, one node each. It also zeroes the node's fixed-point sums once read, which
// is the sorted path's grid clear: every node the sorted P2G writes lies in a touched block, so the
// grid is all zeros again for the next substep without a pass over the dense grid.
//
// Nodes outside the touched blocks keep their last velocity; no particle's stencil reads them this
// substep (g2p reads exactly the stencils the sorted P2G wrote).
//
// With several pages of particles (src/sim/page.rs) each page's touched blocks are updated in
// turn, and a block two pages touch is updated twice: params.keep_grid_sums then leaves the sums in
// place, so the second update reads what the first did and writes the same velocity, and the
// grid is cleared at the start of the next substep instead.
// On a sparse grid every touched block has a pool block (bin_offsets gave it one), unless the
// pool ran out, and then its nodes are skipped.
// It zeroes the block's cell counters too: every cell counter the sort set lies in an occupied
// block, and every occupied block is touched.
// Reads: params, grid_fixed, colliders, bins, block_slots. Writes: grid_velocity, grid_fixed (zeros),
// cell_bins (zeros).

@compute @workgroup_size(64)
fn grid_update_blocks(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    update_touched_node(workgroup, workgroups, local, gravity_impulse());
}
