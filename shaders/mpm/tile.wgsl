// The workgroup-memory tile of the sorted path's P2G (p2g_tiled, p2g_tiled_subgroup) and of the
// fused path's g2p2g: one workgroup per occupied grid block accumulates its particles'
// contributions into `reach`³ nodes of 64-bit sums from node `start`, then adds each non-zero sum
// to grid_fixed with one global 64-bit add. The P2G kernels' stencils lie in BLOCK_REACH³ nodes
// from the block's corner; g2p2g's, from particles that moved since they were binned, in
// FUSED_REACH³ nodes from one node before it. A module that does not use the tile does not
// allocate it.

// Nodes of the tile: BLOCK_REACH³, or FUSED_REACH³ where the host overrides it (g2p2g, see
// MpmPass::tile_nodes), so each pass allocates only the workgroup memory it needs.
override TILE_NODES: u32 = 216u;
override TILE_WORDS: u32 = 8u * TILE_NODES; // · GRID_FIXED_WORDS

// The tile's 64-bit sums (a node can gather more than 2³¹ units), one array per word: low words of
// mass, momentum x, y, z, then the high words, each TILE_NODES long. Unlike grid_fixed's eight
// words per node, consecutive nodes then sit in consecutive memory banks: with an 8-word stride
// the threads of a warp adding to different nodes met in 4 of the 32 banks.
var<workgroup> tile: array<atomic<i32>, TILE_WORDS>;

fn tile_slot(node: u32, quantity: u32, high: u32) -> u32 {
    return (4u * high + quantity) * TILE_NODES + node;
}

// Adds the 64-bit value (high, low) to a tile sum, as add_wide_pair does to grid_fixed.
fn tile_add_pair(node: u32, quantity: u32, low: u32, high: i32) {
    var carry = 0;
    if (low != 0u) {
        let before = bitcast<u32>(atomicAdd(&tile[tile_slot(node, quantity, 0u)], bitcast<i32>(low)));
        carry = select(0, 1, before + low < before);
    }
    if (high + carry != 0) {
        atomicAdd(&tile[tile_slot(node, quantity, 1u)], high + carry);
    }
}

// Adds four 64-bit quantities (a contribution, or the sum of several) to tile node t.
fn tile_add_units(t: u32, w: Wide4) {
    tile_add_pair(t, 0u, w.low.x, w.high.x);
    tile_add_pair(t, 1u, w.low.y, w.high.y);
    tile_add_pair(t, 2u, w.low.z, w.high.z);
    tile_add_pair(t, 3u, w.low.w, w.high.w);
}

// Zeroes the tile; every thread of the workgroup calls it, then a barrier follows.
fn tile_clear(local: u32) {
    for (var i = local; i < TILE_WORDS; i += WORKGROUP_SIZE) {
        atomicStore(&tile[i], 0);
    }
}

// The occupied block of this workgroup (bin_offsets listed them), or none for the few slots the
// dispatch, spilled into y, runs past the occupied count.
struct TileBlock {
    valid: bool,
    // Its first node.
    corner: vec3<i32>,
    // Its range of particle_order.
    first: u32,
    count: u32,
}

fn tile_block(workgroup: vec3<u32>, workgroups: vec3<u32>) -> TileBlock {
    var b: TileBlock;
    let slot = workgroup_slot(workgroup, workgroups);
    b.valid = slot < atomicLoad(&bin_header.occupied_count);
    if (b.valid) {
        let block = block_lists[slot];
        b.corner = vec3<i32>(block_coords(block) * BLOCK_EDGE);
        b.count = atomicLoad(&block_bins[block].count);
        b.first = block_bins[block].offset;
    }
    return b;
}

// Whether the stencil of a particle at `position` lies in the tile of reach³ nodes from `start`.
// For the P2G kernels (start: the block's corner, reach: BLOCK_REACH) it always does: the base is
// clamped the same way when binning (home_cell), and clamping is monotone.
fn stencil_in_tile(position: vec3<f32>, start: vec3<i32>, reach: u32) -> bool {
    let t = vec3<i32>(home_node(position)) - start;
    return all(t >= vec3<i32>(0)) && all(t + vec3<i32>(2) < vec3<i32>(i32(reach)));
}

// The tile index of stencil node (0,0,0) of a particle with stencil `s`, for the tile of reach³
// nodes from `start` that holds the stencil (stencil_in_tile). Such a stencil lies inside the grid
// (it is a scatter_position's), so these are the nodes stencil_node would take, without its
// clamp per node.
fn tile_first_node(s: Stencil, start: vec3<i32>, reach: u32) -> u32 {
    let t = vec3<u32>(s.base - start);
    return t.x + reach * (t.y + reach * t.z);
}

// The tile index of stencil node o, given the stencil's tile_first_node.
fn tile_node_from(first: u32, o: vec3<u32>, reach: u32) -> u32 {
    return first + o.x + reach * (o.y + reach * o.z);
}

// Scatters particle p (at its scatter_position, with MLS-MPM `affine` momentum, its stencil in the
// tile of reach³ nodes from `start`) into the tile: the same contributions as p2g's.
fn tile_scatter(p: Particle, affine: mat3x3<f32>, start: vec3<i32>, reach: u32) {
    let s = stencil_at(p.position);
    let sc = scatter_of(p.velocity, p.mass, affine);
    let first = tile_first_node(s, start, reach);
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                let c = contribution(sc, s, o);
                if (!c.valid) {
                    continue;
                }
                tile_add_units(tile_node_from(first, o, reach), wide4(c.units));
            }
        }
    }
}

// Adds the tile's non-zero sums to grid_fixed, one thread per (tile node, quantity): consecutive
// threads add to consecutive words. After a barrier that follows the last tile add. The tile's
// TILE_NODES are reach³.
fn tile_flush(local: u32, start: vec3<i32>, reach: u32) {
    for (var i = local; i < TILE_NODES * 4u; i += WORKGROUP_SIZE) {
        let t = i / 4u;
        let q = i % 4u;
        let low = bitcast<u32>(atomicLoad(&tile[tile_slot(t, q, 0u)]));
        let high = atomicLoad(&tile[tile_slot(t, q, 1u)]);
        let node = start + vec3<i32>(vec3<u32>(t % reach, (t / reach) % reach, t / (reach * reach)));
        if ((low != 0u || high != 0) && all(node >= vec3<i32>(0)) && all(node < vec3<i32>(params.node_dims))) {
            let place = grid_place(vec3<u32>(node));
            if (place != NO_SLOT) {
                add_wide_pair(GRID_FIXED_WORDS * place + 2u * q, low, high);
            }
        }
    }
}

// The grid velocities of the block's tile (BLOCK_REACH³ nodes from its corner) for the PB-MPM
// passes that gather from it (pb_iterate_tiled, pb_newton_apply_tiled): its particles' stencils,
// read from global memory once per workgroup instead of 27 times per particle.
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

// gather (advance.wgsl) from the tile of the grid velocities: the same nodes, terms and order of
// sums, so the same result to the bit.
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
