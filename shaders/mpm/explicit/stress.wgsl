// stress: each particle's Kirchhoff stress τ of its stored F, Jp and damage (snow.wgsl), into
// particle_stress for the P2G kernels. The passes that update F (g2p, g2p2g) keep it current from
// their plasticity SVD; this pass fills it after particles are uploaded and after the material
// changes. A particle whose F is not finite gets a non-finite τ; P2G resets such a particle and
// zeroes its τ.
// A liquid's viscous stress comes from its C (viscous_stress). Reads: params, particle_affine,
// particle_deformation, particle_plastic. Writes: particle_stress.

@compute @workgroup_size(WORKGROUP_SIZE)
fn stress(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
    @builtin(num_workgroups) workgroups: vec3<u32>,
) {
    let index = flat_index(workgroup, local, workgroups);
    if (index >= params.particle_count) {
        return;
    }
    let plastic = particle_plastic[index];
    let m = material_of(plastic.material);
    let f = padded_matrix(particle_deformation[index]);
    let viscous = viscous_stress(m, padded_matrix(particle_affine[index]), determinant(f));
    store_stress(index, kirchhoff_stress(m, f, plastic.plastic_jacobian, plastic.damage) + viscous);
}
