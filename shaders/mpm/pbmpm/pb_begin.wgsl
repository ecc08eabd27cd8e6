// pb_begin: each particle's predicted motion over a PB-MPM step, in velocity units. With d the
// step's displacement and D its affine displacement (src/sim/pbmpm/cpu/integrate.rs, begin_step:
// d = (v + g·kick)·dt, kick = (previous dt + dt)/2 from pb_clock, D = C·dt), the GPU keeps d/dt
// in the velocity stream and D/dt in the affine stream for the whole step, so that the
// fixed-point scales and the scatter of the explicit integrator apply unchanged; and the constraint impulse Λ starts at zero in the particle scratch.
// Reads: params, clock, particles. Writes: the velocity stream, the scratch.

@compute @workgroup_size(WORKGROUP_SIZE)
fn pb_begin(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let v = particle_velocity[index];
    particle_velocity[index] = vec4<f32>(v.xyz + clock.pb_kick * params.gravity, v.w);
    for (var c = 0u; c < 3u; c++) {
        reorder_scratch[reorder_slot(index, c)] = vec4<u32>(0u);
    }
}
