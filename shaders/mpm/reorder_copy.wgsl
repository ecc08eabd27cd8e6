// reorder_copy: put the share of the streams that the same round of reorder gathered back into
// the streams, at the particles' new places (a copy kernel rather than buffer copies: the scratch
// holds one share interleaved, and the copy runs inside the timed `sort` pass). After the last
// round, particle_order becomes the identity: place k now holds the k-th particle in block order.
// One thread per particle. Reads: params, reorder_scratch. Writes: the round's streams,
// particle_order (last round).

// Which share of the streams this dispatch moves (reorder.wgsl lists them).
var<immediate> reorder_round: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn reorder_copy(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    switch reorder_round {
        case 0u: {
            particle_position[index] = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 0u)]);
            particle_velocity[index] = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 1u)]);
            let rest = reorder_scratch[reorder_slot(index, 2u)];
            // Not the strength: round 3 still reads it at the old places.
            particle_plastic[index].plastic_jacobian = bitcast<f32>(rest.x);
            particle_plastic[index].material = rest.y;
            particle_plastic[index].damage = bitcast<f32>(rest.w);
            particle_id[index] = rest.z;
        }
        case 1u: {
            for (var c = 0u; c < 3u; c++) {
                particle_affine[index][c] = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, c)]);
            }
        }
        case 2u: {
            for (var c = 0u; c < 3u; c++) {
                particle_deformation[index][c] = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, c)]);
            }
        }
        default: {
            particle_stress[2u * index] = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 0u)]);
            particle_stress[2u * index + 1u] = bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 1u)]);
            particle_plastic[index].strength = bitcast<f32>(reorder_scratch[reorder_slot(index, 2u)].x);
            particle_order[index] = index;
        }
    }
}
