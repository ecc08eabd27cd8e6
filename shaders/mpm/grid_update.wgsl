// grid_update: momentum → velocity, gravity, the domain-wall boundary condition with Coulomb
// friction, and the speed cap.
// Reads: params, grid_fixed. Writes: grid_velocity (xyz velocity, w mass).

// Removes the normal part of v at a wall with inward normal n (sticky: all of v) and applies
// Coulomb friction to what is left.
fn apply_wall(v: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    if (params.boundary_kind == BOUNDARY_STICKY) {
        return vec3<f32>(0.0);
    }
    let vn = dot(v, n);
    if (params.boundary_kind == BOUNDARY_SEPARATE && vn >= 0.0) {
        return v;
    }
    let vt = v - vn * n;
    let tangential_speed = length(vt);
    let friction_loss = params.boundary_friction * abs(vn);
    if (tangential_speed <= friction_loss) {
        return vec3<f32>(0.0);
    }
    return vt * (1.0 - friction_loss / tangential_speed);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn grid_update(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let mass_fixed = atomicLoad(&grid_fixed[4u * node]);
    if (mass_fixed <= 0) {
        grid_velocity[node] = vec4<f32>(0.0);
        return;
    }
    let mass = f32(mass_fixed) / params.mass_scale;
    let momentum = vec3<f32>(
        f32(atomicLoad(&grid_fixed[4u * node + 1u])),
        f32(atomicLoad(&grid_fixed[4u * node + 2u])),
        f32(atomicLoad(&grid_fixed[4u * node + 3u])),
    ) / params.momentum_scale;
    var v = momentum / mass + params.dt * params.gravity;

    let nx = params.node_dims.x;
    let ny = params.node_dims.y;
    let cell = vec3<u32>(node % nx, (node / nx) % ny, node / (nx * ny));
    for (var axis = 0u; axis < 3u; axis++) {
        var n = vec3<f32>(0.0);
        if (cell[axis] <= params.wall_lo[axis]) {
            n[axis] = 1.0;
            v = apply_wall(v, n);
        }
        if (cell[axis] >= params.wall_hi[axis]) {
            n[axis] = -1.0;
            v = apply_wall(v, n);
        }
    }

    let speed = length(v);
    if (speed > params.max_speed) {
        v *= params.max_speed / speed;
    }
    grid_velocity[node] = vec4<f32>(v, mass);
}
