//! The CPU twin of PB-MPM in f64: the specification the GPU version follows, one function per
//! stage, written for clarity. `docs/pbmpm.md` has the method in prose.
//!
//! One step of length `dt` ([`PbmpmCpu::step`]):
//!
//! 1. [`integrate::begin_step`]: each particle predicts its motion from its velocity and gravity,
//!    `d = (v + g·(dt_prev + dt)/2)·dt` (leapfrog: `v` is the last step's mean velocity),
//!    `D = C·dt`, and clears its constraint impulse `Λ`.
//! 2. `iterations` times:
//!    - [`constraint::project`]: each particle moves its affine displacement `D` toward the snow
//!      constraint, one compliant (XPBD) step, and adds the impulse it applied to `Λ`;
//!    - [`transfer::p2g`]: particles scatter mass and mass-weighted displacement to the grid;
//!    - [`grid::grid_update`]: node displacement = sum / mass, then colliders and walls;
//!    - [`transfer::g2p`]: particles gather their displacement `d` and affine displacement `D`.
//! 3. [`integrate::end_step`]: with the last gathered `d` and `D`, `F_E ← (I + D)·F_E`, snow
//!    plasticity and cracking as in the explicit integrator, `x ← x + d`, `v ← d/dt`, `C ← D/dt`.
//!
//! The particles are the explicit twin's [`CpuParticle`]s, unchanged (so they convert to and from
//! [`GpuParticle`] as before); what lives only within a step (`d`, `D`, `Λ`) is kept beside them
//! in [`StepState`]. That state, the grid and the step's report live in [`state`], below the
//! stages that use them; this file holds the solver that runs the stages.
//!
//! [`newton`] is a second way to solve the same step, to the backward-Euler answer at any grid
//! resolution (one Newton step on the grid displacements, multilevel-preconditioned conjugate
//! gradients), which [`PbmpmCpu::step`] runs when the settings name it, as the GPU does.

pub mod constraint;
pub mod grid;
pub mod integrate;
pub mod newton;
pub mod state;
mod step;
pub mod transfer;

pub use state::{PbmpmGrid, SolveReport, StepReport, StepState};

use nalgebra::Vector3;
use thiserror::Error;

use super::{PbmpmSettings, PbmpmSettingsError};
use crate::collider::field::ColliderFrames;
use crate::sim::cpu::CpuParticle;
use crate::sim::params::{GpuParticle, SolverParams};

/// Why a [`PbmpmCpu`] cannot be built.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PbmpmError {
    /// A setting is out of range.
    #[error(transparent)]
    Settings(#[from] PbmpmSettingsError),
    /// A particle's position is not finite or lies outside the domain box (the integrator keeps
    /// particles inside it, and the grid only reaches 1.5 cells past it).
    #[error("particle {index} at ({x}, {y}, {z}) m lies outside the domain [{lo:?}, {hi:?}] m", x = position[0], y = position[1], z = position[2])]
    ParticleOutside {
        /// Index of the particle in the list given.
        index: usize,
        /// Its position, metres.
        position: [f64; 3],
        /// The domain's lower corner, metres.
        lo: [f64; 3],
        /// The domain's upper corner, metres.
        hi: [f64; 3],
    },
}

/// The f64 PB-MPM solver: parameters, settings, particles, their in-step state and the grid.
///
/// It reads from [`SolverParams`] the grid, material, gravity, walls and `max_speed`; its step
/// length is the argument of [`PbmpmCpu::step`] (`SolverParams::dt` belongs to the explicit
/// integrator and is not used).
#[derive(Clone, Debug)]
pub struct PbmpmCpu {
    /// Grid, material, gravity, walls, speed guard.
    pub params: SolverParams,
    /// Iterations, step length, motion limit, relaxation.
    pub settings: PbmpmSettings,
    /// The particles, as in the explicit twin.
    pub particles: Vec<CpuParticle>,
    /// Per particle: `d`, `D`, `Λ` of the current step.
    pub state: Vec<StepState>,
    /// The grid.
    pub grid: PbmpmGrid,
    /// The colliders' frame, as the explicit twin takes it.
    pub colliders: Option<ColliderFrames>,
    /// Where the step's end lies in the collider frame, 0 (start) to 1 (end).
    pub collider_blend: f64,
    /// The length of the last step taken, seconds; 0 before the first (the particles' velocities
    /// are then instantaneous, not a step's mean). [`integrate::gravity_kick`] uses it.
    pub last_dt: f64,
    /// What the last Newton–PCG step's solve did ([`PbmpmCpu::step`] under
    /// [`super::PbSolver::Newton`]); `None` before one.
    pub last_solve: Option<SolveReport>,
}

impl PbmpmCpu {
    /// A solver over a copy of `particles` widened to f64, with a zero grid. Fails if a setting is
    /// out of range or a particle lies outside the domain.
    pub fn new(params: SolverParams, settings: PbmpmSettings, particles: &[GpuParticle]) -> Result<Self, PbmpmError> {
        settings.validate()?;
        let particles: Vec<CpuParticle> = particles.iter().map(CpuParticle::from_gpu).collect();
        let (lo, hi) = (params.grid.domain_min, params.grid.domain_max());
        for (index, p) in particles.iter().enumerate() {
            let inside = (0..3).all(|a| p.position[a] >= lo[a] && p.position[a] <= hi[a]);
            if !inside {
                let position = [p.position.x, p.position.y, p.position.z];
                return Err(PbmpmError::ParticleOutside { index, position, lo: lo.to_array(), hi: hi.to_array() });
            }
        }
        Ok(Self {
            grid: PbmpmGrid::new(&params.grid),
            state: vec![StepState::default(); particles.len()],
            particles,
            params,
            settings,
            colliders: None,
            collider_blend: 1.0,
            last_dt: 0.0,
            last_solve: None,
        })
    }

    /// One constraint iteration: project, scatter, grid update, gather.
    pub fn iterate(&mut self, dt: f64) {
        let relaxation = self.settings.relaxation;
        constraint::project(&self.params, dt, relaxation, &self.particles, &mut self.state);
        transfer::p2g(&self.params.grid, &self.particles, &self.state, &mut self.grid);
        let colliders = self.colliders.as_ref().map(|c| (c, self.collider_blend));
        grid::grid_update(&self.params, dt, colliders, &mut self.grid);
        transfer::g2p(&self.params.grid, &self.grid, &self.particles, &mut self.state);
    }

    /// One frame of `duration` seconds in the steps [`PbmpmSettings::plan_frame`] asks for (by the
    /// fastest particle at the frame's start), step k seeing the colliders `(k + 1)/steps` of
    /// the way through the frame. Returns the steps taken and the reports summed: clamped
    /// particles added up, the largest displacement kept.
    pub fn advance_frame(&mut self, duration: f64) -> (u32, StepReport) {
        let speed = self.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
        let (steps, dt) = self.settings.plan_frame(duration, speed, self.params.max_speed, self.params.grid.cell_size);
        let mut total = StepReport::default();
        for k in 0..steps {
            self.collider_blend = (k + 1) as f64 / steps as f64;
            let r = self.step(dt);
            total.clamped += r.clamped;
            total.max_displacement_cells = total.max_displacement_cells.max(r.max_displacement_cells);
        }
        (steps, total)
    }

    /// The particles in the GPU's f32 layout.
    pub fn gpu_particles(&self) -> Vec<GpuParticle> {
        self.particles.iter().map(CpuParticle::to_gpu).collect()
    }

    /// Total particle mass, kg.
    pub fn total_mass(&self) -> f64 {
        self.particles.iter().map(|p| p.mass).sum()
    }

    /// Total particle momentum `Σ m_p v_p`, kg·m/s.
    pub fn total_momentum(&self) -> Vector3<f64> {
        self.particles.iter().map(|p| p.mass * p.velocity).sum()
    }

    /// Total grid mass, kg (after a scatter).
    pub fn grid_mass(&self) -> f64 {
        self.grid.mass.iter().sum()
    }
}
