// bin_offsets: give every occupied block a contiguous range of particle_order, each of its cells a
// contiguous part of it in cell order (the counts become first places within the block), and list
// the occupied blocks (p2g_tiled's work) and the touched ones (grid_update_blocks's work). A block is
// touched if it or one of its seven lower neighbours is occupied: a stencil reaches at most one
// block up on each axis from its base's block.
//
// On a sparse grid (params.grid_pool_blocks > 0) a touched block that has no pool block yet (one
// page's bin_offsets after another's, or bin_clear emptied the map) takes the next one: the pool's
// blocks are given anew every substep. A block past the pool's end gets POOL_FULL (grid_place then
// skips its nodes, and later pages do not ask for it again), and status.grid_blocks_used counts it
// all the same, so the host sees how many the substep needed (src/sim/grid_pool.rs).
//
// Ranges, list places and pool blocks are taken with one global atomic per workgroup: each thread first
// reserves its part in workgroup memory, then thread 0 reserves the workgroup's total. The order
// of the ranges is therefore arbitrary, which nothing depends on.
// One thread per grid block. Reads: params, block_bins[].count, cell_bins, block_slots. Writes:
// block_bins[].offset, cell_bins, block_lists, bin_header counters, and on a sparse grid
// block_slots and status.grid_blocks_used/peak.

var<workgroup> group_particles: atomic<u32>;
var<workgroup> group_occupied: atomic<u32>;
var<workgroup> group_touched: atomic<u32>;
var<workgroup> group_slots: atomic<u32>;
var<workgroup> group_base: vec4<u32>;

fn block_is_occupied(coords: vec3<i32>) -> bool {
    if (any(coords < vec3<i32>(0))) {
        return false;
    }
    return atomicLoad(&block_bins[block_index(vec3<u32>(coords))].count) > 0u;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_offsets(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    if (local == 0u) {
        atomicStore(&group_particles, 0u);
        atomicStore(&group_occupied, 0u);
        atomicStore(&group_touched, 0u);
        atomicStore(&group_slots, 0u);
    }
    workgroupBarrier();

    let block = flat_index(workgroup, local, workgroups);
    let valid = block < block_count();
    var count = 0u;
    var touched = false;
    if (valid) {
        count = atomicLoad(&block_bins[block].count);
        let c = vec3<i32>(block_coords(block));
        for (var k = 0u; k < 8u; k++) {
            let lower = c - vec3<i32>(vec3<u32>(k & 1u, (k >> 1u) & 1u, (k >> 2u) & 1u));
            touched = touched || block_is_occupied(lower);
        }
    }
    var particle_place = 0u;
    var occupied_place = 0u;
    var touched_place = 0u;
    if (count > 0u) {
        particle_place = atomicAdd(&group_particles, count);
        occupied_place = atomicAdd(&group_occupied, 1u);
    }
    let needs_slot = touched && params.grid_pool_blocks > 0u && block_slots[block] == NO_SLOT;
    var slot_place = 0u;
    if (touched) {
        touched_place = atomicAdd(&group_touched, 1u);
    }
    if (needs_slot) {
        slot_place = atomicAdd(&group_slots, 1u);
    }
    workgroupBarrier();
    if (local == 0u) {
        // Only a workgroup with something to reserve touches the global counters: in a large,
        // mostly empty domain most workgroups have nothing, and their adds of zero to the same
        // four addresses would still queue behind each other.
        var reserved = vec4<u32>(0u);
        let touched_here = atomicLoad(&group_touched);
        if (touched_here > 0u) {
            let particles = atomicLoad(&group_particles);
            let occupied = atomicLoad(&group_occupied);
            if (particles > 0u) {
                reserved.x = atomicAdd(&bin_header.particle_total, particles);
            }
            if (occupied > 0u) {
                reserved.y = atomicAdd(&bin_header.occupied_count, occupied);
            }
            reserved.z = atomicAdd(&bin_header.touched_count, touched_here);
            let slots = atomicLoad(&group_slots);
            if (slots > 0u) {
                reserved.w = atomicAdd(&status.grid_blocks_used, slots);
                atomicMax(&status.grid_blocks_peak, reserved.w + slots);
            }
        }
        group_base = reserved;
    }
    let base = workgroupUniformLoad(&group_base);
    if (count > 0u) {
        block_bins[block].offset = base.x + particle_place;
        block_lists[base.y + occupied_place] = block;
        // Exclusive prefix sum of the block's cell counts, in place (on a sparse grid the cells
        // are counted after this pass: bin_cells, bin_cell_offsets).
        if (params.grid_pool_blocks == 0u) {
            place_cells(block * BLOCK_CELLS);
        }
    }
    if (touched) {
        block_lists[block_count() + base.z + touched_place] = block;
    }
    if (needs_slot) {
        let slot = base.w + slot_place;
        block_slots[block] = select(POOL_FULL, slot, slot < params.grid_pool_blocks);
    }
}
