// g2p2g: the fused path's pass (after Claymore, Wang et al. 2020): one substep's g2p and the next
// substep's P2G in one pass, so each particle is read and written once per substep instead of
// read by P2G, then read and written by g2p.
//
// One workgroup per block occupied at the last sort. Each thread takes the block's particles in
// turn: it updates one from grid_velocity as g2p does (advanced), checks it as P2G does
// (checked_for_scatter), writes it back, and scatters it from its new position into the
// workgroup's tile, which then goes to grid_fixed as in p2g_tiled. The grid is double-buffered:
// the pass reads the velocities the last grid update wrote and adds to the sums it zeroed.
//
// A particle moves at most max_speed · dt in a substep; where that is under a cell its new stencil
// lies in the FUSED_REACH³ nodes from one node before its block's corner. One whose stencil leaves
// them scatters straight to grid_fixed, as p2g does. The sort that follows bins the new positions, so
// grid_update_blocks visits every node this pass added to.
//
// The stress is taken from the plasticity step's SVD of the new F (kirchhoff_stress_svd) instead of
// a second SVD, which costs time (docs/performance.md). The sorted path's g2p stores the stress
// the same way, so the two paths agree (tests/sorted_path.rs).
// Reads: params, grid_velocity, particles, bins. Writes: particles, grid_fixed, status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn g2p2g(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    tile_clear(local);
    workgroupBarrier();
    let block = tile_block(workgroup, workgroups);
    let start = block.corner - vec3<i32>(1);
    if (block.valid) {
        if (local == 0u) {
            atomicAdd(&status.fused_count, block.count);
        }
        for (var k = local; k < block.count; k += WORKGROUP_SIZE) {
            let index = particle_order[block.first + k];
            let a = advanced(load_particle(index));
            let checked = checked_for_scatter(a.particle);
            store_particle(index, checked.particle);
            // The stress from the plasticity step's SVD of the new F (a reset particle is at rest).
            var tau = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
            if (!checked.reset) {
                let m = material_of(checked.particle.material);
                let j = a.sigma.x * a.sigma.y * a.sigma.z;
                tau = symmetric_stress(kirchhoff_stress_svd(m, a.u, a.sigma, checked.particle.plastic_jacobian, checked.particle.damage) + viscous_stress(m, checked.particle.affine, j));
            }
            // Kept with the particle for a P2G kernel that follows (the next run's first substep).
            store_stress(index, tau);
            let q = at_scatter_position(checked.particle);
            let affine = affine_momentum(q, tau);
            // Decided per particle, not per node: a per-node fallback in tile_scatter's loop made
            // the loop 50 % slower (measured in p2g_tiled, which shares it).
            if (stencil_in_tile(q.position, start, FUSED_REACH)) {
                tile_scatter(q, affine, start, FUSED_REACH);
            } else {
                grid_scatter(q, affine);
            }
        }
    }
    workgroupBarrier();
    if (block.valid) {
        tile_flush(local, start, FUSED_REACH);
    }
}
