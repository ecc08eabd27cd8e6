// bin_dispatch: turn the occupied and touched block counts into the indirect dispatch sizes of
// p2g_tiled and grid_update_blocks, spilling past 65 535 workgroups into y as dispatch_size in
// src/sim/step.rs does (those passes skip the slots past their count). One thread.
// Reads: bin_header counters. Writes: bin_header.p2g_groups, bin_header.update_groups, and the same
// into dispatch_args, which the indirect dispatches read.

// The indirect arguments of p2g_tiled (and g2p2g) and of grid_update_blocks (and p2g_gather): the
// only binding of group 1, which only this pass has, so the buffer is never bound as storage
// where it is read as indirect arguments (src/sim/pipelines.rs).
@group(1) @binding(0) var<storage, read_write> dispatch_args: array<vec4<u32>, 2>;

fn spilled_groups(count: u32) -> vec4<u32> {
    let limit = 65535u;
    if (count <= limit) {
        return vec4<u32>(count, 1u, 1u, 0u);
    }
    let y = (count + limit - 1u) / limit;
    return vec4<u32>((count + y - 1u) / y, y, 1u, 0u);
}

@compute @workgroup_size(1)
fn bin_dispatch() {
    bin_header.p2g_groups = spilled_groups(atomicLoad(&bin_header.occupied_count));
    bin_header.update_groups = spilled_groups(atomicLoad(&bin_header.touched_count));
    dispatch_args[0] = bin_header.p2g_groups;
    dispatch_args[1] = bin_header.update_groups;
}
