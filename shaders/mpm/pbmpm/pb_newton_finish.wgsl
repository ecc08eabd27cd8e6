// pb_newton_finish: each node's velocity over the step, ṽ* + x̃ with the grid's conditions applied,
// in grid_velocity for pb_newton_g2p, which ends the step. x̃'s held components carry the force the
// walls hold (pb_newton_residual, pb_newton_update): the free axes take the conditions' friction
// of it, and what that friction took off them (the slide) goes to the residual's field (FIELD_R),
// from which pb_newton_g2p keeps it out of a liquid's strain. CPU twin: newton::step.
// Reads: params, clock, pb_solve, colliders. Writes: grid_velocity, pb_solve (FIELD_R).

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_newton_finish(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let node = flat_index(workgroup, local, workgroups);
    if (node >= node_count()) {
        return;
    }
    let t = pb_solve[newton_field(FIELD_TARGET, node)];
    var v = vec4<f32>(0.0);
    var slide = vec4<f32>(0.0);
    if (t.w > 0.0) {
        let x = pb_solve[newton_field(FIELD_X, node)];
        let solved = t.xyz + newton_mask(x.xyz, x.w);
        let plain = node_conditions(solved, node);
        let pressed = node_conditions(t.xyz + x.xyz, node);
        // The free axes take the friction of the held force; the held axes keep the conditions'
        // answer without it, so a held force pulling a node off a wall does not fling it off.
        let ended = select(pressed, plain, held_axes(x.w));
        slide = vec4<f32>(ended - plain, 0.0);
        v = vec4<f32>(ended, t.w);
    }
    grid_velocity[node] = v;
    pb_solve[newton_field(FIELD_R, node)] = slide;
}
