// pb_newton_apply_tiled: pb_newton_apply on the binned paths. One workgroup per occupied grid block
// (the step's sort listed them): it loads the block's tile of grid velocities (the search direction
// p that pb_newton_direction put there) into workgroup memory, its threads gather from that copy,
// take each particle's δτ as pb_newton_apply does and scatter dt V⁰ δτ ∇w into a workgroup-memory
// tile of force sums (tile_scatter_stress), then add the tile to grid_fixed: the same sums as
// pb_newton_apply's (integers, so in any order), with one global add per node and quantity
// instead of one per particle and node. CPU twin: newton.rs, System::apply.
// Reads: params, clock, particles, bins, grid_velocity, pb_solve, reorder_scratch. Writes: grid_fixed, the status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_apply_tiled(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    // The solve met its tolerance in an earlier iteration of this step.
    if (newton_stopped(local)) {
        return;
    }
    tile_clear(local);
    let block = tile_block(workgroup, workgroups);
    if (block.valid) {
        load_tile_velocity(local, block.corner);
    }
    workgroupBarrier();
    if (block.valid) {
        let dt = substep_dt();
        for (var k = local; k < block.count; k += WORKGROUP_SIZE) {
            let index = particle_order[block.first + k];
            let p = load_for_scatter(index);
            let dd = dt * gather_from_tile(p.position, block.corner).affine;
            let stress = newton_operator_stress(material_of(p.material), dd, p.plastic_jacobian, index);
            tile_scatter_stress(p.position, (dt * p.volume) * stress, block.corner, BLOCK_REACH);
        }
    }
    workgroupBarrier();
    if (block.valid) {
        tile_flush(local, block.corner, BLOCK_REACH);
    }
}
