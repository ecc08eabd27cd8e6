//! What the water step's GPU module shares with the host: its WGSL, the structs it mirrors and
//! its bindings.

use bytemuck::{Pod, Zeroable};

use crate::sim::pressure::gpu::layout::{Binding, COMMON};
use crate::sim::water::cpu::WaterParticle;

/// The water step's own WGSL (`shaders/water/`): the shared declarations, the grid passes, the
/// particle passes, the snow's passes.
pub const SOURCES: [(&str, &str); 4] = [
    ("water/common.wgsl", include_str!("../../../../shaders/water/common.wgsl")),
    ("water/step.wgsl", include_str!("../../../../shaders/water/step.wgsl")),
    ("water/particles.wgsl", include_str!("../../../../shaders/water/particles.wgsl")),
    ("water/snow.wgsl", include_str!("../../../../shaders/water/snow.wgsl")),
];

/// The module's complete WGSL: the pressure solve's library (`linear`, `axis_stride`), then
/// [`SOURCES`] in order.
pub fn source() -> String {
    let mut out = String::from(COMMON);
    for (_, text) in SOURCES {
        out.push('\n');
        out.push_str(text);
    }
    out
}

/// The entry points the host builds pipelines for.
pub const ENTRIES: [&str; 23] = [
    "w_clear",
    "w_scatter",
    "w_classify",
    "w_faces",
    "w_divergence",
    "w_project",
    "w_copy_faces",
    "w_extrapolate",
    "w_gather",
    "w_clear_count",
    "w_count",
    "w_excess",
    "w_displacement_faces",
    "w_displace",
    "w_note_solve",
    "w_diagnose",
    "w_note_volume",
    "s_clear",
    "s_scatter",
    "s_join",
    "s_mix",
    "s_change",
    "s_apply",
];

/// Mirror of `WaterUniforms` in `common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct WaterUniforms {
    /// Grid cells along x, y, z, the solid layer included.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
    /// The first face of each axis in the face arrays.
    pub face_offsets: [u32; 3],
    /// Faces of all three axes.
    pub faces: u32,
    /// Gravity times the step, m/s.
    pub gravity_dt: [f32; 3],
    /// The step, s.
    pub dt: f32,
    /// The domain's extent without the solid layer, m.
    pub extent: [f32; 3],
    /// Cell edge, m.
    pub h: f32,
    /// Particles.
    pub particles: u32,
    /// 0 APIC, 1 the PIC/FLIP blend.
    pub transfer: u32,
    /// The FLIP share of the blend.
    pub flip_ratio: f32,
    /// dt / (ρ h).
    pub gradient_scale: f32,
    /// ρ h / dt.
    pub rhs_scale: f32,
    /// Particles a cell of water holds at rest.
    pub rest: f32,
    /// Fixed-point units per unit of the face sums and particle counts.
    pub fixed: f32,
    /// The fastest a particle may move, m/s.
    pub max_speed: f32,
    /// The domain's lowest corner, m.
    pub origin: [f32; 3],
    /// Snow particles in the projection.
    pub snow_particles: u32,
    /// A cell of water's mass ρ_w h³, kg: the unit of the snow's face masses.
    pub cell_mass: f32,
    /// 1 while snow is in the projection, else 0.
    pub snow: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
}

/// Water particles as the three streams the step reads and writes (the MPM solver's
/// `particle_position`, `particle_velocity` and `particle_affine` layouts): xyz and a w the step
/// keeps (mass, volume: here 1 and 0), and per particle the affine matrix C = ∇v as three vec4
/// columns (column j = ∂v/∂x_j; [`WaterParticle::affine`] holds its rows).
pub fn streams_of(particles: &[WaterParticle]) -> [Vec<[f32; 4]>; 3] {
    let v4 = |v: &nalgebra::Vector3<f64>, w: f32| [v.x as f32, v.y as f32, v.z as f32, w];
    let column =
        |p: &WaterParticle, j: usize| [p.affine[0][j] as f32, p.affine[1][j] as f32, p.affine[2][j] as f32, 0.0];
    [
        particles.iter().map(|p| v4(&p.position, 1.0)).collect(),
        particles.iter().map(|p| v4(&p.velocity, 0.0)).collect(),
        particles.iter().flat_map(|p| [0, 1, 2].map(|j| column(p, j))).collect(),
    ]
}

/// The particles of [`streams_of`]'s three streams.
pub fn particles_of(positions: &[[f32; 4]], velocities: &[[f32; 4]], affine: &[[f32; 4]]) -> Vec<WaterParticle> {
    let v3 = |v: &[f32; 4]| nalgebra::Vector3::new(v[0] as f64, v[1] as f64, v[2] as f64);
    let row = |c: &[[f32; 4]], a: usize| nalgebra::Vector3::new(c[0][a] as f64, c[1][a] as f64, c[2][a] as f64);
    positions
        .iter()
        .zip(velocities)
        .zip(affine.chunks_exact(3))
        .map(|((x, v), c)| WaterParticle {
            position: v3(x),
            velocity: v3(v),
            affine: [row(c, 0), row(c, 1), row(c, 2)],
        })
        .collect()
}

/// The group's bindings, as declared in `common.wgsl`.
pub const BINDINGS: [Binding; 23] = [
    Binding::Uniform,
    Binding::Write, // positions
    Binding::Write, // velocities
    Binding::Write, // affines
    Binding::Write, // face_weight
    Binding::Write, // face_momentum
    Binding::Write, // velocity
    Binding::Write, // scattered
    Binding::Write, // flags
    Binding::Write, // velocity_copy
    Binding::Write, // flags_copy
    Binding::Write, // liquid
    Binding::Write, // count
    Binding::Write, // kinds (the pressure solve's)
    Binding::Read,  // coeffs (the pressure solve's)
    Binding::Write, // rhs (the pressure solve's)
    Binding::Read,  // pressure (the pressure solve's)
    Binding::Write, // status
    Binding::Read,  // solve (the pressure solve's scalars)
    Binding::Read,  // solid
    Binding::Read,  // open
    Binding::Write, // diagnostics
    Binding::Read,  // solid_velocity
];

/// The snow's group (group 1, as declared in `snow.wgsl`).
pub const SNOW_BINDINGS: [Binding; 10] = [
    Binding::Read,  // snow_positions
    Binding::Write, // snow_velocities
    Binding::Read,  // snow_affines
    Binding::Read,  // snow_deformations
    Binding::Read,  // snow_plastic
    Binding::Write, // snow_sums
    Binding::Write, // snow_cells
    Binding::Write, // snow_mix
    Binding::Write, // snow_change
    Binding::Write, // solve_open (the pressure operator's level-0 open fractions)
];

/// The status buffer (`status` in `common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct WaterStatus {
    /// The fastest particle's speed after the last step, m/s.
    pub fastest: f32,
    /// Air cells of the last classification.
    pub air_cells: u32,
    /// The most iterations a projection solve took since the host last zeroed it.
    pub iterations: u32,
    /// Projection solves since then that stopped before the tolerance.
    pub unconverged: u32,
    /// The most iterations a volume correction's solve took since then.
    pub volume_iterations: u32,
    /// Volume solves since then that stopped before their tolerance.
    pub volume_unconverged: u32,
    /// Padding to 32 bytes.
    pub pad: [u32; 2],
}
