// pb_newton_g2p: the end of a Newton–PCG step, g2p (advance.wgsl) from the nodes' velocities
// (grid_velocity, pb_newton_finish), except that a liquid's velocity gradient, and so its
// deformation and C, leave out the slide the walls' friction took off the solution (pb_solve's
// FIELD_R): the solve balanced the pressure without it, and the divergence a node stopped by
// friction leaves would become pressure at the liquid's bulk modulus (docs/pbmpm.md, "Friction and
// liquids"). CPU twin: newton::step.
// Reads: params, clock, grid_velocity, particles, particle_order, pb_solve. Writes: particles (the
// stress of the new F among them), status.nonfinite_count.

// The slide's C at `position` (a scatter_position): (4/h²) Σ w_i s_i d_iᵀ over its 27 nodes, on
// the dense grid the Newton solve runs on.
fn slide_affine(position: vec3<f32>) -> mat3x3<f32> {
    let s = stencil_at(position);
    let first = stencil_first_node(s);
    var g = Gathered(vec3<f32>(0.0), mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)));
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                gather_node(&g, s, o, pb_solve[newton_field(FIELD_R, stencil_node_from(first, o))].xyz);
            }
        }
    }
    return gathered_end(g).affine;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_g2p(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let thread = flat_index(workgroup, local, workgroups);
    if (thread >= params.particle_count) {
        return;
    }
    let index = g2p_particle(thread);
    let stored = load_particle(index);
    let at = scatter_position(stored.position);
    var g = gather(at);
    if (material_of(stored.material).plasticity == PLASTICITY_LIQUID) {
        g.affine -= slide_affine(at);
    }
    store_advanced(index, advanced_from(stored, g));
}
