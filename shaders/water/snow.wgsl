// snow: MPM snow in the water's pressure projection (after common.wgsl, step.wgsl and
// particles.wgsl; the f64 twin is src/sim/water/cpu/mixture.rs, whose functions each pass names).
//
// The snow's particles put mass, momentum and current volume on the water's faces; snow cells
// connected to the water join the liquid; the projection makes the two phases' volume flux
// α_w u_w + α_s u_s divergence-free with each face's coefficient scaled by α_w + α_s ρ_w/ρ_s; the
// snow's faces take −k (ρ_w/ρ_s) Δp and its particles the change sampled at them. Masses are in
// units of a cell of water (ρ_w h³) and volumes in cells (h³), summed in the water's fixed point.
// The host records these passes only while snow is attached (`u.snow == 1`).

// The snow's particles as the MPM solver's streams hold them (src/sim/particles.rs).
@group(1) @binding(0) var<storage, read> snow_positions: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read_write> snow_velocities: array<vec4<f32>>;
@group(1) @binding(2) var<storage, read> snow_affines: array<vec4<f32>>;
@group(1) @binding(3) var<storage, read> snow_deformations: array<vec4<f32>>;
// ParticlePlastic: x holds J_P.
@group(1) @binding(4) var<storage, read> snow_plastic: array<vec4<f32>>;
// Per face 3 sums: mass, momentum (the face's component), volume.
@group(1) @binding(5) var<storage, read_write> snow_sums: array<atomic<i32>>;
// Per cell the snow's volume share (trilinear, folded at the walls), then per cell 1 where a snow
// particle lies.
@group(1) @binding(6) var<storage, read_write> snow_cells: array<atomic<i32>>;
// Per face where snow reaches it: α_w, α_s, the snow's velocity u_s and ρ_w/ρ_s; zero elsewhere.
@group(1) @binding(7) var<storage, read_write> snow_mix: array<vec4<f32>>;
// Per face the projection's change of the snow's velocity, m/s.
@group(1) @binding(8) var<storage, read_write> snow_change: array<f32>;
// The pressure operator's level-0 open fractions, which the mixture's coefficients scale.
@group(1) @binding(9) var<storage, read_write> solve_open: array<f32>;

// The volume flux through face f over its open fraction: the water's velocity, or where snow
// reaches the face the two phases' α_w u_w + α_s (u_s + change) (`SnowOnFaces::flux`).
fn face_flux(f: u32) -> f32 {
    if u.snow == 0u {
        return velocity[f];
    }
    let m = snow_mix[f];
    if m.y <= 0.0 {
        return velocity[f];
    }
    return m.x * velocity[f] + m.y * (m.z + snow_change[f]);
}

fn holds_snow(c: u32) -> bool {
    return atomicLoad(&snow_cells[u.cells + c]) != 0;
}

// Zeroes the snow's face sums and cells.
@compute @workgroup_size(256)
fn s_clear(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = linear(id, groups);
    if i < 3u * u.faces {
        atomicStore(&snow_sums[i], 0);
    }
    if i < 2u * u.cells {
        atomicStore(&snow_cells[i], 0);
    }
}

// The snow's particles to the faces and cells (`SnowOnFaces::new`).
@compute @workgroup_size(256)
fn s_scatter(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let p = linear(id, groups);
    if p >= u.snow_particles {
        return;
    }
    let x = snow_positions[p].xyz - u.origin;
    let mass = max(snow_positions[p].w, 0.0) / u.cell_mass;
    let v = snow_velocities[p].xyz;
    let deformation = mat3x3<f32>(
        snow_deformations[3u * p].xyz,
        snow_deformations[3u * p + 1u].xyz,
        snow_deformations[3u * p + 2u].xyz,
    );
    let h3 = u.h * u.h * u.h;
    let volume = snow_velocities[p].w * determinant(deformation) * snow_plastic[p].x / h3;
    let columns =
        array<vec3<f32>, 3>(snow_affines[3u * p].xyz, snow_affines[3u * p + 1u].xyz, snow_affines[3u * p + 2u].xyz);
    for (var a = 0u; a < 3u; a++) {
        let s = stencil(a, x);
        let c = vec3<f32>(columns[0][a], columns[1][a], columns[2][a]);
        for (var n = 0u; n < 27u; n++) {
            let node = stencil_node(s, a, n);
            if node.x < 0 {
                continue;
            }
            let w = stencil_weight(s, n);
            let d = (vec3<f32>(node) - s.xi) * u.h;
            let f = face_index(a, vec3<u32>(node));
            atomicAdd(&snow_sums[3u * f], i32(round(w * mass * u.fixed)));
            atomicAdd(&snow_sums[3u * f + 1u], i32(round(w * mass * (v[a] + dot(c, d)) * u.fixed)));
            atomicAdd(&snow_sums[3u * f + 2u], i32(round(w * volume * u.fixed)));
        }
    }
    // The volume's trilinear shares, those in the solid layer folded into the cell inside.
    for (var corner = 0u; corner < 8u; corner++) {
        let c = corner_share(x, corner, 1);
        atomicAdd(&snow_cells[c.cell], i32(round(c.share * volume * u.fixed)));
    }
    atomicStore(&snow_cells[u.cells + particle_cell(x)], 1);
}

// One round of `SnowOnFaces::join`: an air cell holding snow beside liquid across an open face
// becomes liquid. Cells turned in a round may be seen by others in the same round, so a body of
// snow joins at least one cell deeper each round.
@compute @workgroup_size(256)
fn s_join(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= u.cells || kinds[c] != AIR || !holds_snow(c) {
        return;
    }
    let at = cell_at(c, u.dims);
    for (var a = 0u; a < 3u; a++) {
        let s = axis_stride(u.dims, a);
        var up = at;
        up[a] += 1u;
        // An air cell lies inside the solid layer, so both neighbours exist.
        if (open[face_index(a, at)] > 0.0 && kinds[c - s] == LIQUID)
            || (open[face_index(a, up)] > 0.0 && kinds[c + s] == LIQUID) {
            kinds[c] = LIQUID;
            atomicSub(&status[STATUS_AIR], 1u);
            return;
        }
    }
}

// The mixture's faces (`SnowOnFaces::flux`): where snow reaches a face between two fluid cells,
// its share, velocity and density against the water's, and the operator's open fraction scaled
// by α_w + α_s ρ_w/ρ_s; elsewhere the open fraction as it is.
@compute @workgroup_size(256)
fn s_mix(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces {
        return;
    }
    let face = face_of(f);
    let mass = f32(atomicLoad(&snow_sums[3u * f])) / u.fixed;
    let volume = f32(atomicLoad(&snow_sums[3u * f + 2u])) / u.fixed;
    var mix = vec4<f32>(0.0);
    var weight = 1.0;
    if mass > 0.0 && volume > 0.0 && solid_sides(face.w, face.xyz) == 0u {
        let alpha_s = min(volume, 1.0);
        var alpha_w = 0.0;
        if (flags[f] & KNOWN) != 0u {
            alpha_w = min(f32(atomicLoad(&face_weight[f])) / u.fixed / u.rest, 1.0 - alpha_s);
        }
        let ratio = volume / mass;
        let u_s = f32(atomicLoad(&snow_sums[3u * f + 1u])) / u.fixed / mass;
        mix = vec4<f32>(alpha_w, alpha_s, u_s, ratio);
        weight = alpha_w + alpha_s * ratio;
    }
    snow_mix[f] = mix;
    snow_change[f] = 0.0;
    solve_open[f] = open[f] * weight;
}

// The projection's change on the snow's faces (`SnowOnFaces::record_change`): −k (ρ_w/ρ_s) Δp on
// faces between fluid cells with liquid on a side.
@compute @workgroup_size(256)
fn s_change(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let f = linear(id, groups);
    if f >= u.faces {
        return;
    }
    let m = snow_mix[f];
    let face = face_of(f);
    var change = 0.0;
    if m.y > 0.0 {
        let high = cell_index(face.xyz);
        let low = high - axis_stride(u.dims, face.w);
        if kinds[low] == LIQUID || kinds[high] == LIQUID {
            change = -u.gradient_scale * m.w * (pressure[high] - pressure[low]);
        }
    }
    snow_change[f] = change;
}

// The change to the snow's particles, sampled with the weights that scattered them
// (`SnowOnFaces::apply`).
@compute @workgroup_size(256)
fn s_apply(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let p = linear(id, groups);
    if p >= u.snow_particles {
        return;
    }
    let x = snow_positions[p].xyz - u.origin;
    var dv = vec3<f32>(0.0);
    for (var a = 0u; a < 3u; a++) {
        let s = stencil(a, x);
        for (var n = 0u; n < 27u; n++) {
            let node = stencil_node(s, a, n);
            if node.x >= 0 {
                dv[a] += stencil_weight(s, n) * snow_change[face_index(a, vec3<u32>(node))];
            }
        }
    }
    snow_velocities[p] = vec4<f32>(snow_velocities[p].xyz + dv, snow_velocities[p].w);
}

// Whether one of cell c's six neighbours is air (`volume::touches_air`).
fn touches_air(c: u32) -> bool {
    let at = cell_at(c, u.dims);
    for (var a = 0u; a < 3u; a++) {
        let s = axis_stride(u.dims, a);
        if (at[a] > 0u && kinds[c - s] == AIR) || (at[a] + 1u < u.dims[a] && kinds[c + s] == AIR) {
            return true;
        }
    }
    return false;
}
