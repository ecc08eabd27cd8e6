// pb_grid: the grid update of a PB-MPM iteration. Each node's mean velocity over the step (its
// displacement over dt) from the fixed-point sums, then the mouse tool, colliders, walls and the
// speed guard exactly as the explicit grid update applies them, but without gravity, which each
// particle's predicted motion already holds (pb_begin). The sums are zeroed as they are read, so
// the next iteration's scatter starts from an empty grid. CPU twin: src/sim/pbmpm/cpu/grid.rs.
// Its first thread sets clock.pb_gathering: the later iterations gather from this grid.
// Reads: params, clock, grid_fixed, colliders. Writes: grid_velocity, grid_fixed (zeroed),
// clock.pb_gathering.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_grid(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node == 0u) {
        clock.pb_gathering = 1u;
    }
    if (node >= node_count()) {
        return;
    }
    grid_velocity[node] = constrained_node(node, node, vec3<f32>(0.0));
    let base = GRID_FIXED_WORDS * node;
    for (var w = 0u; w < GRID_FIXED_WORDS; w++) {
        atomicStore(&grid_fixed[base + w], 0);
    }
}
