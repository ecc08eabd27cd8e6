// reorder: one round of moving the particles into block order (particle_order, as the sort just
// left it). Each round gathers one share of every particle's streams into the scratch at its new
// place, and reorder_copy puts that share back; a share fits REORDER_SLOTS 16-byte slots:
//
// round 0: position, velocity, and (Jp, material, host index, damage) from particle_plastic and particle_id
// round 1: C
// round 2: F
// round 3: τ and the strength from particle_plastic (the last round; reorder_copy then makes
//          particle_order the identity). Round 0's copy leaves the strength where it was, so this
//          round still finds it at the particles' old places.
//
// After all four, the particle at place k is the k-th in block order, so the passes that read
// through particle_order read consecutive memory. The host sets the round (src/sim/sort/reorder.rs).
// One thread per place. Reads: params, particle_order, the round's streams.
// Writes: reorder_scratch.

// Which share of the streams this dispatch moves (0 to 3, above).
var<immediate> reorder_round: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn reorder(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let source = particle_order[index];
    switch reorder_round {
        case 0u: {
            reorder_scratch[reorder_slot(index, 0u)] = bitcast<vec4<u32>>(particle_position[source]);
            reorder_scratch[reorder_slot(index, 1u)] = bitcast<vec4<u32>>(particle_velocity[source]);
            let plastic = particle_plastic[source];
            reorder_scratch[reorder_slot(index, 2u)] =
                vec4<u32>(bitcast<u32>(plastic.plastic_jacobian), plastic.material, particle_id[source], bitcast<u32>(plastic.damage));
        }
        case 1u: {
            for (var c = 0u; c < 3u; c++) {
                reorder_scratch[reorder_slot(index, c)] = bitcast<vec4<u32>>(particle_affine[source][c]);
            }
        }
        case 2u: {
            for (var c = 0u; c < 3u; c++) {
                reorder_scratch[reorder_slot(index, c)] = bitcast<vec4<u32>>(particle_deformation[source][c]);
            }
        }
        default: {
            reorder_scratch[reorder_slot(index, 0u)] = bitcast<vec4<u32>>(particle_stress[2u * source]);
            reorder_scratch[reorder_slot(index, 1u)] = bitcast<vec4<u32>>(particle_stress[2u * source + 1u]);
            reorder_scratch[reorder_slot(index, 2u)] = vec4<u32>(bitcast<u32>(particle_plastic[source].strength), 0u, 0u, 0u);
        }
    }
}
