// clock_gate: turns the page's substep dispatches on or off by clock.running. One thread per page,
// after clock_advance. Every dispatch of a substep is indirect (src/sim/explicit/substep.rs): those of a fixed
// size from the gated entries, which this pass copies from the template the host wrote (on) or
// zeroes (off), and those bin_dispatch sizes from the first entries, which it zeroes when off
// (bin_dispatch, which writes them, is not indirect and writes zeros itself when off). So the host can record more substeps than a frame
// needs, and those past its end cost only empty dispatches.
// Reads: clock.running, the template. Writes: dispatch_args.

// The page's indirect arguments (src/sim/sort/bins.rs): bin_dispatch's BIN_ENTRIES, then the
// GATED_ENTRIES live ones, then their template. Group 1, as for bin_dispatch (src/sim/pipelines.rs).
@group(1) @binding(0) var<storage, read_write> dispatch_args: array<vec4<u32>>;

const BIN_ENTRIES: u32 = 3u;
const GATED_ENTRIES: u32 = 5u;

@compute @workgroup_size(1)
fn clock_gate() {
    let on = clock.running != 0u;
    for (var e = 0u; e < GATED_ENTRIES; e++) {
        let full = dispatch_args[BIN_ENTRIES + GATED_ENTRIES + e];
        dispatch_args[BIN_ENTRIES + e] = select(vec4<u32>(0u), full, on);
    }
    if (!on) {
        for (var e = 0u; e < BIN_ENTRIES; e++) {
            dispatch_args[e] = vec4<u32>(0u);
        }
    }
}
