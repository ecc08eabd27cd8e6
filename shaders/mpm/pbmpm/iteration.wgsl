// PB-MPM's iteration of one particle, shared by pb_iterate (particles in their stored order,
// global atomics) and pb_iterate_tiled (one workgroup per occupied block, scattering through the
// workgroup-memory tile): in velocity units (ṽ = d/dt, C̃ = D/dt, see pb_begin), gather ṽ and C̃
// from the grid velocities pb_grid left (from the second iteration on; gather in advance.wgsl,
// as g2p gathers), then move C̃ toward the
// snow constraint by one compliant (XPBD) step. CPU twin: src/sim/pbmpm/cpu/ (constraint.rs,
// transfer.rs), where the method is written out. A library: every pass includes it
// (src/sim/shaders.rs), only the PB-MPM passes call it.

// The first Piola–Kirchhoff stress of the trial deformation f (snow_response in
// src/sim/pbmpm/cpu/constraint.rs): the material's elastic law (fixed corotated or neo-Hookean),
// elastic (the yield limit applies at the step's end), at singular values kept in [0.05, 20]
// (SAFE_SINGULAR_VALUES there), with the moduli hardened by the particle's Jp at the step's start;
// a cracked particle carries no tension. Also returns those moduli.
struct Response {
    stress: mat3x3<f32>,
    mu: f32,
    lambda: f32,
}

fn snow_response(m: Material, f: mat3x3<f32>, plastic_jacobian: f32, damage: f32) -> Response {
    let d = svd3(f);
    let s = clamp(d.sigma, vec3<f32>(0.05), vec3<f32>(20.0));
    let hc = hardening_factor(m, plastic_jacobian);
    let mu = m.mu0 * hc;
    let lambda = m.lambda0 * hc;
    let j = s.x * s.y * s.z;
    let others = vec3<f32>(s.y * s.z, s.x * s.z, s.x * s.y);
    var p: vec3<f32>;
    if (m.elasticity == ELASTICITY_NEO_HOOKEAN) {
        // Pᵢ = τᵢ / sᵢ of τᵢ = μ (sᵢ² − 1) + λ ln J; sᵢ ≥ 0.05.
        let volume = lambda * log(max(j, NEO_HOOKEAN_MIN_J));
        p = mu * (s - vec3<f32>(1.0) / s) + vec3<f32>(volume) / s;
    } else {
        p = 2.0 * mu * (s - vec3<f32>(1.0)) + lambda * (j - 1.0) * others;
    }
    if (damage > 0.0) {
        p = select(p, p * (1.0 - damage), s * p > vec3<f32>(0.0));
    }
    let stress = mat3x3<f32>(d.u[0] * p.x, d.u[1] * p.y, d.u[2] * p.z) * transpose(d.v);
    return Response(stress, mu, lambda);
}

fn load_impulse(index: u32) -> mat3x3<f32> {
    return mat3x3<f32>(
        bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 0u)]).xyz,
        bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 1u)]).xyz,
        bitcast<vec4<f32>>(reorder_scratch[reorder_slot(index, 2u)]).xyz,
    );
}

fn store_impulse(index: u32, m: mat3x3<f32>) {
    for (var c = 0u; c < 3u; c++) {
        reorder_scratch[reorder_slot(index, c)] = bitcast<vec4<u32>>(vec4<f32>(m[c], 0.0));
    }
}

// One constraint step (project in src/sim/pbmpm/cpu/constraint.rs): the target impulse
// Λ* = dt² V⁰ τ(F'), τ = P(F') F'ᵀ, at F' = (I + D) F_E (symmetric, so free of torque), the
// residual r = Λ* − Λ, the step
// ΔΛ = relaxation · (dev r / (1 + 2κμ) + iso r / (1 + κ(2μ + 3λ))), κ = 4 dt² V⁰ / (h² m); then
// Λ += ΔΛ and D −= 4/(h² m) ΔΛ. Returns the new C̃ = D/dt; stores Λ.
fn project(p: Particle, index: u32, affine: mat3x3<f32>) -> mat3x3<f32> {
    let dt = substep_dt();
    let h2 = params.cell_size * params.cell_size;
    let trial = (IDENTITY3 + dt * affine) * p.deformation;
    let response = snow_response(material_of(p.material), trial, p.plastic_jacobian, p.damage);
    let wanted = (dt * dt * p.volume) * response.stress * transpose(trial);
    let impulse = load_impulse(index);
    let residual = wanted - impulse;
    let kappa = 4.0 * dt * dt * p.volume / (h2 * p.mass);
    let iso = (residual[0][0] + residual[1][1] + residual[2][2]) / 3.0;
    let isotropic = iso * IDENTITY3;
    let deviatoric = residual - isotropic;
    let step = params.pb_relaxation * (
        deviatoric * (1.0 / (1.0 + 2.0 * kappa * response.mu))
        + isotropic * (1.0 / (1.0 + kappa * (2.0 * response.mu + 3.0 * response.lambda)))
    );
    store_impulse(index, impulse + step);
    return affine - (4.0 / (h2 * p.mass * dt)) * step;
}

// The rest of particle p's iteration once it holds its gathered ṽ and C̃ (or its predicted ones):
// the constraint step, ṽ and C̃ stored in the velocity and affine streams. Returns the particle to
// scatter, whose APIC momentum is m·(ṽ + C̃ r).
fn pb_project_particle(index: u32, gathered: Particle) -> Particle {
    var p = gathered;
    p.affine = project(p, index, p.affine);
    particle_velocity[index] = vec4<f32>(p.velocity, p.volume);
    particle_affine[index] = padded_columns(p.affine);
    return p;
}

// The iteration of particle `index` up to its scatter, gathering from the grid in global memory
// where `gathering`.
fn pb_iterate_particle(index: u32, gathering: bool) -> Particle {
    var p = load_for_scatter(index);
    if (gathering) {
        let g = gather(p.position);
        p.velocity = g.velocity;
        p.affine = g.affine;
    }
    return pb_project_particle(index, p);
}
