// bin_count: count the particles of each grid block and of each cell within it (the block and
// node of a particle's stencil base, see home_cell in scatter.wgsl), and list each block as it
// becomes occupied: the add that finds its count at zero appends it to the occupied list, which
// bin_offsets then works from instead of visiting every block of the domain. One thread per
// particle; it reads the 16-byte position only. Reads: params, particles. Writes:
// block_bins[].count, cell_bins, block_lists (occupied part), bin_header.occupied_count.
//
// The particles are mostly in block order (src/sim/sort/reorder.rs), so most threads of a workgroup
// count into the same one or two blocks: 256 global atomics on one address. Those of the blocks of
// the workgroup's first and last thread are summed in workgroup memory and added once, which made
// the sort markedly faster (docs/performance.md).

// The blocks of the workgroup's first and last thread (none: 0xffffffff), and their counts.
var<workgroup> lead_blocks: array<u32, 2>;
var<workgroup> lead_counts: array<atomic<u32>, 2>;

// Adds n > 0 to the block's count; the one add that finds it empty lists the block.
fn add_to_block(block: u32, n: u32) {
    if (atomicAdd(&block_bins[block].count, n) == 0u) {
        block_lists[atomicAdd(&bin_header.occupied_count, 1u)] = block;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bin_count(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    let valid = index < params.particle_count;
    var cell = 0u;
    if (valid) {
        cell = home_cell(scatter_position(particle_position[index].xyz));
    }
    let block = select(0xffffffffu, cell / BLOCK_CELLS, valid);
    if (local == 0u) {
        lead_blocks[0] = block;
        atomicStore(&lead_counts[0], 0u);
        atomicStore(&lead_counts[1], 0u);
    }
    if (local == WORKGROUP_SIZE - 1u) {
        lead_blocks[1] = block;
    }
    workgroupBarrier();
    if (valid) {
        // The cell's count as well as the block's: bin_offsets reads the neighbours' block counts.
        // A sparse grid's cell counters are in pool blocks, which bin_offsets hands out after this
        // pass: bin_cells counts the cells there.
        if (!SPARSE_GRID) {
            atomicAdd(&cell_bins[cell], 1u);
        }
        if (block == lead_blocks[0]) {
            atomicAdd(&lead_counts[0], 1u);
        } else if (block == lead_blocks[1]) {
            atomicAdd(&lead_counts[1], 1u);
        } else {
            add_to_block(block, 1u);
        }
    }
    workgroupBarrier();
    if (local < 2u) {
        let n = atomicLoad(&lead_counts[local]);
        if (n > 0u) {
            add_to_block(lead_blocks[local], n);
        }
    }
}
