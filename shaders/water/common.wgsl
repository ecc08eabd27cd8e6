// common: what the water step's passes share (src/sim/water/gpu/mod.rs composes
// shaders/pressure/common.wgsl, this, step.wgsl and particles.wgsl into one module and records the
// passes in order; the f64 twin is src/sim/water/cpu/, whose functions each pass names).
//
// The grid has a layer of solid cells around the domain: grid cell i spans [(i − 1) h, i h) along
// an axis, and the face along axis a with index i lies at (i − 1) h along a, at cell centres
// along the others. The faces of the three axes sit one after another in the face arrays.
//
// Particles add to the faces with integer atomics: a face's weight and momentum in units of
// 1/u.fixed (WGSL has no float atomics; integer sums do not depend on the order of the adds).

struct WaterUniforms {
    // Grid cells along x, y, z, the solid layer included.
    dims: vec3<u32>,
    // Their count.
    cells: u32,
    // The first face of each axis in the face arrays.
    face_offsets: vec3<u32>,
    // Faces of all three axes.
    faces: u32,
    // Gravity times the step, m/s.
    gravity_dt: vec3<f32>,
    // The step, s.
    dt: f32,
    // The domain's extent (without the solid layer), m.
    extent: vec3<f32>,
    // Cell edge, m.
    h: f32,
    // Particles.
    particles: u32,
    // 0 APIC, 1 the PIC/FLIP blend.
    transfer: u32,
    // The FLIP share of the blend.
    flip_ratio: f32,
    // dt / (ρ h): the pressure's gradient to a velocity change.
    gradient_scale: f32,
    // ρ h / dt: the faces' divergence to the pressure's right-hand side.
    rhs_scale: f32,
    // Particles a cell of water holds at rest.
    rest: f32,
    // Fixed-point units per unit of the face sums and particle counts: a power of two that keeps a
    // face's momentum within i32 at four times the rest packing moving at max_speed
    // (`fixed_point_scale` in src/sim/water/gpu/mod.rs).
    fixed: f32,
    // The fastest a particle may move, m/s (the scene's max_speed).
    max_speed: f32,
    // The domain's lowest corner, m: particle positions are in the scene's frame.
    origin: vec3<f32>,
    // Snow particles in the projection (snow.wgsl).
    snow_particles: u32,
    // A cell of water's mass ρ_w h³, kg: the unit of the snow's face masses.
    cell_mass: f32,
    // 1 while snow is in the projection, else 0.
    snow: u32,
    pad0: u32,
    pad1: u32,
}

// status[0]: the fastest particle's speed after the gather (f32 bits; non-negative floats order
// as their bits do); status[1]: air cells of the last classification; status[2]: the most
// iterations a projection solve took since the host zeroed it; status[3]: projection solves since
// then that stopped unconverged; status[4] and [5]: the same of the volume correction's solves.
const STATUS_SPEED: u32 = 0u;
const STATUS_AIR: u32 = 1u;
const STATUS_ITERATIONS: u32 = 2u;
const STATUS_UNCONVERGED: u32 = 3u;
const STATUS_VOLUME_ITERATIONS: u32 = 4u;
const STATUS_VOLUME_UNCONVERGED: u32 = 5u;

const AIR: u32 = 0u;
const LIQUID: u32 = 1u;
const SOLID: u32 = 2u;

// Face flags: the velocity is known; particles reached the face.
const KNOWN: u32 = 1u;
const SCATTERED: u32 = 2u;

@group(0) @binding(0) var<uniform> u: WaterUniforms;
// The particles as the MPM solver's streams hold them (src/sim/particles.rs): position (w the
// mass) and velocity (w the volume), which the step keeps, and APIC's affine part as the MPM
// stream holds its matrix C = ∇v: three vec4 columns per particle, column j = ∂v/∂x_j, 1/s.
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> velocities: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> affines: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> face_weight: array<atomic<i32>>;
@group(0) @binding(5) var<storage, read_write> face_momentum: array<atomic<i32>>;
@group(0) @binding(6) var<storage, read_write> velocity: array<f32>;
@group(0) @binding(7) var<storage, read_write> scattered: array<f32>;
@group(0) @binding(8) var<storage, read_write> flags: array<u32>;
@group(0) @binding(9) var<storage, read_write> velocity_copy: array<f32>;
@group(0) @binding(10) var<storage, read_write> flags_copy: array<u32>;
@group(0) @binding(11) var<storage, read_write> liquid: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> count: array<atomic<i32>>;
@group(0) @binding(13) var<storage, read_write> kinds: array<u32>;
@group(0) @binding(14) var<storage, read> coeffs: array<vec4<f32>>;
@group(0) @binding(15) var<storage, read_write> rhs: array<f32>;
@group(0) @binding(16) var<storage, read> pressure: array<f32>;
@group(0) @binding(17) var<storage, read_write> status: array<atomic<u32>, 8>;
@group(0) @binding(18) var<storage, read> solve: PcgScalars;
// Per cell 1 where a collider makes it solid (the solid layer is known without it).
@group(0) @binding(19) var<storage, read> solid: array<u32>;
// Per face its open fraction θ (the share outside the colliders), in the face arrays' order.
@group(0) @binding(20) var<storage, read> open: array<f32>;
// Per cell what the last projection did: its divergence before and after (1/s), its pressure
// (Pa) and the solve's residual b − A p there (`w_divergence`, `w_diagnose`).
@group(0) @binding(21) var<storage, read_write> diagnostics: array<vec4<f32>>;
// Per face the colliders' velocity, its own component (m/s): what a face beside a collider carries
// and the covered share of a face moves at (`solids::face_velocities`); zero for static ones.
@group(0) @binding(22) var<storage, read> solid_velocity: array<f32>;

// Σ_a θ u over the high faces less the low ones of the cell at `at`: its divergence times h, m/s,
// each face's flux weighted by its open fraction as the pressure operator is (with snow, the two
// phases' volume flux: `face_flux` in snow.wgsl).
fn cell_flux(at: vec3<u32>) -> f32 {
    var div = 0.0;
    for (var a = 0u; a < 3u; a++) {
        var up = at;
        up[a] += 1u;
        let hi = face_index(a, up);
        let lo = face_index(a, at);
        // The covered share of a face moves with the collider (`FaceGrid::solid_flux`).
        div += open[hi] * face_flux(hi) + (1.0 - open[hi]) * solid_velocity[hi];
        div -= open[lo] * face_flux(lo) + (1.0 - open[lo]) * solid_velocity[lo];
    }
    return div;
}

// Particle p's position in the domain's frame (origin at its lowest corner).
fn local_position(p: u32) -> vec3<f32> {
    return positions[p].xyz - u.origin;
}

// Sets particle p's position from one in the domain's frame, keeping its mass.
fn store_position(p: u32, x: vec3<f32>) {
    positions[p] = vec4<f32>(x + u.origin, positions[p].w);
}

fn face_dims(axis: u32) -> vec3<u32> {
    var d = u.dims;
    d[axis] += 1u;
    return d;
}

fn face_index(axis: u32, node: vec3<u32>) -> u32 {
    let d = face_dims(axis);
    return u.face_offsets[axis] + node.x + d.x * (node.y + d.y * node.z);
}

fn cell_index(at: vec3<u32>) -> u32 {
    return at.x + u.dims.x * (at.y + u.dims.y * at.z);
}

// The axis and node of face f.
fn face_of(f: u32) -> vec4<u32> {
    var axis = 0u;
    if f >= u.face_offsets.z {
        axis = 2u;
    } else if f >= u.face_offsets.y {
        axis = 1u;
    }
    let d = face_dims(axis);
    let local = f - u.face_offsets[axis];
    return vec4<u32>(local % d.x, (local / d.x) % d.y, local / (d.x * d.y), axis);
}

// The quadratic B-spline stencil of component `axis` at x (the twin's `faces::Stencil`).
struct Stencil {
    base: vec3<i32>,
    w0: vec3<f32>,
    w1: vec3<f32>,
    w2: vec3<f32>,
    xi: vec3<f32>,
}

fn stencil(axis: u32, x: vec3<f32>) -> Stencil {
    var shift = vec3<f32>(0.5);
    shift[axis] = 1.0;
    let xi = x / u.h + shift;
    let base = floor(xi - 0.5);
    let f = xi - base;
    return Stencil(vec3<i32>(base), 0.5 * (1.5 - f) * (1.5 - f), 0.75 - (f - 1.0) * (f - 1.0), 0.5 * (f - 0.5) * (f - 0.5), xi);
}

fn weight_of(s: Stencil, n: u32, axis: u32) -> f32 {
    return select(select(s.w2[axis], s.w1[axis], n == 1u), s.w0[axis], n == 0u);
}

// Node n (0..27) of a stencil, or x = −1 when it lies outside the faces along `axis`.
fn stencil_node(s: Stencil, axis: u32, n: u32) -> vec3<i32> {
    let node = s.base + vec3<i32>(i32(n % 3u), i32((n / 3u) % 3u), i32(n / 9u));
    if any(node < vec3<i32>(0)) || any(node >= vec3<i32>(face_dims(axis))) {
        return vec3<i32>(-1);
    }
    return node;
}

fn stencil_weight(s: Stencil, n: u32) -> f32 {
    return weight_of(s, n % 3u, 0u) * weight_of(s, (n / 3u) % 3u, 1u) * weight_of(s, n / 9u, 2u);
}

// A point's share of one of the eight cells around it (trilinear, `volume::spread`): corner
// `corner` (bit a: the far cell along axis a), cells clamped to [edge, dims − 1 − edge] (edge 1
// folds a share landing in the solid layer into the cell inside it).
struct CornerShare {
    cell: u32,
    share: f32,
}

fn corner_share(x: vec3<f32>, corner: u32, edge: i32) -> CornerShare {
    let xi = x / u.h + 0.5;
    let base = floor(xi);
    let f = xi - base;
    let far = vec3<u32>(corner & 1u, (corner >> 1u) & 1u, corner >> 2u);
    let share = select(1.0 - f, f, far == vec3<u32>(1u));
    let at = clamp(vec3<i32>(base) + vec3<i32>(far), vec3<i32>(edge), vec3<i32>(u.dims) - 1 - edge);
    return CornerShare(cell_index(vec3<u32>(at)), share.x * share.y * share.z);
}

// The particle's grid cell (the twin's `classify`).
fn particle_cell(x: vec3<f32>) -> u32 {
    let c = clamp(vec3<i32>(floor(x / u.h)) + 1, vec3<i32>(1), vec3<i32>(u.dims) - 2);
    return cell_index(vec3<u32>(c));
}

