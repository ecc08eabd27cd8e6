// bin_dispatch: turn the occupied and touched block counts into the indirect dispatch sizes of
// p2g_tiled and grid_update_blocks, spilling past 65 535 workgroups into y as dispatch_size in
// src/sim/step.rs does (those passes skip the slots past their count). One thread.
// Reads: bin_header counters. Writes: bin_header.p2g_groups, bin_header.update_groups.

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
}
