// bin_dispatch: turn the block counts into indirect dispatch sizes, spilling past 65 535
// workgroups into y as dispatch_size in src/sim/record.rs does (the passes skip the slots past their
// count). It runs twice in a sort: after bin_count, for bin_offsets (eight threads per occupied
// block); and at the end, for p2g_tiled (one workgroup per occupied block) and grid_update_blocks
// (one per touched block), when it also notes how many blocks the touched list holds, for the next
// sort's bin_clear. One thread.
// Reads: bin_header counters, clock.running. Writes: dispatch_args, bin_header.listed_touched.

// The indirect arguments (workgroups x, y, z, unused) of p2g_tiled (and g2p2g), of
// grid_update_blocks (and p2g_gather), and of bin_offsets: the only binding of group 1, which only
// this pass's layout has, so no dispatch that reads the buffer as indirect arguments has it bound
// as storage (src/sim/pipelines.rs).
@group(1) @binding(0) var<storage, read_write> dispatch_args: array<vec4<u32>, 3>;

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
    // Past the frame's end the substep's other passes are off (clock_gate), and so must be those
    // dispatched from here; the bins stay as the last sort left them. bin_dispatch writes the
    // indirect arguments, so it cannot be dispatched from them, and checks the clock itself.
    if (clock.running == 0u) {
        for (var e = 0u; e < 3u; e++) {
            dispatch_args[e] = vec4<u32>(0u);
        }
        return;
    }
    let occupied = atomicLoad(&bin_header.occupied_count);
    let touched = atomicLoad(&bin_header.touched_count);
    dispatch_args[0] = spilled_groups(occupied);
    dispatch_args[1] = spilled_groups(touched);
    dispatch_args[2] = spilled_groups((REACHED_BLOCKS * occupied + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE);
    bin_header.listed_touched = touched;
}
