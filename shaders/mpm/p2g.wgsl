// p2g: scatter each particle's mass and MLS-MPM momentum (velocity, affine C and the elastic
// stress) to its 27 stencil nodes as fixed-point integers.
// Reads: params, particles. Writes: grid_fixed, status counters, and particles only to reset a
// particle whose state is not finite.

// Adds a signed contribution to the 64-bit sum at words (slot, slot + 1): low word as unsigned
// bits, high word signed. atomicAdd returns the low word before the add; only a thread whose add
// carried out of it (or borrowed from it) touches the high word, so almost every add is one atomic
// and the sum is exact (src/sim/fixed_point.rs).
fn add_wide(slot: u32, value: i32) {
    if (value == 0) {
        return;
    }
    let before = bitcast<u32>(atomicAdd(&grid_fixed[slot], value));
    let after = before + bitcast<u32>(value);
    let carry = select(0, 1, after < before);
    let high = select(0, -1, value < 0) + carry;
    if (high != 0) {
        atomicAdd(&grid_fixed[slot + 1u], high);
    }
}

// round(x) as i32. By the choice of scales |x| < 2³⁰; anything past the limit is clamped and
// counted rather than left to the conversion.
fn to_fixed(x: f32) -> i32 {
    let limit = params.contribution_limit;
    if (abs(x) > limit) {
        atomicAdd(&status.overflow_count, 1u);
    }
    return i32(clamp(round(x), -limit, limit));
}

fn deposit(node: u32, mass: f32, momentum: vec3<f32>) {
    let base = GRID_FIXED_WORDS * node;
    add_wide(base, to_fixed(mass * params.mass_scale));
    let p = momentum * params.momentum_scale;
    add_wide(base + 2u, to_fixed(p.x));
    add_wide(base + 4u, to_fixed(p.y));
    add_wide(base + 6u, to_fixed(p.z));
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
    var p = particles[index];
    // A particle that arrives with a non-finite state (from outside: a scene, an edit) is reset to
    // rest and undeformed where it is, and counted, so its mass still reaches the grid.
    let finite = is_finite_vec3(p.position) && is_finite_vec3(p.velocity) && is_finite_mat3(p.affine)
        && is_finite_mat3(p.deformation) && abs(p.plastic_jacobian) < 3.0e38;
    if (!finite) {
        atomicAdd(&status.nonfinite_count, 1u);
        if (!is_finite_vec3(p.position)) {
            p.position = 0.5 * (domain_lo() + domain_hi());
        }
        p.position = clamp(p.position, domain_lo(), domain_hi());
        p.velocity = vec3<f32>(0.0);
        p.affine = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
        p.deformation = IDENTITY3;
        p.plastic_jacobian = 1.0;
        particles[index] = p;
    }
    let s = stencil_at(p.position);
    let tau = kirchhoff_stress(p.deformation, p.plastic_jacobian);
    // D⁻¹ = 4/h² for the quadratic B-spline.
    let inverse_d = 4.0 / (params.cell_size * params.cell_size);
    let affine = (-params.dt * p.volume * inverse_d) * tau + p.mass * p.affine;
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                let u = p.velocity + (affine * stencil_offset(s, o)) / p.mass;
                // A finite state can still produce ±inf here (stress of a wildly deformed F);
                // such a contribution carries no usable direction and is skipped.
                if (!is_finite_vec3(u)) {
                    continue;
                }
                let weighted_mass = stencil_weight(s, o) * p.mass;
                deposit(stencil_node(s, o), weighted_mass, weighted_mass * clamp_speed(u, params.max_speed));
            }
        }
    }
}
