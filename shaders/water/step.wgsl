// The water step's grid passes: clearing, classifying the cells, the faces' velocities, the
// divergence, the projection and the extrapolation (after common.wgsl).

// Zeroes the faces' sums, the liquid marks, the counts and the status's speed and air words.
@compute @workgroup_size(256)
fn w_clear(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear(id, groups);
    if i < u.faces {
        atomicStore(&face_weight[i], 0);
        atomicStore(&face_momentum[i], 0);
    }
    if i < u.cells {
        atomicStore(&liquid[i], 0u);
        atomicStore(&count[i], 0);
    }
    if i == STATUS_SPEED || i == STATUS_AIR {
        atomicStore(&status[i], 0u);
    }
}

// Cells: the solid layer and the colliders' cells, liquid where a particle is, air else
// (`WaterCpu::classify`).
@compute @workgroup_size(256)
fn w_classify(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= u.cells {
        return;
    }
    let at = cell_at(c, u.dims);
    var kind = AIR;
    if any(at == vec3<u32>(0u)) || any(at + 1u >= u.dims) || solid[c] != 0u {
        kind = SOLID;
    } else if atomicLoad(&liquid[c]) != 0u {
        kind = LIQUID;
    } else {
        atomicAdd(&status[STATUS_AIR], 1u);
    }
    kinds[c] = kind;
}

// Solid cells on either side of face `node` along `axis`: 2 on the grid's edge.
fn solid_sides(axis: u32, node: vec3<u32>) -> u32 {
    if node[axis] == 0u || node[axis] >= u.dims[axis] {
        return 2u;
    }
    let high = cell_index(node);
    let low = high - axis_stride(u.dims, axis);
    return u32(kinds[low] == SOLID) + u32(kinds[high] == SOLID);
}

// The walls, free slip (`FaceGrid::close_solid_faces`): a face between solid and fluid carries 0,
// or where `moving` the collider's velocity (`FaceGrid::move_solid_faces`), and is known; one
// inside the solid is unknown.
fn close_solid(axis: u32, node: vec3<u32>, f: u32, moving: bool) {
    let solids = solid_sides(axis, node);
    if solids == 1u {
        velocity[f] = select(0.0, solid_velocity[f], moving);
        flags[f] |= KNOWN;
    } else if solids == 2u {
        flags[f] &= ~KNOWN;
    }
}

// Sums to velocities, gravity on the known faces, the walls (`scatter`, `add_gravity`,
// `close_solid_faces`).
@compute @workgroup_size(256)
fn w_faces(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces {
        return;
    }
    let face = face_of(f);
    let weight = atomicLoad(&face_weight[f]);
    var v = 0.0;
    var flag = 0u;
    if weight > 0 {
        v = f32(atomicLoad(&face_momentum[f])) / f32(weight);
        flag = KNOWN | SCATTERED;
    }
    scattered[f] = v;
    if flag != 0u {
        v += u.gravity_dt[face.w];
    }
    velocity[f] = v;
    flags[f] = flag;
    close_solid(face.w, face.xyz, f, true);
}

// The right-hand side on the unknowns: −ρ h / dt times the faces' divergence (times h).
@compute @workgroup_size(256)
fn w_divergence(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= u.cells {
        return;
    }
    var b = 0.0;
    var div = 0.0;
    if coeffs[c].x > 0.0 {
        let at = cell_at(c, u.dims);
        div = cell_flux(at);
        b = -u.rhs_scale * div;
    }
    rhs[c] = b;
    diagnostics[c] = vec4<f32>(div / u.h, 0.0, 0.0, 0.0);
}

// After the projection: each unknown's divergence (1/s), pressure and the residual b − A p of the
// solve (Pa), beside the divergence before (`diagnostics` in common.wgsl).
@compute @workgroup_size(256)
fn w_diagnose(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= u.cells {
        return;
    }
    let k = coeffs[c];
    if k.x <= 0.0 {
        diagnostics[c] = vec4<f32>(diagnostics[c].x, 0.0, pressure[c], 0.0);
        return;
    }
    let at = cell_at(c, u.dims);
    // (A p)_c from the stored diagonal and couplings: the upper ones are the cell's own, the lower
    // ones its neighbours' below.
    var ap = k.x * pressure[c];
    for (var a = 0u; a < 3u; a++) {
        let s = axis_stride(u.dims, a);
        if at[a] + 1u < u.dims[a] {
            ap += k[a + 1u] * pressure[c + s];
        }
        if at[a] > 0u {
            ap += coeffs[c - s][a + 1u] * pressure[c - s];
        }
    }
    diagnostics[c] = vec4<f32>(diagnostics[c].x, cell_flux(at) / u.h, pressure[c], rhs[c] - ap);
}

// `v −= k (p_high − p_low)` on faces between fluid cells with liquid on a side; faces between two
// air cells keep what particles gave them, or become unknown (`subtract_gradient`,
// `keep_scattered`).
fn project(axis: u32, node: vec3<u32>, f: u32, k: f32) {
    if node[axis] == 0u || node[axis] >= u.dims[axis] {
        return;
    }
    let high = cell_index(node);
    let low = high - axis_stride(u.dims, axis);
    let kl = kinds[low];
    let kh = kinds[high];
    if kl == SOLID || kh == SOLID {
        return;
    }
    if kl == LIQUID || kh == LIQUID {
        velocity[f] -= k * (pressure[high] - pressure[low]);
        flags[f] |= KNOWN;
    } else if (flags[f] & SCATTERED) != 0u {
        velocity[f] = scattered[f];
        flags[f] |= KNOWN;
    } else {
        flags[f] &= ~KNOWN;
    }
}

@compute @workgroup_size(256)
fn w_project(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces {
        return;
    }
    let face = face_of(f);
    project(face.w, face.xyz, f, u.gradient_scale);
}

// Snapshot of the faces before a round of extrapolation.
@compute @workgroup_size(256)
fn w_copy_faces(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces {
        return;
    }
    velocity_copy[f] = velocity[f];
    flags_copy[f] = flags[f];
}

// One round of `FaceGrid::extrapolate`: an unknown face takes the mean of its known neighbours
// along the axes (same component), from the snapshot.
@compute @workgroup_size(256)
fn w_extrapolate(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces || (flags_copy[f] & KNOWN) != 0u {
        return;
    }
    let face = face_of(f);
    let d = face_dims(face.w);
    var sum = 0.0;
    var n = 0u;
    for (var b = 0u; b < 3u; b++) {
        for (var side = 0u; side < 2u; side++) {
            var q = face.xyz;
            if side == 0u {
                if q[b] == 0u {
                    continue;
                }
                q[b] -= 1u;
            } else {
                q[b] += 1u;
                if q[b] >= d[b] {
                    continue;
                }
            }
            let g = face_index(face.w, q);
            if (flags_copy[g] & KNOWN) != 0u {
                sum += velocity_copy[g];
                n += 1u;
            }
        }
    }
    if n > 0u {
        velocity[f] = sum / f32(n);
        flags[f] |= KNOWN;
    }
}

// Before the volume correction's count: its liquid marks, counts and air cells zeroed (the
// fastest speed stays for the host).
@compute @workgroup_size(256)
fn w_clear_count(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c < u.cells {
        atomicStore(&liquid[c], 0u);
        atomicStore(&count[c], 0);
    }
    if c == 0u {
        atomicStore(&status[STATUS_AIR], 0u);
    }
}

// The volume correction's right-hand side: each unknown cell's crowding, max(n / n₀ − 1, 0); with
// snow, its share of the cell counts as filled and a cell with no air beside it keeps a deficit
// too, which closes holes (`volume::correct`).
@compute @workgroup_size(256)
fn w_excess(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= u.cells {
        return;
    }
    var b = 0.0;
    // Water filling its container has no free surface to spread to: b = 0 ends the solve at once.
    if coeffs[c].x > 0.0 && atomicLoad(&status[STATUS_AIR]) != 0u {
        b = f32(atomicLoad(&count[c])) / u.fixed / u.rest - 1.0;
        if u.snow != 0u {
            b += f32(atomicLoad(&snow_cells[c])) / u.fixed;
        }
        if u.snow == 0u || touches_air(c) {
            b = max(b, 0.0);
        }
    }
    rhs[c] = b;
}

// The displacement's faces: zero, the walls, then `−h (q₊ − q₋)` next to liquid from the solve
// in `pressure`.
@compute @workgroup_size(256)
fn w_displacement_faces(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces {
        return;
    }
    let face = face_of(f);
    velocity[f] = 0.0;
    flags[f] = 0u;
    close_solid(face.w, face.xyz, f, false);
    project(face.w, face.xyz, f, u.h);
}

// After the projection's solve: its iterations and whether it converged, into the status.
@compute @workgroup_size(1)
fn w_note_solve() {
    atomicMax(&status[STATUS_ITERATIONS], solve.iterations);
    if solve.done == 0u {
        atomicAdd(&status[STATUS_UNCONVERGED], 1u);
    }
}

// The same after the volume correction's solve.
@compute @workgroup_size(1)
fn w_note_volume() {
    atomicMax(&status[STATUS_VOLUME_ITERATIONS], solve.iterations);
    if solve.done == 0u {
        atomicAdd(&status[STATUS_VOLUME_UNCONVERGED], 1u);
    }
}
