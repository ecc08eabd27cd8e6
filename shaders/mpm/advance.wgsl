// A particle's update from the grid, shared by g2p and the fused path's g2p2g: gather velocity and
// the affine matrix C from the 27 stencil nodes of grid_velocity, update the deformation gradient,
// apply snow plasticity, and advect. A particle whose new state is not finite is counted and kept
// where it was (clamped into the domain), at rest and undeformed.

// Where a stencil's 27 nodes lie in a sparse grid's pool: the pool blocks of the up to 2×2×2 grid
// blocks the stencil spans (corner (x, y, z) at lanes x + 2y of `low` for z = 0 and of `high` for
// z = 1), looked up once per particle rather than once per node, and the stencil's first node
// within its first block.
struct StencilBlocks {
    low: vec4<u32>,
    high: vec4<u32>,
    within: vec3<u32>,
}

// The pool blocks of the stencil whose first node (stencil_first_node's, unflattened) is `first`:
// on an axis where the stencil stays in one block both corners are that block.
fn stencil_blocks(first: vec3<u32>) -> StencilBlocks {
    var b: StencilBlocks;
    b.within = first % BLOCK_EDGE;
    let lo = first / BLOCK_EDGE;
    let hi = lo + select(vec3<u32>(0u), vec3<u32>(1u), b.within + vec3<u32>(2u) >= vec3<u32>(BLOCK_EDGE));
    b.low = vec4<u32>(
        block_slot(block_index(vec3<u32>(lo.x, lo.y, lo.z))),
        block_slot(block_index(vec3<u32>(hi.x, lo.y, lo.z))),
        block_slot(block_index(vec3<u32>(lo.x, hi.y, lo.z))),
        block_slot(block_index(vec3<u32>(hi.x, hi.y, lo.z))),
    );
    b.high = vec4<u32>(
        block_slot(block_index(vec3<u32>(lo.x, lo.y, hi.z))),
        block_slot(block_index(vec3<u32>(hi.x, lo.y, hi.z))),
        block_slot(block_index(vec3<u32>(lo.x, hi.y, hi.z))),
        block_slot(block_index(vec3<u32>(hi.x, hi.y, hi.z))),
    );
    return b;
}

// The velocity of stencil node o: on a dense grid at `first` (stencil_first_node) plus the offset,
// on a sparse one in the pool block of its corner of `blocks`, and zero if the pool ran out. The
// branch is on an override constant: a pipeline has one side of it.
fn stencil_velocity(first: u32, blocks: StencilBlocks, o: vec3<u32>) -> vec3<f32> {
    if (!SPARSE_GRID) {
        return grid_velocity[stencil_node_from(first, o)].xyz;
    }
    let n = blocks.within + o;
    let corner = n >= vec3<u32>(BLOCK_EDGE);
    let local = n - select(vec3<u32>(0u), vec3<u32>(BLOCK_EDGE), corner);
    let by_z = select(blocks.low, blocks.high, corner.z);
    let by_y = select(by_z.xy, by_z.zw, corner.y);
    let slot = select(by_y.x, by_y.y, corner.x);
    if (slot >= POOL_FULL) {
        return vec3<f32>(0.0);
    }
    return grid_velocity[block_place(slot, local)].xyz;
}

// Velocity and affine velocity C gathered from a stencil's 27 nodes (MLS: C = (4/h²) Σ w v_i rᵀ):
// g2p's, g2p2g's and PB-MPM's gathers.
struct Gathered {
    velocity: vec3<f32>,
    affine: mat3x3<f32>,
}

// Adds node o's term of stencil s, whose velocity is vi, to a gather's sums: w·vi to the
// velocity, the outer product w·vi·dᵀ to the affine sum (C before its 4/h², gathered_end).
fn gather_node(g: ptr<function, Gathered>, s: Stencil, o: vec3<u32>, vi: vec3<f32>) {
    let w = stencil_weight(s, o);
    let d = stencil_offset(s, o);
    (*g).velocity += w * vi;
    // Outer product w·vi·dᵀ: column c of it is vi · (w·d[c]).
    (*g).affine += mat3x3<f32>(vi * (w * d.x), vi * (w * d.y), vi * (w * d.z));
}

// A gather's sums made into velocity and C: the affine sum times 4/h², the inverse of the
// quadratic B-spline's second moment.
fn gathered_end(g: Gathered) -> Gathered {
    return Gathered(g.velocity, (4.0 / (params.cell_size * params.cell_size)) * g.affine);
}

// The gather at `position` (a scatter_position) from grid_velocity.
fn gather(position: vec3<f32>) -> Gathered {
    let s = stencil_at(position);
    // One clamped index for the 27 reads instead of a clamp per node: measured faster for g2p and
    // g2p2g (docs/performance.md).
    let first = stencil_first_node(s);
    var blocks: StencilBlocks;
    if (SPARSE_GRID) {
        blocks = stencil_blocks(stencil_first_coords(s));
    }
    var g = Gathered(vec3<f32>(0.0), mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0)));
    for (var z = 0u; z < 3u; z++) {
        for (var y = 0u; y < 3u; y++) {
            for (var x = 0u; x < 3u; x++) {
                let o = vec3<u32>(x, y, z);
                gather_node(&g, s, o, stencil_velocity(first, blocks, o));
            }
        }
    }
    return gathered_end(g);
}

// The updated particle, and U and σ of the SVD of its deformation gradient (F = U diag(σ) Vᵀ).
struct Advanced {
    particle: Particle,
    u: mat3x3<f32>,
    sigma: vec3<f32>,
}

fn advanced(stored: Particle) -> Advanced {
    // The position P2G scattered from (the same unless the particle came in outside the domain).
    return advanced_from(stored, gather(scatter_position(stored.position)));
}

// advanced, with the gather at the particle's scatter_position given.
fn advanced_from(stored: Particle, gathered: Gathered) -> Advanced {
    var p = stored;
    p.position = scatter_position(p.position);
    var velocity = gathered.velocity;
    let affine = gathered.affine;
    let trial = (IDENTITY3 + substep_dt() * affine) * p.deformation;
    let material = material_of(p.material);
    var plastic = project_plastic(material, trial, p.plastic_jacobian, yield_keep(material));
    // A cracked particle's stretch past 1 + θs opens its cracks instead of loosening the snow
    // between them: its Jp may fall (compaction) but not rise (src/sim/cpu/g2p.rs, the same).
    if (p.damage > 0.0) {
        plastic.plastic_jacobian = min(plastic.plastic_jacobian, p.plastic_jacobian);
    }
    var damage = p.damage;
    if (cracks(material, plastic.trial, plastic.sigma, plastic.plastic_jacobian, p.strength)) {
        damage = 1.0;
    }

    velocity = clamp_speed(velocity, params.max_speed);
    let position = clamp(p.position + substep_dt() * velocity, domain_lo(), domain_hi());

    let finite = is_finite_vec3(velocity) && is_finite_vec3(position) && is_finite_mat3(affine)
        && is_finite_mat3(plastic.deformation);
    if (finite) {
        p.velocity = velocity;
        p.affine = affine;
        p.deformation = plastic.deformation;
        p.plastic_jacobian = plastic.plastic_jacobian;
        p.damage = damage;
        p.position = position;
        return Advanced(p, plastic.u, plastic.sigma);
    } else {
        atomicAdd(&status.nonfinite_count, 1u);
        p.velocity = vec3<f32>(0.0);
        p.affine = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
        p.deformation = IDENTITY3;
        if (!is_finite_vec3(p.position)) {
            p.position = 0.5 * (domain_lo() + domain_hi());
        }
        p.position = clamp(p.position, domain_lo(), domain_hi());
        return Advanced(p, IDENTITY3, vec3<f32>(1.0));
    }
}

// The particle that thread `thread` of a g2p pass updates. Neighbouring threads should read
// neighbouring grid nodes: on the binned paths the particles' places are in block order (as of the
// last reorder), or else thread k takes the k-th particle of the sort's block order (see
// PARTICLE_ORDER_* in types.wgsl).
fn g2p_particle(thread: u32) -> u32 {
    return select(thread, particle_order[thread], params.particle_order == PARTICLE_ORDER_BINNED);
}

// Stores particle `index` as `a` left it, with the stress of its new F for the next P2G (from the
// SVD the plasticity step made of it).
fn store_advanced(index: u32, a: Advanced) {
    store_particle(index, a.particle);
    let m = material_of(a.particle.material);
    let j = a.sigma.x * a.sigma.y * a.sigma.z;
    store_stress(index, kirchhoff_stress_svd(m, a.u, a.sigma, a.particle.plastic_jacobian, a.particle.damage) + viscous_stress(m, a.particle.affine, j));
}
