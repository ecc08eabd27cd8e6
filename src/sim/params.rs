//! Solver parameters on the host, and the structs the GPU shares with them.
//!
//! The `#[repr(C)]` structs here are mirrored in `shaders/mpm/types.wgsl` (`GpuParticle` in
//! `shaders/mpm/particle.wgsl`, which the render passes share); keep them in sync.
//! `tests/wgsl.rs` parses that file with naga and checks every member offset and struct size
//! against these definitions, so a drift fails `cargo test`.

use bytemuck::{Pod, Zeroable};
use glam::{DVec3, UVec3, Vec3};

pub use crate::grid::{Boundary, BoundaryKind, GRID_PADDING, GridSpec};

use super::fixed_point::FixedPoint;
use super::interaction::Interaction;

/// Most substeps (or PB-MPM steps) one frame may take. A frame that would need more (a state so
/// stiff or fast that the stable dt collapsed) is run with this many and a warning, rather than
/// stalling for hours.
pub const MAX_SUBSTEPS_PER_FRAME: u32 = 20_000;

/// Largest f32 below 2³¹: a contribution clamped to it still converts to i32 without saturating.
const CONTRIBUTION_LIMIT: f32 = 2_147_483_520.0;
use super::material::{MaterialKind, SnowMaterial};

/// Threads per workgroup of every MPM compute pass. Passed to WGSL as an override constant.
pub const WORKGROUP_SIZE: u32 = 256;
/// Largest number of workgroups in one dispatch dimension (WebGPU's default limit). Bigger
/// dispatches spill into y; shaders rebuild the flat index from `num_workgroups`.
pub const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;

/// Workgroups `(x, y)` for a dispatch of `groups` workgroups: one row while it fits
/// [`MAX_WORKGROUPS_PER_DIMENSION`], past that spilled into y (up to y − 1 more than asked).
/// `flat_index` in `types.wgsl` undoes this and the shaders skip threads past the end.
pub fn spill_workgroups(groups: u32) -> (u32, u32) {
    if groups <= MAX_WORKGROUPS_PER_DIMENSION {
        (groups, 1)
    } else {
        let y = groups.div_ceil(MAX_WORKGROUPS_PER_DIMENSION);
        (groups.div_ceil(y), y)
    }
}

/// Entries of the GPU's material table ([`GpuSimParams::materials`]): a particle's material id is
/// its emitter's index, and ids from `MAX_MATERIALS − 1` on share the last entry.
pub const MAX_MATERIALS: usize = 16;

/// The materials of the emitters that name their own, by emitter index (material id); `None`
/// takes the scene's [`SolverParams::material`].
pub type EmitterMaterials = [Option<SnowMaterial>; MAX_MATERIALS];

/// Everything the solver needs besides the particles. Plain f64 values; the GPU gets an f32 copy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverParams {
    /// The grid and domain.
    pub grid: GridSpec,
    /// The scene's material: that of every emitter without its own (the Material panel edits it).
    pub material: SnowMaterial,
    /// The emitters' own materials, by material id ([`SolverParams::material_of`]).
    pub emitter_materials: EmitterMaterials,
    /// Gravitational acceleration, m/s² (powder is z-up: default (0, 0, −9.81)).
    pub gravity: DVec3,
    /// Time step of one substep, in seconds, where it is fixed ([`crate::sim::Solver::step`]).
    pub dt: f64,
    /// Courant number of the stable dt `cfl · h / (v_max + c)`: auto frames step by it, and every
    /// substep's dt is measured against it ([`crate::sim::explicit::clock`]).
    pub cfl: f64,
    /// Domain-wall boundary condition.
    pub boundary: Boundary,
    /// Speed limit in m/s for particles and grid nodes. It bounds the fixed-point momentum range
    /// and keeps runaway states finite; ordinary snow motion stays far below it.
    pub max_speed: f64,
    /// The fixed-point scales of the P2G atomics.
    pub fixed_point: FixedPoint,
}

/// The uniform block every MPM pass reads. Mirrors `SimParams` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSimParams {
    /// Position of node (0,0,0), metres.
    pub grid_origin: [f32; 3],
    /// Cell edge h, metres.
    pub cell_size: f32,
    /// Nodes per axis, padding included.
    pub node_dims: [u32; 3],
    /// Number of particles.
    pub particle_count: u32,
    /// Node index of the lower walls.
    pub wall_lo: [u32; 3],
    /// Boundary kind code ([`BoundaryKind::gpu_code`]).
    pub boundary_kind: u32,
    /// Node index of the upper walls.
    pub wall_hi: [u32; 3],
    /// Coulomb friction coefficient at the walls.
    pub boundary_friction: f32,
    /// Gravity, m/s².
    pub gravity: [f32; 3],
    /// PB-MPM's Newton–PCG tolerance ([`super::pbmpm::PbmpmSettings::tolerance`]; 0 under the
    /// explicit integrator or the constraint iterations). (The substep's dt is the substep clock's,
    /// [`super::explicit::clock::GpuSubstepClock::dt`], which changes every substep.)
    pub pb_tolerance: f32,
    /// The largest P-wave modulus `λ₀ + 2μ₀` of the materials present, Pa (PB-MPM's force scale).
    pub stiffest_modulus: f32,
    /// The largest `(λ₀ + 2μ₀) / ρ₀` of the materials present, m²/s² (PB-MPM's preconditioner).
    pub fastest_wave_squared: f32,
    /// The smallest density of the materials present, kg/m³ (PB-MPM's force scale).
    pub lightest_density: f32,
    /// Padding: `interaction_center` below starts on 16 bytes, as WGSL puts a `vec3`.
    pub _pad0: [u32; 2],
    /// Speed limit, m/s.
    pub max_speed: f32,
    /// Fixed-point units per kilogram.
    pub mass_scale: f32,
    /// Fixed-point units per kg·m/s.
    pub momentum_scale: f32,
    /// Largest magnitude, in fixed-point units, of one P2G contribution; larger ones are clamped
    /// and counted (see `fixed_point.rs`: by construction none should be).
    pub contribution_limit: f32,
    /// Interaction tool code ([`super::interaction::InteractionMode::gpu_code`]).
    pub interaction_mode: u32,
    /// Outward speed of the repel tool, m/s.
    pub repel_speed: f32,
    /// Number of colliders; 0 skips the collider condition (and its reads) entirely.
    pub collider_count: u32,
    /// Centre of the tool's sphere, metres.
    pub interaction_center: [f32; 3],
    /// Radius of the tool's sphere, metres.
    pub interaction_radius: f32,
    /// Target velocity of the grab tool, m/s.
    pub interaction_velocity: [f32; 3],
    /// Blend rate toward the target, 1/s.
    pub interaction_rate: f32,
    /// Which particle g2p thread k updates: [`crate::sim::sort::bins::PARTICLE_ORDER_STORED`] (the one
    /// stored at place k) or [`crate::sim::sort::bins::PARTICLE_ORDER_BINNED`] (the k-th in block order).
    /// Set from the solver's path and reorder interval ([`crate::sim::sort::bins::SolverPath::particle_order`]).
    pub particle_order: u32,
    /// 1 with several pages of particles, whose touched blocks overlap, and where the grid is
    /// cleared at the start of a substep instead (`sim::step::record_substep`): `grid_update_blocks`
    /// leaves the sums it read in place instead of zeroing them, and `p2g_gather` adds its page's
    /// sums instead of storing them.
    pub keep_grid_sums: u32,
    /// 0 on a dense grid; on a sparse one the pool's size in blocks ([`crate::sim::grid_pool`]).
    pub grid_pool_blocks: u32,
    /// 1 for the first page of a sparse grid, whose `bin_clear` empties the map of pool blocks
    /// every substep.
    pub reset_grid_blocks: u32,
    /// PB-MPM's relaxation factor of each constraint step (0 under the explicit integrator).
    pub pb_relaxation: f32,
    /// PB-MPM's yield relaxation time τ, s (0: the strain beyond the elastic range turns plastic
    /// at once, as under the explicit integrator).
    pub pb_yield_time: f32,
    /// Padding: the material table starts on 16 bytes.
    pub _pad1: [u32; 2],
    /// The material of each material id ([`SolverParams::material_of`]).
    pub materials: [GpuMaterial; MAX_MATERIALS],
}

/// One material as the passes read it: an entry of [`GpuSimParams::materials`]. Mirrors
/// `Material` in `shaders/mpm/materials.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMaterial {
    /// Shear modulus μ₀, Pa (0 for a liquid).
    pub mu0: f32,
    /// Lamé λ₀, Pa (a liquid's bulk modulus).
    pub lambda0: f32,
    /// Hardening coefficient ξ in effect ([`SnowMaterial::effective_hardening`]).
    pub hardening: f32,
    /// θc.
    pub critical_compression: f32,
    /// θs.
    pub critical_stretch: f32,
    /// Tensile strength σ_F in effect, Pa (0: no cracking).
    pub tensile_strength: f32,
    /// Density ρ₀, kg/m³.
    pub density: f32,
    /// How it yields ([`super::material::MaterialKind::gpu_code`]): 0 snow, 1 sand, 2 liquid, 3
    /// visco-plastic.
    pub plasticity: u32,
    /// Sand's Drucker–Prager coefficient α ([`SnowMaterial::drucker_prager_alpha`]).
    pub friction_alpha: f32,
    /// `(λ₀ + 2μ₀) / ρ₀`, m²/s²: the square of the unhardened P-wave speed (the clock's).
    pub wave_speed_squared: f32,
    /// A visco-plastic fluid's yield stress τ_y, Pa.
    pub yield_stress: f32,
    /// A visco-plastic fluid's viscosity η, Pa·s.
    pub viscosity: f32,
    /// The elastic law ([`super::material::Elasticity::gpu_code`]): 0 fixed corotated, 1 neo-Hookean.
    pub elasticity: u32,
    /// Sand's cone apex as a volumetric Hencky strain ([`SnowMaterial::cohesion_strain`]); 0 when dry.
    pub cohesion_strain: f32,
    /// Padding: entries are 16-byte aligned in the uniform block.
    pub _pad: [u32; 2],
}

impl GpuMaterial {
    /// The f32 entry of `m`.
    pub fn of(m: &SnowMaterial) -> Self {
        Self {
            mu0: m.mu0() as f32,
            lambda0: m.lambda0() as f32,
            hardening: m.effective_hardening() as f32,
            critical_compression: m.critical_compression as f32,
            critical_stretch: m.critical_stretch as f32,
            tensile_strength: m.effective_tensile_strength() as f32,
            density: m.density as f32,
            plasticity: m.kind.gpu_code(),
            friction_alpha: m.drucker_prager_alpha() as f32,
            wave_speed_squared: m.wave_speed(1.0).powi(2) as f32,
            yield_stress: m.yield_stress as f32,
            viscosity: m.viscosity as f32,
            elasticity: m.elasticity.gpu_code(),
            cohesion_strain: if m.kind == MaterialKind::Sand { m.cohesion_strain() as f32 } else { 0.0 },
            _pad: [0; 2],
        }
    }

    /// `λ₀ + 2μ₀` summed in f32 from the f32 moduli, as the shaders would.
    fn p_wave_modulus(&self) -> f32 {
        self.lambda0 + 2.0 * self.mu0
    }
}

/// What a page's uniform block carries beside the scene's parameters and the interaction: the
/// solver's state as it stands for that page.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PageUniforms {
    /// Particles of the page.
    pub particle_count: u32,
    /// Colliders uploaded.
    pub collider_count: u32,
    /// Which particle g2p's thread k updates (`PARTICLE_ORDER_*` in [`super::sort::bins`]).
    pub particle_order: u32,
    /// Several pages share the grid: the grid update keeps the sums it reads.
    pub keep_grid_sums: bool,
    /// Blocks in a sparse grid's pool (0 on a dense grid).
    pub grid_pool_blocks: u32,
    /// This page's sort hands a sparse grid's pool blocks out anew (the first page's).
    pub reset_grid_blocks: bool,
    /// PB-MPM's relaxation factor ([`super::pbmpm::PbmpmSettings::relaxation`]); 0 when the
    /// explicit integrator steps.
    pub pb_relaxation: f32,
    /// PB-MPM's yield relaxation time ([`super::pbmpm::PbmpmSettings::yield_time`]); 0 when the
    /// explicit integrator steps.
    pub pb_yield_time: f32,
    /// PB-MPM's Newton–PCG tolerance ([`super::pbmpm::PbmpmSettings::tolerance`]); 0 when the
    /// explicit integrator steps.
    pub pb_tolerance: f32,
}

impl SolverParams {
    /// The material of particles of material id `id` (their emitter's index): the emitter's own,
    /// or the scene's. Ids from [`MAX_MATERIALS`] − 1 on share the last entry, as on the GPU.
    pub fn material_of(&self, id: u32) -> &SnowMaterial {
        let slot = (id as usize).min(MAX_MATERIALS - 1);
        self.emitter_materials[slot].as_ref().unwrap_or(&self.material)
    }

    /// The scene's material and every emitter's own: what bounds the solver's scales.
    pub fn materials(&self) -> impl Iterator<Item = &SnowMaterial> {
        std::iter::once(&self.material).chain(self.emitter_materials.iter().flatten())
    }

    /// The P-wave speed `√((λ₀ + 2μ₀) hc / ρ₀)` bound over the materials present, for a largest
    /// hardening factor `max_hardening` among the particles (a material that does not harden
    /// takes 1).
    pub fn wave_speed_bound(&self, max_hardening: f64) -> f64 {
        self.materials()
            .map(|m| m.wave_speed(if m.effective_hardening() != 0.0 { max_hardening } else { 1.0 }))
            .fold(0.0, f64::max)
    }

    /// The largest unhardened `(λ₀ + 2μ₀) / ρ₀` of the materials present, m²/s² (the square of
    /// the fastest P-wave speed at rest).
    pub fn fastest_wave_squared(&self) -> f64 {
        self.materials().map(|m| m.wave_speed(1.0).powi(2)).fold(0.0, f64::max)
    }

    /// The explicit step's viscous limit, seconds: the smallest `ρ₀ h² / (6η)` of the liquids
    /// present with a viscosity (the explicit diffusion limit `h² / (2dν)` in d = 3 dimensions,
    /// ν = η/ρ₀), +∞ without one. A visco-plastic material's viscosity acts through its return
    /// mapping, which needs no such limit.
    pub fn viscous_dt(&self) -> f64 {
        let h = self.grid.cell_size;
        self.materials()
            .filter(|m| m.kind == MaterialKind::Liquid && m.viscosity > 0.0)
            .map(|m| m.density * h * h / (6.0 * m.viscosity))
            .fold(f64::INFINITY, f64::min)
    }

    /// The largest density of the materials present, kg/m³ (the fixed-point scales' node mass).
    pub fn densest(&self) -> f64 {
        self.materials().map(|m| m.density).fold(0.0, f64::max)
    }

    /// The whole f32 uniform block of a page: the scene's parameters, the page's state and the
    /// mouse tool's `interaction`. The one place the block is filled.
    pub fn to_gpu(&self, page: &PageUniforms, interaction: &Interaction) -> GpuSimParams {
        let g = &self.grid;
        let mut materials = [GpuMaterial::of(&self.material); MAX_MATERIALS];
        for (entry, own) in materials.iter_mut().zip(&self.emitter_materials) {
            if let Some(m) = own {
                *entry = GpuMaterial::of(m);
            }
        }
        let most =
            |f: fn(&GpuMaterial) -> f32| self.materials().map(|m| f(&GpuMaterial::of(m))).fold(f32::MIN, f32::max);
        let f = |v: DVec3| -> [f32; 3] { v.as_vec3().to_array() };
        GpuSimParams {
            grid_origin: f(g.grid_origin()),
            cell_size: g.cell_size as f32,
            node_dims: g.node_dims().to_array(),
            particle_count: page.particle_count,
            wall_lo: [GRID_PADDING; 3],
            boundary_kind: self.boundary.kind.gpu_code(),
            wall_hi: (g.cells + UVec3::splat(GRID_PADDING)).to_array(),
            boundary_friction: self.boundary.friction as f32,
            gravity: f(self.gravity),
            pb_tolerance: page.pb_tolerance,
            stiffest_modulus: most(GpuMaterial::p_wave_modulus),
            fastest_wave_squared: most(|m| m.p_wave_modulus() / m.density),
            lightest_density: -most(|m| -m.density),
            _pad0: [0; 2],
            max_speed: self.max_speed as f32,
            mass_scale: self.fixed_point.mass_scale as f32,
            momentum_scale: self.fixed_point.momentum_scale as f32,
            contribution_limit: CONTRIBUTION_LIMIT,
            interaction_mode: interaction.mode.gpu_code(),
            repel_speed: interaction.repel_speed,
            collider_count: page.collider_count,
            interaction_center: interaction.center.to_array(),
            interaction_radius: interaction.radius,
            interaction_velocity: interaction.velocity.to_array(),
            interaction_rate: interaction.rate,
            particle_order: page.particle_order,
            keep_grid_sums: page.keep_grid_sums as u32,
            grid_pool_blocks: page.grid_pool_blocks,
            reset_grid_blocks: page.reset_grid_blocks as u32,
            pb_relaxation: page.pb_relaxation,
            pb_yield_time: page.pb_yield_time,
            _pad1: [0; 2],
            materials,
        }
    }
}

/// One material point as the host exchanges it with the solver (uploads, readbacks, export). On the
/// GPU it is split into streams ([`super::particles`]); its fields mirror the passes' `Particle`
/// value in `shaders/mpm/particle.wgsl`.
///
/// Matrices are column-major with each column padded to four floats (WGSL `mat3x3<f32>` layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuParticle {
    /// Position x_p, metres.
    pub position: [f32; 3],
    /// Mass m_p, kg (constant).
    pub mass: f32,
    /// Velocity v_p, m/s.
    pub velocity: [f32; 3],
    /// Initial volume V⁰_p, m³ (constant).
    pub volume: f32,
    /// APIC/MLS affine velocity matrix C_p, 1/s.
    pub affine: [[f32; 4]; 3],
    /// Elastic deformation gradient F_E.
    pub deformation: [[f32; 4]; 3],
    /// Plastic volume ratio J_P = det F_P.
    pub plastic_jacobian: f32,
    /// Material id (which emitter made the particle; v1 has a single snow material).
    pub material: u32,
    /// 1 once the particle has cracked (it then carries no tension), else 0.
    pub damage: f32,
    /// The particle's strength relative to the material's: its tensile strength and the stretch
    /// at which it cracks are the material's times this (1 for even snow).
    pub strength: f32,
}

impl GpuParticle {
    /// A fresh, undeformed particle.
    pub fn new(position: Vec3, velocity: Vec3, mass: f32, volume: f32, material: u32) -> Self {
        let identity = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]];
        Self {
            position: position.to_array(),
            mass,
            velocity: velocity.to_array(),
            volume,
            affine: [[0.0; 4]; 3],
            deformation: identity,
            plastic_jacobian: 1.0,
            material,
            damage: 0.0,
            strength: 1.0,
        }
    }
}

/// Counters and maxima the passes write with atomics. Mirrors `SolverStatus` in `types.wgsl`.
///
/// Float maxima are stored as the bit patterns of non-negative f32s, whose unsigned-integer order
/// equals their numeric order, so `atomicMax` on u32 works.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuSolverStatus {
    /// P2G contributions too large for i32 (clamped), and particles whose state was not finite when
    /// P2G read them (reset to rest, undeformed). Zero in any sane run.
    pub overflow_count: u32,
    /// Particles whose state was not finite and was reset (by P2G on input, or by G2P on output).
    pub nonfinite_count: u32,
    /// Bits of the largest particle speed, m/s (written by the `stats` pass).
    pub max_speed_bits: u32,
    /// Bits of the largest hardening factor (written by the `stats` pass).
    pub max_hardening_bits: u32,
    /// Bits of the smallest plastic Jacobian (written by the `stats` pass).
    pub min_plastic_jacobian_bits: u32,
    /// Bits of the largest plastic Jacobian (written by the `stats` pass).
    pub max_plastic_jacobian_bits: u32,
    /// Bits of the distance along the pick ray to the nearest particle near it (`pick` pass).
    pub pick_distance_bits: u32,
    /// Particles `g2p2g` advanced since the last report.
    pub fused_count: u32,
    /// Pool blocks the last substep's sort asked for (sparse grid; more than the pool holds when
    /// it ran out).
    pub grid_blocks_used: u32,
    /// The most pool blocks any substep asked for since the last report.
    pub grid_blocks_peak: u32,
    /// Bits of the largest relative residual a Newton–PCG step ended with since the last report
    /// (`pb_newton_reduce`; [`crate::sim::pbmpm::cpu::newton::SolveReport::mass_residual`]).
    pub max_solve_residual_bits: u32,
    /// CG iterations the Newton–PCG steps since the last report ran, added up.
    pub solve_iterations: u32,
    /// Newton–PCG steps since the last report.
    pub solve_steps: u32,
}

/// The ray of the `pick` pass. Mirrors `PickRay` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuPickRay {
    /// Ray origin, metres.
    pub origin: [f32; 3],
    /// Particles closer than this to the ray count as hit, metres.
    pub radius: f32,
    /// Unit direction.
    pub direction: [f32; 3],
    /// Padding to 32 bytes.
    pub _pad: f32,
}

impl GpuSolverStatus {
    /// The value the host writes before a `stats` pass: zero maxima, minima at +∞.
    pub fn reset() -> Self {
        Self {
            min_plastic_jacobian_bits: f32::INFINITY.to_bits(),
            pick_distance_bits: f32::INFINITY.to_bits(),
            ..Self::default()
        }
    }
}
