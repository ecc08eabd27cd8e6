// pb_newton_prolong: level l (the immediate, from NEWTON_LEVELS − 1 down to 0) of the multilevel
// preconditioner z = Σ_l P_l D_l⁻¹ P_lᵀ r, in Horner's order: each level node's own D_l⁻¹ P_lᵀ r
// (its restricted residual over level_ratio(l) times its lumped mass) plus the level above
// interpolated linearly. Level 0 is the grid: it stores z with the held axes zeroed and adds up
// rᵀz and rᵀM⁻¹r per workgroup (the latter is the residual pb_newton_reduce keeps for a solve
// that stops on its tolerance). CPU twin: newton.rs, precondition.
// Reads: params, clock, pb_solve. Writes: pb_solve.

var<immediate> newton_level: u32;

// Level l's restricted residual (xyz) and lumped mass (w) at its node i: the grid's for level 0.
fn restricted(l: u32, i: u32) -> vec4<f32> {
    if (l == 0u) {
        return vec4<f32>(pb_solve[newton_field(FIELD_R, i)].xyz, pb_solve[newton_field(FIELD_TARGET, i)].w);
    }
    return pb_solve[level_base(l) + 2u * i];
}

// The correction of level l + 1 interpolated to node c of level l.
fn from_above(l: u32, c: vec3<u32>) -> vec3<f32> {
    let above = level_dims(l + 1u);
    var sum = vec3<f32>(0.0);
    for (var z = 0u; z < 2u; z++) {
        for (var y = 0u; y < 2u; y++) {
            for (var x = 0u; x < 2u; x++) {
                let o = vec3<u32>(x, y, z);
                let odd = (c & vec3<u32>(1u)) == vec3<u32>(1u);
                // An even node lies on a node above (weight 1, the second parent 0); an odd one
                // halfway between two.
                let w = select(select(vec3<f32>(1.0), vec3<f32>(0.0), o == vec3<u32>(1u)), vec3<f32>(0.5), odd);
                let weight = w.x * w.y * w.z;
                if (weight == 0.0) {
                    continue;
                }
                let n = min(c / 2u + o, above - vec3<u32>(1u));
                let i = n.x + above.x * (n.y + above.y * n.z);
                sum += weight * pb_solve[level_base(l + 1u) + 2u * i + 1u].xyz;
            }
        }
    }
    return sum;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_prolong(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    // The solve met its tolerance in an earlier iteration of this step.
    if (newton_stopped(local)) {
        return;
    }
    let l = newton_level;
    let index = flat_index(workgroup, local, workgroups);
    var mine = vec2<f32>(0.0);
    if (index < level_nodes(l)) {
        let own = restricted(l, index);
        var w = vec3<f32>(0.0);
        if (own.w > 0.0) {
            w = own.xyz / (level_ratio(l) * own.w);
        }
        if (l + 1u < NEWTON_LEVELS) {
            let d = level_dims(l);
            w += from_above(l, vec3<u32>(index % d.x, (index / d.x) % d.y, index / (d.x * d.y)));
        }
        if (l == 0u) {
            var z = vec3<f32>(0.0);
            if (own.w > 0.0) {
                z = newton_mask(w, pb_solve[newton_field(FIELD_X, index)].w);
            }
            pb_solve[newton_field(FIELD_Z, index)] = vec4<f32>(z, 0.0);
            mine = vec2<f32>(dot(own.xyz, z), select(0.0, dot(own.xyz, own.xyz) / own.w, own.w > 0.0));
        } else {
            pb_solve[level_base(l) + 2u * index + 1u] = vec4<f32>(w, 0.0);
        }
    }
    if (l == 0u) {
        store_partial_sum(workgroup, workgroups, local, mine);
    }
}
