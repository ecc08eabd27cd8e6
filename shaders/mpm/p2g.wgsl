// p2g: scatter each particle's mass and MLS-MPM momentum (velocity, affine C and the elastic
// stress) to its 27 stencil nodes, as fixed-point i32 atomics.
// Reads: params, particles. Writes: grid_fixed, status.overflow_count.

// Adds one contribution to a node. The mass goes first: if the node's sum would pass the fixed-point
// limit, the contribution is taken back and counted instead, so the sum saturates and never wraps.
// Momentum needs no check of its own: p2g caps each contribution's velocity at max_speed and
// momentum_scale = mass_scale / max_speed, so momentum units never exceed mass units.
fn deposit(node: u32, mass: f32, momentum: vec3<f32>) {
    let q = i32(round(mass * params.mass_scale));
    if (q == 0) {
        return;
    }
    let before = atomicAdd(&grid_fixed[4u * node], q);
    if (before > params.fixed_mass_limit - q) {
        atomicSub(&grid_fixed[4u * node], q);
        atomicAdd(&status.overflow_count, 1u);
        return;
    }
    let p = momentum * params.momentum_scale;
    atomicAdd(&grid_fixed[4u * node + 1u], i32(round(p.x)));
    atomicAdd(&grid_fixed[4u * node + 2u], i32(round(p.y)));
    atomicAdd(&grid_fixed[4u * node + 3u], i32(round(p.z)));
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
