//! The CPU twin of the solver: the same substep as the GPU passes, in plain f64, written for clarity
//! so that tests can check the GPU against it.
//!
//! It follows `docs/algorithm.md` step by step, guards included (speed clamps, walls, position,
//! `Jp` and hardening clamps), but sums in f64 instead of fixed point and has no non-finite reset.
//! One module per GPU pass: [`grid_clear`], [`p2g`], [`grid_update`] (with the colliders'
//! condition in [`colliders`]), [`g2p`], [`bins`] for the sort's binning and [`clock`] for each
//! substep's dt; [`svd`] holds the signed SVD the snow model needs.

pub mod bins;
pub mod clock;
pub mod colliders;
pub mod g2p;
pub mod grid_clear;
pub mod grid_update;
pub mod p2g;
pub mod svd;

use glam::Vec3;
use nalgebra::{Matrix3, Vector3};

use super::interaction::Interaction;
use super::params::{GpuParticle, GridSpec, SolverParams};
use crate::collider::field::ColliderFrames;

/// One material point in f64. Fields as in [`GpuParticle`]; matrices are nalgebra's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuParticle {
    /// Position x_p, metres.
    pub position: Vector3<f64>,
    /// Velocity v_p, m/s.
    pub velocity: Vector3<f64>,
    /// Mass m_p, kg (constant).
    pub mass: f64,
    /// Initial volume V⁰_p, m³ (constant).
    pub volume: f64,
    /// Affine velocity matrix C_p, 1/s.
    pub affine: Matrix3<f64>,
    /// Elastic deformation gradient F_E.
    pub deformation: Matrix3<f64>,
    /// Plastic volume ratio J_P.
    pub plastic_jacobian: f64,
    /// Material id.
    pub material: u32,
    /// 1 once the particle has cracked (it then carries no tension), else 0.
    pub damage: f64,
    /// Strength relative to the material's (tensile strength and cracking stretch).
    pub strength: f64,
}

/// A GPU matrix (three columns padded to four floats) as an f64 matrix.
fn matrix_from_gpu(m: &[[f32; 4]; 3]) -> Matrix3<f64> {
    Matrix3::from_fn(|row, col| m[col][row] as f64)
}

/// An f64 matrix in the GPU layout (column-major, columns padded with a zero).
fn matrix_to_gpu(m: &Matrix3<f64>) -> [[f32; 4]; 3] {
    let col = |c: usize| [m[(0, c)] as f32, m[(1, c)] as f32, m[(2, c)] as f32, 0.0];
    [col(0), col(1), col(2)]
}

impl CpuParticle {
    /// Widens a GPU particle to f64.
    pub fn from_gpu(p: &GpuParticle) -> Self {
        let v = |a: [f32; 3]| Vector3::new(a[0] as f64, a[1] as f64, a[2] as f64);
        Self {
            position: v(p.position),
            velocity: v(p.velocity),
            mass: p.mass as f64,
            volume: p.volume as f64,
            affine: matrix_from_gpu(&p.affine),
            deformation: matrix_from_gpu(&p.deformation),
            plastic_jacobian: p.plastic_jacobian as f64,
            material: p.material,
            damage: p.damage as f64,
            strength: p.strength as f64,
        }
    }

    /// Rounds the particle to the GPU's f32 layout.
    pub fn to_gpu(&self) -> GpuParticle {
        let v = |a: &Vector3<f64>| Vec3::new(a.x as f32, a.y as f32, a.z as f32);
        let mut p =
            GpuParticle::new(v(&self.position), v(&self.velocity), self.mass as f32, self.volume as f32, self.material);
        p.affine = matrix_to_gpu(&self.affine);
        p.deformation = matrix_to_gpu(&self.deformation);
        p.plastic_jacobian = self.plastic_jacobian as f32;
        p.damage = self.damage as f32;
        p.strength = self.strength as f32;
        p
    }
}

/// The background grid in f64. Every vector has one entry per node, indexed by
/// [`GridSpec::node_index`].
#[derive(Clone, Debug, PartialEq)]
pub struct CpuGrid {
    /// Node mass, kg (written by P2G).
    pub mass: Vec<f64>,
    /// Node momentum, kg·m/s (written by P2G).
    pub momentum: Vec<Vector3<f64>>,
    /// Node velocity after forces and walls, m/s (written by the grid update).
    pub velocity: Vec<Vector3<f64>>,
}

impl CpuGrid {
    /// An all-zero grid for `spec`.
    pub fn new(spec: &GridSpec) -> Self {
        let n = spec.node_count() as usize;
        Self { mass: vec![0.0; n], momentum: vec![Vector3::zeros(); n], velocity: vec![Vector3::zeros(); n] }
    }
}

/// The f64 solver: parameters, particles and grid.
#[derive(Clone, Debug)]
pub struct CpuSolver {
    /// Solver parameters (the same the GPU gets, before rounding to f32).
    pub params: SolverParams,
    /// The particles.
    pub particles: Vec<CpuParticle>,
    /// The grid.
    pub grid: CpuGrid,
    /// The grab/repel tool (none unless a test sets it).
    pub interaction: Interaction,
    /// The colliders' frame, as [`crate::sim::Solver::set_colliders`] gives the GPU.
    pub colliders: Option<ColliderFrames>,
    /// Where the next grid update lies in the collider frame, 0 (start) to 1 (end).
    pub collider_blend: f64,
}

impl CpuSolver {
    /// A solver over a copy of `particles`, widened to f64, with a zero grid.
    pub fn new(params: SolverParams, particles: &[GpuParticle]) -> Self {
        Self {
            grid: CpuGrid::new(&params.grid),
            particles: particles.iter().map(CpuParticle::from_gpu).collect(),
            params,
            interaction: Interaction::default(),
            colliders: None,
            collider_blend: 1.0,
        }
    }

    /// `substeps` substeps as one collider frame, as [`crate::sim::Solver::step`] runs them:
    /// substep k sees the colliders `(k + 1) / substeps` of the way through the frame.
    pub fn step_frame(&mut self, substeps: u32) {
        for k in 0..substeps {
            self.collider_blend = (k + 1) as f64 / substeps as f64;
            self.substep();
        }
    }

    /// One substep of `params.dt`: grid_clear, p2g, grid_update, g2p.
    pub fn substep(&mut self) {
        self.grid_clear();
        self.p2g();
        self.grid_update();
        self.g2p();
    }

    /// Zeroes node mass and momentum ([`grid_clear::grid_clear`]).
    pub fn grid_clear(&mut self) {
        grid_clear::grid_clear(&mut self.grid);
    }

    /// Particle to grid ([`p2g::p2g`]).
    pub fn p2g(&mut self) {
        p2g::p2g(&self.params, &self.particles, &mut self.grid);
    }

    /// Grid velocities, gravity and walls ([`grid_update::grid_update`]).
    pub fn grid_update(&mut self) {
        let colliders = self.colliders.as_ref().map(|c| (c, self.collider_blend));
        grid_update::grid_update(&self.params, &self.interaction, colliders, &mut self.grid);
    }

    /// Grid to particle, plasticity and advection ([`g2p::g2p`]).
    pub fn g2p(&mut self) {
        g2p::g2p(&self.params, &self.grid, &mut self.particles);
    }

    /// The particles in the GPU's f32 layout.
    pub fn gpu_particles(&self) -> Vec<GpuParticle> {
        self.particles.iter().map(CpuParticle::to_gpu).collect()
    }

    /// Total particle momentum `Σ m_p v_p`, kg·m/s.
    pub fn total_momentum(&self) -> Vector3<f64> {
        self.particles.iter().map(|p| p.mass * p.velocity).sum()
    }

    /// Total particle angular momentum about the origin, APIC term included, kg·m²/s.
    ///
    /// P2G gives node i the momentum `Σ_p w_ip (m_p v_p + A_p d_ip)` with `d_ip = x_i − x_p`.
    /// Writing `x_i = x_p + d_ip` and using the quadratic B-spline's moments `Σ_i w_ip = 1`,
    /// `Σ_i w_ip d_ip = 0` and `Σ_i w_ip d_ip d_ipᵀ = D = h²/4 · I` (exact for any particle position),
    ///
    /// `Σ_i x_i × P_i = Σ_p [ x_p × m_p v_p + Σ_i w_ip d_ip × (A_p d_ip) ]`,
    ///
    /// and `(Σ_i w d × (A d))_a = ε_abc A_cd D_bd = h²/4 · ε_abc A_cb`. The stress part of
    /// `A_p = −dt V⁰ (4/h²) τ + m_p C_p` is symmetric (τ is: `R Fᵀ = U Σ Uᵀ`), so `ε_abc τ_cb = 0`
    /// and only the affine part remains. Hence
    ///
    /// `L_p = x_p × m_p v_p + m_p h²/4 · (C_zy − C_yz, C_xz − C_zx, C_yx − C_xy)`.
    ///
    /// (For `C = [ω]×`, a rigid rotation, the extra term is `m h²/2 · ω`: the particle's spin.)
    /// This equals [`grid_angular_momentum`](Self::grid_angular_momentum) right after P2G as long
    /// as the P2G speed clamp is inactive.
    pub fn total_angular_momentum(&self) -> Vector3<f64> {
        let d = self.params.grid.cell_size.powi(2) / 4.0;
        self.particles
            .iter()
            .map(|p| {
                let c = &p.affine;
                let spin = Vector3::new(c[(2, 1)] - c[(1, 2)], c[(0, 2)] - c[(2, 0)], c[(1, 0)] - c[(0, 1)]);
                p.position.cross(&(p.mass * p.velocity)) + p.mass * d * spin
            })
            .sum()
    }

    /// Total grid momentum `Σ_i P_i`, kg·m/s (meaningful after P2G).
    pub fn grid_momentum(&self) -> Vector3<f64> {
        self.grid.momentum.iter().sum()
    }

    /// Total grid angular momentum about the origin `Σ_i x_i × P_i`, kg·m²/s (after P2G).
    pub fn grid_angular_momentum(&self) -> Vector3<f64> {
        let spec = &self.params.grid;
        let dims = spec.node_dims();
        let mut total = Vector3::zeros();
        for k in 0..dims.z {
            for j in 0..dims.y {
                for i in 0..dims.x {
                    let x = node_position(spec, [i as usize, j as usize, k as usize]);
                    total += x.cross(&self.grid.momentum[spec.node_index(i, j, k)]);
                }
            }
        }
        total
    }
}

/// Position of node `(i, j, k)`: `origin + (i, j, k)·h`, metres.
pub fn node_position(spec: &GridSpec, node: [usize; 3]) -> Vector3<f64> {
    let o = spec.grid_origin();
    let h = spec.cell_size;
    Vector3::new(o.x, o.y, o.z) + h * Vector3::new(node[0] as f64, node[1] as f64, node[2] as f64)
}

/// `v` scaled down to length `max_speed` if it is longer (the speed guard of every pass).
pub fn clamp_speed(v: Vector3<f64>, max_speed: f64) -> Vector3<f64> {
    let speed = v.norm();
    if speed > max_speed { v * (max_speed / speed) } else { v }
}

/// The 3×3×3 quadratic B-spline stencil of one particle (p2g and g2p steps 1–2).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stencil {
    /// Lowest node of the stencil, per axis.
    base: [usize; 3],
    /// `f = xg − base` per axis, in [0.5, 1.5).
    frac: Vector3<f64>,
    /// `weights[axis][o]`: the 1-D weights w0, w1, w2.
    weights: [[f64; 3]; 3],
}

impl Stencil {
    /// The stencil of a particle at `x`.
    ///
    /// # Panics
    /// If the stencil leaves the grid, i.e. `x` lies 1.5 cells or more outside the domain. G2P
    /// clamps particles to the domain, so this only happens for particles built outside it.
    pub(crate) fn new(spec: &GridSpec, x: &Vector3<f64>) -> Self {
        let o = spec.grid_origin();
        let dims = spec.node_dims();
        let origin = Vector3::new(o.x, o.y, o.z);
        let xg = (x - origin) / spec.cell_size;
        let mut base = [0usize; 3];
        let mut frac = Vector3::zeros();
        let mut weights = [[0.0; 3]; 3];
        for a in 0..3 {
            let b = (xg[a] - 0.5).floor();
            assert!(
                b >= 0.0 && b + 2.0 < dims[a] as f64,
                "particle at {x:?} has a stencil outside the grid (axis {a})"
            );
            base[a] = b as usize;
            let f = xg[a] - b;
            frac[a] = f;
            weights[a] = [0.5 * (1.5 - f).powi(2), 0.75 - (f - 1.0).powi(2), 0.5 * (f - 0.5).powi(2)];
        }
        Self { base, frac, weights }
    }

    /// The 27 nodes as `(flat index, weight w, offset d = node − particle in metres)`.
    pub(crate) fn nodes(&self, spec: &GridSpec) -> impl Iterator<Item = (usize, f64, Vector3<f64>)> {
        let h = spec.cell_size;
        let spec = *spec;
        let s = *self;
        (0..27usize).map(move |n| {
            let o = [n % 3, (n / 3) % 3, n / 9];
            let w = s.weights[0][o[0]] * s.weights[1][o[1]] * s.weights[2][o[2]];
            let d = (Vector3::new(o[0] as f64, o[1] as f64, o[2] as f64) - s.frac) * h;
            let idx = spec.node_index((s.base[0] + o[0]) as u32, (s.base[1] + o[1]) as u32, (s.base[2] + o[2]) as u32);
            (idx, w, d)
        })
    }
}

/// A hand-built scene shared by the pass tests.
#[cfg(test)]
pub(crate) mod test_scene {
    use glam::{DVec3, UVec3, Vec3};

    use crate::sim::fixed_point::FixedPoint;
    use crate::sim::material::SnowMaterial;
    use crate::sim::params::{Boundary, GpuParticle, GridSpec, SolverParams};

    /// 8³ cells of 0.1 m from the origin, reference snow, default walls, 50 m/s, dt = 1e-4 s.
    pub(crate) fn params() -> SolverParams {
        let material = SnowMaterial::default();
        SolverParams {
            grid: GridSpec { domain_min: DVec3::ZERO, cell_size: 0.1, cells: UVec3::splat(8) },
            material,
            gravity: DVec3::new(0.0, 0.0, -9.81),
            dt: 1e-4,
            cfl: 0.4,
            boundary: Boundary::default(),
            max_speed: 50.0,
            fixed_point: FixedPoint::for_scene(material.density, 0.1, 50.0),
        }
    }

    /// An undeformed particle of an eighth of a cell of reference snow (8 particles per cell).
    pub(crate) fn particle(position: Vec3, velocity: Vec3) -> GpuParticle {
        let volume = 0.1f32.powi(3) / 8.0;
        GpuParticle::new(position, velocity, 400.0 * volume, volume, 0)
    }
}
