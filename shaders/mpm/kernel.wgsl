// The quadratic B-spline interpolation stencil shared by p2g and g2p.

struct Stencil {
    // Grid node of stencil offset (0,0,0); nodes base + {0,1,2}³ are touched.
    base: vec3<i32>,
    // Particle position relative to base, in cells: in [0.5, 1.5) per axis.
    fraction: vec3<f32>,
    // weights[o] holds the per-axis weights of offset o.
    weights: array<vec3<f32>, 3>,
}

fn stencil_at(position: vec3<f32>) -> Stencil {
    let xg = (position - params.grid_origin) / params.cell_size;
    let base = vec3<i32>(floor(xg - vec3<f32>(0.5)));
    let f = xg - vec3<f32>(base);
    var s: Stencil;
    s.base = base;
    s.fraction = f;
    s.weights = axis_weights(f);
    return s;
}

// The quadratic B-spline's per-axis weights of offsets 0, 1, 2 for a particle at `fraction`
// (Stencil::fraction, in [0.5, 1.5) per axis).
fn axis_weights(fraction: vec3<f32>) -> array<vec3<f32>, 3> {
    let f = fraction;
    return array<vec3<f32>, 3>(
        0.5 * (vec3<f32>(1.5) - f) * (vec3<f32>(1.5) - f),
        vec3<f32>(0.75) - (f - vec3<f32>(1.0)) * (f - vec3<f32>(1.0)),
        0.5 * (f - vec3<f32>(0.5)) * (f - vec3<f32>(0.5)),
    );
}

// The per-axis weights of offset o for a particle at `fraction`: axis_weights chosen per axis
// with select, without indexing an array by a loop variable (which a CPU adapter spills).
fn offset_weights(fraction: vec3<f32>, o: vec3<u32>) -> vec3<f32> {
    let w = axis_weights(fraction);
    return select(select(w[2], w[1], o == vec3<u32>(1u)), w[0], o == vec3<u32>(0u));
}

// The weight of stencil node o: per-axis weights chosen with select, so that no array is indexed
// by a loop counter (a driver that does not unroll the stencil loops would keep the array in
// local memory).
fn stencil_weight(s: Stencil, o: vec3<u32>) -> f32 {
    let w = select(select(s.weights[2], s.weights[1], o == vec3<u32>(1u)), s.weights[0], o == vec3<u32>(0u));
    return w.x * w.y * w.z;
}

// Node position minus particle position, in metres.
fn stencil_offset(s: Stencil, o: vec3<u32>) -> vec3<f32> {
    return node_offset(s.fraction, o);
}

// stencil_offset for a particle at `fraction` (Stencil::fraction).
fn node_offset(fraction: vec3<f32>, o: vec3<u32>) -> vec3<f32> {
    return (vec3<f32>(o) - fraction) * params.cell_size;
}

// Flat index of stencil node (0,0,0), its base clamped so that all 27 nodes lie in the grid: for a
// particle clamped to the domain box the clamp changes nothing (as in stencil_node), and it guards
// the indexing of stencil_node_from for every node with one clamp instead of 27.
fn stencil_first_node(s: Stencil) -> u32 {
    return node_index(stencil_first_coords(s));
}

// The node stencil_first_node flattens: the base clamped so that all 27 nodes lie in the grid.
fn stencil_first_coords(s: Stencil) -> vec3<u32> {
    return vec3<u32>(clamp(s.base, vec3<i32>(0), vec3<i32>(params.node_dims) - vec3<i32>(3)));
}

// Flat index of stencil node o, given the stencil's stencil_first_node.
fn stencil_node_from(first: u32, o: vec3<u32>) -> u32 {
    return first + o.x + params.node_dims.x * (o.y + params.node_dims.y * o.z);
}

// Flat index of stencil node o. Particles are clamped to the domain box, whose stencil lies inside
// the padded grid; the clamp here is a second guard so that no state can index outside the buffer.
fn stencil_node(s: Stencil, o: vec3<u32>) -> u32 {
    let n = clamp(s.base + vec3<i32>(o), vec3<i32>(0), vec3<i32>(params.node_dims) - vec3<i32>(1));
    return node_index(vec3<u32>(n));
}
