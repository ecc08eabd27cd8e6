// What grid_update and grid_update_blocks share: one node's momentum → velocity, gravity, the tool,
// the colliders, the domain-wall boundary condition with Coulomb friction, and the speed cap.

// Coulomb friction on the tangential velocity vt of a contact with normal velocity vn (along the
// inward normal, negative when approaching). Only in contact: the normal impulse per unit mass is
// max(−vn, 0), so a node moving away keeps vt; otherwise vt stops if |vt| ≤ μ·(−vn) and loses
// μ·(−vn) of its length if not (as coulomb_friction in src/sim/cpu/grid_update.rs).
fn coulomb_friction(vt: vec3<f32>, vn: f32, friction: f32) -> vec3<f32> {
    let tangential_speed = length(vt);
    let friction_loss = friction * max(-vn, 0.0);
    if (tangential_speed <= friction_loss) {
        return vec3<f32>(0.0);
    }
    return vt * (1.0 - friction_loss / tangential_speed);
}

// Removes the normal part of v at a wall with inward normal n (sticky: all of v; separate: only
// when moving into the wall) and applies Coulomb friction to what is left.
fn apply_wall(v: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    if (params.boundary_kind == BOUNDARY_STICKY) {
        return vec3<f32>(0.0);
    }
    let vn = dot(v, n);
    if (params.boundary_kind == BOUNDARY_SEPARATE && vn >= 0.0) {
        return v;
    }
    return coulomb_friction(v - vn * n, vn, params.boundary_friction);
}

// The grab/repel tool (src/sim/interaction.rs): inside its sphere the node velocity is blended
// toward a target by (1 − exp(−rate·dt)) · (1 − (r/R)²)².
fn apply_interaction(v: vec3<f32>, position: vec3<f32>) -> vec3<f32> {
    if (params.interaction_mode == INTERACTION_NONE) {
        return v;
    }
    let offset = position - params.interaction_center;
    let r = length(offset);
    if (r >= params.interaction_radius) {
        return v;
    }
    let q = r / params.interaction_radius;
    let falloff = (1.0 - q * q) * (1.0 - q * q);
    var goal = params.interaction_velocity;
    if (params.interaction_mode == INTERACTION_REPEL) {
        goal = select(vec3<f32>(0.0), offset / r, r > 0.0) * params.repel_speed;
    }
    let blend = (1.0 - exp(-params.interaction_rate * substep_dt())) * falloff;
    return v + (goal - v) * blend;
}

// The colliders' condition (its CPU twin: src/sim/cpu/colliders.rs, apply_colliders): at or inside a collider the
// node velocity is constrained relative to the collider's own velocity, with the collider's
// boundary kind and friction. The frame's start and end states are blended by substep_blend().
fn apply_colliders(v: vec3<f32>, node: u32) -> vec3<f32> {
    let a = colliders[node];
    let b = colliders_end[node];
    let t = substep_blend();
    let distance = mix(a.distance, b.distance, t);
    let surface = select(b.surface, a.surface, t < 0.5);
    if (distance > 0.0 || surface == NO_COLLIDER) {
        return v;
    }
    let s = collider_surfaces[surface];
    let vc = mix(a.velocity, b.velocity, t);
    let blended_normal = mix(a.normal, b.normal, t);
    let normal_length = length(blended_normal);
    if (s.kind == BOUNDARY_STICKY || normal_length < 1.0e-6) {
        return vc;
    }
    let n = blended_normal / normal_length;
    let relative = v - vc;
    let vn = dot(relative, n);
    if (s.kind == BOUNDARY_SEPARATE && vn >= 0.0) {
        return v;
    }
    return vc + coulomb_friction(relative - vn * n, vn, s.friction);
}

// The 64-bit sum at words (slot, slot + 1), converted to f32 (see add_wide in scatter.wgsl). The low
// word is read as signed and the high word adjusted to match, so a small negative sum (high = −1,
// low near 2³²) converts exactly instead of cancelling two numbers near 2³² in f32.
fn read_wide(slot: u32) -> f32 {
    let low = atomicLoad(&grid_fixed[slot]);
    let high = atomicLoad(&grid_fixed[slot + 1u]) + select(0, 1, low < 0);
    return f32(high) * 4294967296.0 + f32(low);
}

// The new velocity (xyz, m/s) and mass (w, kg) of the node at `place` in the grid (grid_place)
// and `node` in the dense grid (node_index: its position, and its collider state), from its
// fixed-point sums.
fn updated_node(place: u32, node: u32) -> vec4<f32> {
    return constrained_node(place, node, gravity_impulse());
}

// The explicit substep's velocity change from gravity, `dt·g`: its grid updates (updated_node,
// grid_update_blocks) add it before the conditions.
fn gravity_impulse() -> vec3<f32> {
    return substep_dt() * params.gravity;
}

// updated_node with `dv` for the velocity change before the conditions: the explicit substep's
// gravity impulse, or zero for PB-MPM, whose particles carry gravity in their predicted motion.
fn constrained_node(place: u32, node: u32, dv: vec3<f32>) -> vec4<f32> {
    let base = GRID_FIXED_WORDS * place;
    let mass = read_wide(base) / params.mass_scale;
    if (mass <= 0.0) {
        return vec4<f32>(0.0);
    }
    let momentum = vec3<f32>(read_wide(base + 2u), read_wide(base + 4u), read_wide(base + 6u))
        / params.momentum_scale;
    return vec4<f32>(node_conditions(momentum / mass + dv, node), mass);
}

// The conditions on a node's velocity `v` (node `node` in the dense grid: its position, and its
// collider state), in order: the mouse tool, the colliders, the walls, the speed guard.
fn node_conditions(velocity: vec3<f32>, node: u32) -> vec3<f32> {
    var v = velocity;
    let nx = params.node_dims.x;
    let ny = params.node_dims.y;
    let cell = vec3<u32>(node % nx, (node / nx) % ny, node / (nx * ny));
    v = apply_interaction(v, params.grid_origin + vec3<f32>(cell) * params.cell_size);
    if (params.collider_count > 0u) {
        v = apply_colliders(v, node);
    }
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
    return clamp_speed(v, params.max_speed);
}

// Node `local` of a touched block in a grid pass over the touched blocks (grid_update_blocks,
// pb_grid_blocks, one workgroup of BLOCK_EDGE³ threads per block): zeroes the block's cell counter
// `local` for the next sort (bin_clear leaves the cell counters to these passes), writes the
// node's velocity (constrained_node with `dv`) and zeroes its sums unless params.keep_grid_sums.
fn update_touched_node(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32, dv: vec3<f32>) {
    let touched = touched_node(workgroup, workgroups, local);
    if (touched.listed) {
        let counter = cell_counter(touched.block * BLOCK_CELLS + local);
        if (counter != NO_SLOT) {
            atomicStore(&cell_bins[counter], 0u);
        }
    }
    if (!touched.valid) {
        return;
    }
    let place = grid_place(touched.node);
    if (place == NO_SLOT) {
        return;
    }
    grid_velocity[place] = constrained_node(place, node_index(touched.node), dv);
    if (params.keep_grid_sums == 0u) {
        for (var w = 0u; w < GRID_FIXED_WORDS; w++) {
            atomicStore(&grid_fixed[GRID_FIXED_WORDS * place + w], 0);
        }
    }
}
