//! [`CpuSolver`]: the f64 twin of the GPU solver, one substep as grid_clear, p2g, grid_update and
//! g2p (each pass in its own module), with the conservation sums the tests compare.

use nalgebra::Vector3;

use super::grid::{CpuGrid, node_position};
use super::particle::CpuParticle;
use super::{g2p, grid_clear, grid_update, p2g};
use crate::collider::field::ColliderFrames;
use crate::sim::interaction::Interaction;
use crate::sim::params::{GpuParticle, SolverParams};

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
