// p2g_sources: the first half of p2g_gather's stage. Each particle's scatter data (its place in
// its stencil, mass, velocity, and its Scatter's velocity gradient and bound, from the stored
// stress) is computed once and written to scatter_sources at the particle's place in
// particle_order, so the 27 node threads of p2g_gather that read a particle find it contiguous
// with its cell's others.
// One thread per place in particle_order. Reads: params, particles, particle_order. Writes:
// scatter_sources, status counters, and particles only to reset one whose state is not finite.

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g_sources(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let place = flat_index(workgroup, local, workgroups);
    if (place >= params.particle_count) {
        return;
    }
    let index = particle_order[place];
    let p = load_for_scatter(index);
    var source: ScatterSource;
    source.fraction = stencil_at(p.position).fraction;
    let sc = scatter_of(p.velocity, p.mass, scatter_affine(p, index));
    source.mass = sc.mass;
    source.velocity = sc.velocity;
    source.bounded = u32(sc.bounded);
    source.gradient = sc.gradient;
    scatter_sources[place] = source;
}
