// pb_iterate_tiled: one PB-MPM iteration on the binned path. One workgroup per occupied grid
// block: it loads the grid velocities of the block's tile into workgroup memory, its threads run
// the iteration of the block's particles (the gather from that copy, then pb_project_particle,
// iteration.wgsl) and scatter them into the workgroup-memory tile (tile.wgsl), then add the tile
// to grid_fixed, as p2g_tiled does for the explicit integrator. Particles do not move during a
// step's iterations, so the bins the step's sort made hold for all of them.
// It gathers from the grid once the step's first grid pass has run (clock.pb_gathering).
// Reads: params, clock, particles, bins, grid_velocity, the scratch. Writes: the velocity and
// affine streams, the scratch (the impulse Λ), grid_fixed, the status counters.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_iterate_tiled(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    tile_clear(local);
    let block = tile_block(workgroup, workgroups);
    let gathering = clock.pb_gathering != 0u;
    if (block.valid && gathering) {
        load_tile_velocity(local, block.corner);
    }
    workgroupBarrier();
    if (block.valid) {
        for (var k = local; k < block.count; k += WORKGROUP_SIZE) {
            let index = particle_order[block.first + k];
            var p = load_for_scatter(index);
            if (gathering) {
                let g = gather_from_tile(p.position, block.corner);
                p.velocity = g.velocity;
                p.affine = g.affine;
            }
            p = pb_project_particle(index, p);
            tile_scatter(p, p.mass * p.affine, block.corner, BLOCK_REACH);
        }
    }
    workgroupBarrier();
    if (block.valid) {
        tile_flush(local, block.corner, BLOCK_REACH);
    }
}
