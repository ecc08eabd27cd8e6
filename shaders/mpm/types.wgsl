// Structs shared with the host and the bindings every MPM pass sees.
//
// Keep in sync with src/sim/params.rs (GpuSimParams, GpuSolverStatus): tests/wgsl.rs
// checks every member offset and struct size against the Rust definitions.

// Threads per workgroup; the host overrides it with params::WORKGROUP_SIZE.
override WORKGROUP_SIZE: u32 = 256u;
// Whether the grid is a sparse pool of blocks (src/sim/grid_pool.rs): the passes that find nodes
// through grid_place are built with it off and on (PassInfo::sparse_variant), so that on a
// dense grid they carry no code for the map; params.grid_pool_blocks says the same at run time.
override SPARSE_GRID: bool = false;

const BOUNDARY_STICKY: u32 = 0u;
const BOUNDARY_SLIP: u32 = 1u;
const BOUNDARY_SEPARATE: u32 = 2u;

const INTERACTION_NONE: u32 = 0u;
const INTERACTION_GRAB: u32 = 1u;
const INTERACTION_REPEL: u32 = 2u;

// Bounds of the hardening exponent ξ(1 − Jp) and of Jp (src/sim/material.rs says why).
const MIN_HARDENING_EXPONENT: f32 = -10.0;
const MAX_HARDENING_EXPONENT: f32 = 5.0;
const PLASTIC_JACOBIAN_MIN: f32 = 1.0e-3;
const PLASTIC_JACOBIAN_MAX: f32 = 1.0e3;

struct SimParams {
    grid_origin: vec3<f32>,
    cell_size: f32,
    node_dims: vec3<u32>,
    particle_count: u32,
    wall_lo: vec3<u32>,
    boundary_kind: u32,
    wall_hi: vec3<u32>,
    boundary_friction: f32,
    gravity: vec3<f32>,
    // PB-MPM's Newton–PCG tolerance (0: a fixed count). The substep's dt is the clock's
    // (substep_dt), which changes every substep.
    pb_tolerance: f32,
    // Bounds over the materials present (newton.wgsl): the largest λ₀ + 2μ₀, Pa, the largest
    // (λ₀ + 2μ₀) / ρ₀, m²/s², and the smallest ρ₀, kg/m³.
    stiffest_modulus: f32,
    fastest_wave_squared: f32,
    lightest_density: f32,
    _pad0: u32,
    _pad0b: u32,
    max_speed: f32,
    mass_scale: f32,
    momentum_scale: f32,
    contribution_limit: f32,
    interaction_mode: u32,
    repel_speed: f32,
    collider_count: u32,
    interaction_center: vec3<f32>,
    interaction_radius: f32,
    interaction_velocity: vec3<f32>,
    interaction_rate: f32,
    // PARTICLE_ORDER_*: which particle g2p thread k updates.
    particle_order: u32,
    // 1 with several pages of particles, whose touched blocks overlap: grid_update_blocks leaves
    // grid_fixed as it read it, and p2g_gather adds its sums instead of storing them.
    keep_grid_sums: u32,
    // 0: the grid is dense, node n at place node_index(n). Otherwise the grid is a pool of this many
    // blocks of BLOCK_CELLS nodes, and block_slots maps a grid block to its place in the pool
    // (grid_place; src/sim/grid_pool.rs).
    grid_pool_blocks: u32,
    // 1 for the first page of a sparse grid: its bin_clear sets the count of pool blocks handed
    // out back to zero, so that the pages' bin_offsets give the pool's blocks anew each substep
    // (every page's bin_clear empties the map entries of the blocks it listed).
    reset_grid_blocks: u32,
    // PB-MPM's relaxation factor of each constraint step (pb_iterate.wgsl); 0 under the explicit
    // integrator.
    pb_relaxation: f32,
    // PB-MPM's yield relaxation time τ, s: a step keeps exp(−dt/τ) of the strain beyond the
    // elastic range elastic (yield_keep, snow.wgsl). 0 under the explicit integrator: all of it
    // turns plastic.
    pb_yield_time: f32,
    _pad1: vec2<u32>,
    // Each material id's material (materials.wgsl; material_of).
    materials: array<Material, MAX_MATERIALS>,
}

// g2p thread k updates the particle stored at place k (the naive path, and the binned paths while
// they reorder the particles, whose places are then in block order as of the last reorder) or
// particle_order[k], the k-th particle in block order (binned paths without reorder, after the bin
// passes of the same substep).
const PARTICLE_ORDER_STORED: u32 = 0u;
const PARTICLE_ORDER_BINNED: u32 = 1u;

// Particles are binned by the grid block of their stencil's base node: blocks of BLOCK_EDGE³ nodes.
// A particle's 3×3×3 stencil then lies in BLOCK_REACH³ nodes starting at its block's corner.
const BLOCK_EDGE: u32 = 4u;
const BLOCK_REACH: u32 = 6u;
// g2p2g scatters from particles that may have moved a cell since they were binned: their stencils
// lie in FUSED_REACH³ nodes starting one node before the block's corner.
const FUSED_REACH: u32 = 8u;

// Counters of the bin passes (bin_dispatch turns the two block counts into dispatch sizes).
struct BinHeader {
    // Particles given a place so far (bin_offsets).
    particle_total: atomic<u32>,
    // Blocks holding at least one particle's stencil base: p2g_tiled runs one workgroup each.
    occupied_count: atomic<u32>,
    // Blocks some particle's stencil reaches: grid_update_blocks runs one workgroup each.
    touched_count: atomic<u32>,
    // The touched count as of the end of the last sort (bin_dispatch copies it): how many blocks
    // of the touched list the next sort's bin_clear empties. Every block whose bin, mark or map
    // entry is not zero is among them.
    listed_touched: u32,
}

// One grid block's bin: its particle count and its first slot in particle_order; on a sparse
// grid the cursor bin_scatter places its particles with if it has no pool block (the pool ran out,
// so it has no cell counters either); and 1 once bin_offsets has listed the block as touched, so
// that of the up to eight occupied blocks whose stencils reach it only one lists it.
struct BlockBin {
    count: atomic<u32>,
    offset: u32,
    cursor: atomic<u32>,
    listed: atomic<u32>,
}

// The blocks the stencils based in one block reach: itself and its upper neighbours on each axis
// and diagonal. bin_offsets runs a thread per occupied block and each of them.
const REACHED_BLOCKS: u32 = 8u;

// Cells (stencil base nodes) per block: cell_bins holds BLOCK_CELLS counters per block (per pool
// block on a sparse grid: cell_counter).
const BLOCK_CELLS: u32 = 64u;

// What p2g_gather needs of a particle, written by p2g_sources in block (and cell) order: its
// position within its stencil (Stencil::fraction of its scatter_position), mass, velocity, and
// the rest of its Scatter (scatter_of): the velocity gradient and whether it is bounded (0 or 1).
struct ScatterSource {
    fraction: vec3<f32>,
    mass: f32,
    velocity: vec3<f32>,
    bounded: u32,
    gradient: mat3x3<f32>,
}

// A grid node's nearest collider (src/collider/field.rs): signed distance (negative inside),
// outward normal, surface velocity, and its index into `collider_surfaces` (NO_COLLIDER if none).
struct ColliderNode {
    normal: vec3<f32>,
    distance: f32,
    velocity: vec3<f32>,
    surface: u32,
}

// The boundary condition of one collider.
struct ColliderSurface {
    kind: u32,
    friction: f32,
}

const NO_COLLIDER: u32 = 0xffffffffu;

struct SolverStatus {
    overflow_count: atomic<u32>,
    nonfinite_count: atomic<u32>,
    max_speed_bits: atomic<u32>,
    max_hardening_bits: atomic<u32>,
    min_plastic_jacobian_bits: atomic<u32>,
    max_plastic_jacobian_bits: atomic<u32>,
    pick_distance_bits: atomic<u32>,
    // Particles g2p2g advanced since the last report (one add per workgroup).
    fused_count: atomic<u32>,
    // Pool blocks bin_offsets asked for this substep (sparse grid; past grid_pool_blocks, some
    // blocks went without), and the most of any substep since the last report.
    grid_blocks_used: atomic<u32>,
    grid_blocks_peak: atomic<u32>,
    // Bits of the largest relative residual a Newton–PCG step ended with since the last report.
    max_solve_residual_bits: atomic<u32>,
    // CG iterations and Newton–PCG steps since the last report.
    solve_iterations: atomic<u32>,
    solve_steps: atomic<u32>,
}

// The substep clock (src/sim/explicit/clock.rs): the host sets a frame's first eight words, and every
// substep clock_advance chooses that substep's dt from the state it steps and writes the rest.
// The substep passes read dt and the collider blend from here (substep_dt, substep_blend), not
// from the uniform block: lavapipe compiles a shader variant per uniform value it inlines
// (docs/app.md, "Memory"), and this dt changes every substep.
struct SubstepClock {
    // Host, once per frame. The frame covers `span` seconds in substeps of the stable dt
    // (planned = 0), or it is `planned` substeps of `fixed_dt`.
    span: f32,
    fixed_dt: f32,
    planned: u32,
    // Most substeps a frame of planned = 0 may take: its substeps stretch (past the stable dt,
    // which max_ratio then shows) so that it ends within this many.
    max_substeps: u32,
    cfl: f32,
    // (λ₀ + 2μ₀)/ρ, the squared P-wave speed at hardening factor 1; and the longest dt a viscous
    // liquid allows (SolverParams::viscous_dt, +∞ without one).
    wave_speed_squared: f32,
    viscous_dt: f32,
    // PB-MPM: the length of the step before this frame's first (0 if none: the velocities are
    // then instantaneous), which pb_clock replaces with each step's own; and how long gravity acts
    // on the velocity before the current step, (previous dt + dt)/2 (gravity_kick in
    // src/sim/pbmpm/cpu/integrate.rs), which pb_clock sets and pb_begin reads.
    pb_prev_dt: f32,
    pb_kick: f32,
    // clock_advance, once per substep: simulated seconds and substeps of the frame so far (the
    // current substep included), the current substep's dt, its collider blend, whether it runs
    // (running) and whether the frame has ended (finished).
    time: f32,
    dt: f32,
    blend: f32,
    substeps: u32,
    running: u32,
    finished: u32,
    // The largest dt / stable dt of the frame's substeps, the stable dt of the current substep's
    // state, and the smallest of the frame's.
    max_ratio: f32,
    stable_dt: f32,
    min_stable_dt: f32,
    // clock_stats folds the largest particle speed and squared P-wave speed of the state into
    // these (f32 bits, see stats.wgsl); clock_advance reads them and sets them back to zero.
    max_speed_bits: atomic<u32>,
    max_wave_speed_squared_bits: atomic<u32>,
    // PB-MPM: 0 during a step's first iteration, 1 once its grid pass has run, from when the
    // iterations gather from the grid (pb_clock sets 0, pb_grid and pb_grid_blocks 1). Not the
    // iteration's index as immediate data: on lavapipe every dispatch of a pipeline with
    // immediates grew the driver's memory by about 0.4 MB, never freed (docs/pbmpm.md).
    pb_gathering: u32,
}

// The mouse ray of the pick pass; `direction` is a unit vector.
struct PickRay {
    origin: vec3<f32>,
    radius: f32,
    direction: vec3<f32>,
    _pad0: f32,
}

// Group 0 is the simulation state (src/sim/page.rs makes the bind group).
@group(0) @binding(0) var<uniform> params: SimParams;
// The particles as six streams, one buffer each (src/sim/particles.rs says why): position (xyz)
// and mass (w); velocity (xyz) and initial volume (w); C; F_E; Jp and material; and τ. Passes go
// through load_particle / store_particle below, or read the one stream they need.
@group(0) @binding(1) var<storage, read_write> particle_position: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> particle_velocity: array<vec4<f32>>;
// C and F as three padded columns each (the layout of mat3x3<f32>), declared as vec4s so that a
// store writes whole 16-byte columns: a mat3x3 store writes 12 of each 16 bytes, and such partial
// writes were measured to slow g2p down markedly (docs/performance.md).
@group(0) @binding(3) var<storage, read_write> particle_affine: array<array<vec4<f32>, 3>>;
@group(0) @binding(4) var<storage, read_write> particle_deformation: array<array<vec4<f32>, 3>>;
@group(0) @binding(5) var<storage, read_write> particle_plastic: array<ParticlePlastic>;
// The Kirchhoff stress τ of each particle's stored F and Jp: written wherever F is (g2p, g2p2g, from
// their plasticity SVD) and by the stress pass; P2G reads it instead of a second SVD. τ is
// symmetric, so it is kept as its six entries in two vec4s (store_stress / load_stress).
@group(0) @binding(6) var<storage, read_write> particle_stress: array<vec4<f32>>;
// Eight i32 per node: fixed-point mass, momentum x, y, z, each a 64-bit sum stored as (low word,
// high word) (src/sim/fixed_point.rs).
@group(0) @binding(7) var<storage, read_write> grid_fixed: array<atomic<i32>>;
const GRID_FIXED_WORDS: u32 = 8u;
// Per node: velocity (xyz, m/s) and mass (w, kg), written by grid_update, read by g2p.
@group(0) @binding(8) var<storage, read_write> grid_velocity: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> status: SolverStatus;
@group(0) @binding(10) var<uniform> pick_ray: PickRay;
// Collider state per node at the frame's start (colliders) and at its end (colliders_end, binding
// 21), a binding each so that neither needs more than 32 bytes per node; a single placeholder
// entry each while the scene has no colliders (params.collider_count = 0).
@group(0) @binding(11) var<storage, read> colliders: array<ColliderNode>;
@group(0) @binding(12) var<storage, read> collider_surfaces: array<ColliderSurface>;
// The sorted path's bins (src/sim/sort/bins.rs): counters, one BlockBin per grid block, the lists of
// occupied blocks (0 .. block_count) and touched blocks (block_count .. 2·block_count), the
// particle indices in block order (and within a block in cell order), and the cell counters.
@group(0) @binding(13) var<storage, read_write> bin_header: BinHeader;
@group(0) @binding(14) var<storage, read_write> block_bins: array<BlockBin>;
@group(0) @binding(15) var<storage, read_write> block_lists: array<u32>;
@group(0) @binding(16) var<storage, read_write> particle_order: array<u32>;
// One counter per cell, block by block (block · BLOCK_CELLS + cell within the block): the cell's
// particle count (bin_count), then its first place within the block's range (bin_offsets), then
// bin_scatter's cursor.
@group(0) @binding(17) var<storage, read_write> cell_bins: array<atomic<u32>>;
// p2g_gather's particles in particle_order's order (p2g_sources writes them); a single placeholder
// entry unless the sorted path's P2G is p2g_gather.
@group(0) @binding(18) var<storage, read_write> scatter_sources: array<ScatterSource>;
// Each stored particle's index in the host's order: the reorder pass moves particles into block
// order, and the host puts them back by this when it reads them (src/sim/particles.rs).
@group(0) @binding(19) var<storage, read_write> particle_id: array<u32>;
// The reorder's scratch: REORDER_SLOTS 16-byte slots per particle, which hold one round's share of
// a particle's streams at a time (src/sim/sort/reorder.rs), as REORDER_SLOTS planes of particle_count
// slots (reorder_slot).
@group(0) @binding(20) var<storage, read_write> reorder_scratch: array<vec4<u32>>;
const REORDER_SLOTS: u32 = 3u;
// The colliders at the frame's end (see binding 11).
@group(0) @binding(21) var<storage, read> colliders_end: array<ColliderNode>;
// The substep clock, one of all pages (see SubstepClock).
@group(0) @binding(23) var<storage, read_write> clock: SubstepClock;
// The current substep's length, seconds (every pass of a substep reads it here).
fn substep_dt() -> f32 {
    return clock.dt;
}
// Where the current substep ends within the collider frame: 0 at its start, 1 at its end.
fn substep_blend() -> f32 {
    return clock.blend;
}
// The sparse grid's map from grid block to pool block, stored one up so that zero, as a buffer is
// made and cleared, means none: read it through block_slot. A single placeholder entry while the
// grid is dense (params.grid_pool_blocks = 0).
@group(0) @binding(22) var<storage, read_write> block_slots: array<u32>;
// block_slot of a block given no pool block this substep. It also stands for "no place" where
// grid_place and cell_counter return one.
const NO_SLOT: u32 = 0xffffffffu;
// block_slot of a block that asked for one past the pool's end (so later pages do not ask again).
const POOL_FULL: u32 = 0xfffffffeu;

// The pool block of grid block `block` (sparse grid), or NO_SLOT or POOL_FULL: stored 0 wraps to
// NO_SLOT, stored 0xffffffff (POOL_FULL + 1, set_block_slot) to POOL_FULL, so one comparison,
// `>= POOL_FULL`, finds both.
fn block_slot(block: u32) -> u32 {
    return block_slots[block] - 1u;
}

// Stores `slot` (a pool block, or POOL_FULL) as block_slot reads it.
fn set_block_slot(block: u32, slot: u32) {
    block_slots[block] = slot + 1u;
}

// Slot `c` of place `index` in the reorder's scratch. Planes rather than a particle's slots side by
// side: each store and load of a round then covers consecutive 16-byte slots across the threads,
// as the streams' own do.
fn reorder_slot(index: u32, c: u32) -> u32 {
    return c * params.particle_count + index;
}

fn padded_matrix(c: array<vec4<f32>, 3>) -> mat3x3<f32> {
    return mat3x3<f32>(c[0].xyz, c[1].xyz, c[2].xyz);
}

fn padded_columns(m: mat3x3<f32>) -> array<vec4<f32>, 3> {
    return array<vec4<f32>, 3>(vec4<f32>(m[0], 0.0), vec4<f32>(m[1], 0.0), vec4<f32>(m[2], 0.0));
}

// τ with each off-diagonal pair replaced by its mean: what store_stress keeps. τ is symmetric, so
// this changes at most the last bit of an off-diagonal entry; g2p2g scatters with it too, so the
// fused and sorted paths use the same τ.
fn symmetric_stress(t: mat3x3<f32>) -> mat3x3<f32> {
    let xy = 0.5 * (t[1][0] + t[0][1]);
    let xz = 0.5 * (t[2][0] + t[0][2]);
    let yz = 0.5 * (t[2][1] + t[1][2]);
    return mat3x3<f32>(t[0][0], xy, xz, xy, t[1][1], yz, xz, yz, t[2][2]);
}

// Stores symmetric_stress(t) for particle `index`: xx, yy, zz, xy, then xz, yz (two full vec4s).
fn store_stress(index: u32, t: mat3x3<f32>) {
    let s = symmetric_stress(t);
    particle_stress[2u * index] = vec4<f32>(s[0][0], s[1][1], s[2][2], s[1][0]);
    particle_stress[2u * index + 1u] = vec4<f32>(s[2][0], s[2][1], 0.0, 0.0);
}

fn load_stress(index: u32) -> mat3x3<f32> {
    let a = particle_stress[2u * index];
    let b = particle_stress[2u * index + 1u];
    return mat3x3<f32>(a.x, a.w, b.x, a.w, a.y, b.y, b.x, b.y, a.z);
}

// Particle `index`, gathered from the streams. Loads whose values a pass never uses are dead code
// the compiler may drop (g2p2g recomputes C, so it need not read particle_affine).
fn load_particle(index: u32) -> Particle {
    let position = particle_position[index];
    let velocity = particle_velocity[index];
    let plastic = particle_plastic[index];
    return Particle(
        position.xyz,
        position.w,
        velocity.xyz,
        velocity.w,
        padded_matrix(particle_affine[index]),
        padded_matrix(particle_deformation[index]),
        plastic.plastic_jacobian,
        plastic.material,
        plastic.damage,
        plastic.strength,
    );
}

// Writes particle `index` back to the streams.
fn store_particle(index: u32, p: Particle) {
    particle_position[index] = vec4<f32>(p.position, p.mass);
    particle_velocity[index] = vec4<f32>(p.velocity, p.volume);
    particle_affine[index] = padded_columns(p.affine);
    particle_deformation[index] = padded_columns(p.deformation);
    particle_plastic[index] = ParticlePlastic(p.plastic_jacobian, p.material, p.damage, p.strength);
}

// The flat thread index of a dispatch that may spill into y (see dispatch_size in src/sim/record.rs).
fn flat_index(workgroup: vec3<u32>, local: u32, workgroups: vec3<u32>) -> u32 {
    return (workgroup.y * workgroups.x + workgroup.x) * WORKGROUP_SIZE + local;
}

// The node's place in the dense grid: the index of the collider fields, and of grid_fixed and
// grid_velocity while the grid is dense (see grid_place).
fn node_index(node: vec3<u32>) -> u32 {
    return node.x + params.node_dims.x * (node.y + params.node_dims.y * node.z);
}

// The node's place in grid_fixed (times GRID_FIXED_WORDS) and grid_velocity: node_index on a dense
// grid; on a sparse one its block's pool block, then the node within the block, x fastest. NO_SLOT
// where the block has no pool block this substep (the pool ran out: the node is skipped).
fn grid_place(node: vec3<u32>) -> u32 {
    if (!SPARSE_GRID) {
        return node_index(node);
    }
    let slot = block_slot(block_index(node / BLOCK_EDGE));
    if (slot >= POOL_FULL) {
        return NO_SLOT;
    }
    return block_place(slot, node % BLOCK_EDGE);
}

// The place of node `within` (0 .. BLOCK_EDGE per axis, x fastest) of block `block` in an array of
// BLOCK_CELLS entries per block: a cell counter of a grid block (cell_of_node), a node of a sparse
// grid's pool block (grid_place).
fn block_place(block: u32, within: vec3<u32>) -> u32 {
    return block * BLOCK_CELLS + within.x + BLOCK_EDGE * (within.y + BLOCK_EDGE * within.z);
}

// Scales v down to length `limit` if it is longer. The length is taken of v divided by its largest
// component, so finite vectors whose length would overflow f32 (|v| ≳ 1.8e19) are capped too.
fn clamp_speed(v: vec3<f32>, limit: f32) -> vec3<f32> {
    let largest = max(max(abs(v.x), abs(v.y)), abs(v.z));
    if (largest == 0.0) {
        return v;
    }
    let direction = v / largest;
    let length_over_largest = length(direction);
    if (largest * length_over_largest <= limit) {
        return v;
    }
    return direction * (limit / length_over_largest);
}

// Corners of the domain box: the wall nodes. Particles are kept between them.
fn domain_lo() -> vec3<f32> {
    return params.grid_origin + vec3<f32>(params.wall_lo) * params.cell_size;
}

fn domain_hi() -> vec3<f32> {
    return params.grid_origin + vec3<f32>(params.wall_hi) * params.cell_size;
}

fn node_count() -> u32 {
    return params.node_dims.x * params.node_dims.y * params.node_dims.z;
}

// Blocks along each axis: enough to cover every node.
fn block_dims() -> vec3<u32> {
    return (params.node_dims + vec3<u32>(BLOCK_EDGE - 1u)) / BLOCK_EDGE;
}

fn block_count() -> u32 {
    let d = block_dims();
    return d.x * d.y * d.z;
}

fn block_coords(block: u32) -> vec3<u32> {
    let d = block_dims();
    return vec3<u32>(block % d.x, (block / d.x) % d.y, block / (d.x * d.y));
}

fn block_index(coords: vec3<u32>) -> u32 {
    let d = block_dims();
    return coords.x + d.x * (coords.y + d.y * coords.z);
}

// The slot of a 2D-spilled workgroup grid (see dispatch_size in src/sim/record.rs), for passes that
// run one workgroup per block.
fn workgroup_slot(workgroup: vec3<u32>, workgroups: vec3<u32>) -> u32 {
    return workgroup.y * workgroups.x + workgroup.x;
}

// The grid node of thread `local` in a workgroup of BLOCK_EDGE³ threads that runs one touched block
// (grid_update_blocks, p2g_gather: the touched list follows the occupied one in block_lists).
// `listed` is false past the touched count; `valid` also for nodes of an edge block beyond the grid.
struct TouchedNode {
    listed: bool,
    valid: bool,
    block: u32,
    node: vec3<u32>,
}

fn touched_node(workgroup: vec3<u32>, workgroups: vec3<u32>, local: u32) -> TouchedNode {
    var t: TouchedNode;
    let slot = workgroup_slot(workgroup, workgroups);
    if (slot >= atomicLoad(&bin_header.touched_count)) {
        return t;
    }
    let block = block_lists[block_count() + slot];
    t.listed = true;
    t.block = block;
    t.node = block_coords(block) * BLOCK_EDGE + vec3<u32>(local % BLOCK_EDGE, (local / BLOCK_EDGE) % BLOCK_EDGE, local / (BLOCK_EDGE * BLOCK_EDGE));
    t.valid = all(t.node < params.node_dims);
    return t;
}
