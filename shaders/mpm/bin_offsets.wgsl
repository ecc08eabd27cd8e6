// bin_offsets: give every occupied block a contiguous range of particle_order, each of its cells a
// contiguous part of it in cell order (the counts become first places within the block), and list
// the touched blocks (grid_update_blocks's work). bin_count listed the occupied ones (p2g_tiled's
// work). A block is touched if it or one of its seven lower neighbours is occupied: a stencil
// reaches at most one block up on each axis from its base's block.
//
// It works from the occupied list, not over every block of the domain (docs/performance.md,
// "Occupied-block lists"): REACHED_BLOCKS threads per occupied block, thread k for the block's
// neighbour k up (k = 0: the block itself, which also takes the block's range). Up to eight
// occupied blocks reach the same block; the first thread to set its `listed` mark lists it.
// On a dense grid the eight threads also turn the block's cell counts into first places
// (place_cells_together in scatter.wgsl).
//
// On a sparse grid (params.grid_pool_blocks > 0) a touched block that has no pool block yet (one
// page's bin_offsets after another's, or bin_clear emptied its entry) takes the next one: the
// pool's blocks are given anew every substep. A block past the pool's end gets POOL_FULL
// (grid_place then skips its nodes, and later pages do not ask for it again), and
// status.grid_blocks_used counts it all the same, so the host sees how many the substep needed
// (src/sim/grid_pool.rs).
//
// Ranges, list places and pool blocks are taken with one global atomic per workgroup: each thread
// first reserves its part in workgroup memory, then thread 0 reserves the workgroup's total. The
// order of the ranges is therefore arbitrary, which nothing depends on.
// Dispatched from dispatch_args[2] (bin_dispatch). Reads: params, bin_header.occupied_count,
// block_lists (occupied part), block_bins[].count, cell_bins, block_slots. Writes:
// block_bins[].offset and .listed, cell_bins, block_lists (touched part), bin_header counters, and
// on a sparse grid block_slots and status.grid_blocks_used/peak.

var<workgroup> group_particles: atomic<u32>;
var<workgroup> group_touched: atomic<u32>;
var<workgroup> group_slots: atomic<u32>;
var<workgroup> group_base: vec3<u32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_offsets(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    if (local == 0u) {
        atomicStore(&group_particles, 0u);
        atomicStore(&group_touched, 0u);
        atomicStore(&group_slots, 0u);
    }
    workgroupBarrier();

    let index = flat_index(workgroup, local, workgroups);
    let entry = index / REACHED_BLOCKS;
    let k = index % REACHED_BLOCKS;
    var occupied = 0xffffffffu;
    var count = 0u;
    var reached = 0xffffffffu;
    if (entry < atomicLoad(&bin_header.occupied_count)) {
        occupied = block_lists[entry];
        if (k == 0u) {
            count = atomicLoad(&block_bins[occupied].count);
        }
        let up = block_coords(occupied) + vec3<u32>(k & 1u, (k >> 1u) & 1u, (k >> 2u) & 1u);
        if (all(up < block_dims())) {
            reached = block_index(up);
        }
    }
    // The first of the threads that reach a block lists it.
    let touched = reached != 0xffffffffu && atomicExchange(&block_bins[reached].listed, 1u) == 0u;
    var particle_place = 0u;
    if (count > 0u) {
        particle_place = atomicAdd(&group_particles, count);
    }
    var touched_place = 0u;
    if (touched) {
        touched_place = atomicAdd(&group_touched, 1u);
    }
    let needs_slot = touched && params.grid_pool_blocks > 0u && block_slot(reached) == NO_SLOT;
    var slot_place = 0u;
    if (needs_slot) {
        slot_place = atomicAdd(&group_slots, 1u);
    }
    workgroupBarrier();
    if (local == 0u) {
        // Only what a workgroup has to reserve goes to the global counters.
        var reserved = vec3<u32>(0u);
        let particles = atomicLoad(&group_particles);
        if (particles > 0u) {
            reserved.x = atomicAdd(&bin_header.particle_total, particles);
        }
        let touched_here = atomicLoad(&group_touched);
        if (touched_here > 0u) {
            reserved.y = atomicAdd(&bin_header.touched_count, touched_here);
        }
        let slots = atomicLoad(&group_slots);
        if (slots > 0u) {
            reserved.z = atomicAdd(&status.grid_blocks_used, slots);
            atomicMax(&status.grid_blocks_peak, reserved.z + slots);
        }
        group_base = reserved;
    }
    let base = workgroupUniformLoad(&group_base);
    if (count > 0u) {
        block_bins[occupied].offset = base.x + particle_place;
    }
    if (touched) {
        block_lists[block_count() + base.y + touched_place] = reached;
    }
    if (needs_slot) {
        let slot = base.z + slot_place;
        set_block_slot(reached, select(POOL_FULL, slot, slot < params.grid_pool_blocks));
    }
    // A dense grid's cell places (a sparse grid's cells are counted after this pass: bin_cells,
    // bin_cell_offsets).
    let places_cells = occupied != 0xffffffffu && params.grid_pool_blocks == 0u;
    place_cells_together(occupied * BLOCK_CELLS, k, local, places_cells);
}
