// bin_dispatch: turn the occupied and touched block counts into the indirect dispatch sizes of
// p2g_tiled and grid_update_blocks, spilling past 65 535 workgroups into y as dispatch_size in
// src/sim/step.rs does (those passes skip the slots past their count). One thread.
// Reads: bin_header counters. Writes: dispatch_args.

// The indirect arguments (workgroups x, y, z, unused) of p2g_tiled (and g2p2g), then of
// grid_update_blocks (and p2g_gather): the only binding of group 1, which only this pass's
// layout has, so no dispatch that reads the buffer as indirect arguments has it bound as storage
// (src/sim/pipelines.rs).
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
    dispatch_args[0] = spilled_groups(atomicLoad(&bin_header.occupied_count));
    dispatch_args[1] = spilled_groups(atomicLoad(&bin_header.touched_count));
}
