// p2g: scatter each particle's mass and MLS-MPM momentum (velocity, affine C and the elastic
// stress) to its 27 stencil nodes, as fixed-point i32 atomics.
// Reads: params, particles. Writes: grid_fixed, status.overflow_count.

// Adds `value` to one atomic sum unless that would pass `limit` in either direction; returns
// whether it was added. atomicAdd returns the sum before the add, so an add that overshot is seen
// and taken back out: the sum saturates instead of wrapping (src/sim/fixed_point.rs).
fn add_checked(slot: u32, value: i32, limit: i32) -> bool {
    if (value == 0) {
        return true;
    }
    let before = atomicAdd(&grid_fixed[slot], value);
    let over = select((before < -limit - value), (before > limit - value), value > 0);
    if (over) {
        atomicSub(&grid_fixed[slot], value);
        atomicAdd(&status.overflow_count, 1u);
    }
    return !over;
}

// Adds one particle's contribution to a node: mass first, then momentum only if the mass fitted.
fn deposit(node: u32, mass: f32, momentum: vec3<f32>) {
    let q = i32(round(mass * params.mass_scale));
    if (q == 0 || !add_checked(4u * node, q, params.fixed_mass_limit)) {
        return;
    }
    let p = vec3<i32>(round(momentum * params.momentum_scale));
    let momentum_limit = 2147483647;
    add_checked(4u * node + 1u, p.x, momentum_limit);
    add_checked(4u * node + 2u, p.y, momentum_limit);
    add_checked(4u * node + 3u, p.z, momentum_limit);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn p2g(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let p = particles[index];
    let s = stencil_at(p.position);
    let tau = kirchhoff_stress(p.deformation, p.plastic_jacobian);
    // D⁻¹ = 4/h² for the quadratic B-spline.
    let inverse_d = 4.0 / (params.cell_size * params.cell_size);
    let affine = (-params.dt * p.volume * inverse_d) * tau + p.mass * p.affine;
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                var u = p.velocity + (affine * stencil_offset(s, o)) / p.mass;
                let speed = length(u);
                // Written so that NaN fails it too: nothing non-finite reaches the integer sums.
                if (!(speed < 3.0e38)) {
                    continue;
                }
                if (speed > params.max_speed) {
                    u *= params.max_speed / speed;
                }
                let weighted_mass = stencil_weight(s, o) * p.mass;
                deposit(stencil_node(s, o), weighted_mass, weighted_mass * u);
            }
        }
    }
}
