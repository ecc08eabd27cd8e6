// pb_iterate_tiled: one PB-MPM iteration on the binned path. One workgroup per occupied grid
// block: it loads the grid velocities of the block's tile into workgroup memory, its threads run
// the iteration of the block's particles (the gather from that copy, then pb_project_particle,
// iteration.wgsl) and scatter them into the workgroup-memory tile (tile.wgsl), then add the tile
// to grid_fixed, as p2g_tiled does for the explicit integrator. Particles do not move during a
// step's iterations, so the bins the step's sort made hold for all of them.
// It gathers from the grid once the step's first grid pass has run (clock.pb_gathering).
// Reads: params, clock, particles, bins, grid_velocity, the scratch. Writes: the velocity and
// affine streams, the scratch (the impulse Λ), grid_fixed, the status counters.

// The grid velocities of the block's tile (BLOCK_REACH³ nodes from its corner): its particles'
// stencils, read from global memory once per workgroup instead of 27 times per particle.
var<workgroup> tile_velocity: array<vec4<f32>, TILE_NODES>;

fn load_tile_velocity(local: u32, start: vec3<i32>) {
    for (var t = local; t < TILE_NODES; t += WORKGROUP_SIZE) {
        let r = BLOCK_REACH;
        let node = start + vec3<i32>(vec3<u32>(t % r, (t / r) % r, t / (r * r)));
        var v = vec4<f32>(0.0);
        if (all(node >= vec3<i32>(0)) && all(node < vec3<i32>(params.node_dims))) {
            let place = grid_place(vec3<u32>(node));
            if (place != NO_SLOT) {
                v = grid_velocity[place];
            }
        }
        tile_velocity[t] = v;
    }
}

// gather (advance.wgsl) from the tile: the same nodes, terms and order of sums, so the same
// result to the bit.
fn gather_from_tile(position: vec3<f32>, start: vec3<i32>) -> Gathered {
    let s = stencil_at(position);
    let first = tile_first_node(s, start, BLOCK_REACH);
    var g = Gathered(vec3<f32>(0.0), mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)));
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                gather_node(&g, s, o, tile_velocity[tile_node_from(first, o, BLOCK_REACH)].xyz);
            }
        }
    }
    return gathered_end(g);
}

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
