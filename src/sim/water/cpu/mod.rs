//! The f64 CPU twin of the water step on a MAC grid:
//!
//! 1. particles to the faces (quadratic B-spline weights, APIC's affine part);
//! 2. gravity on the vertical faces;
//! 3. cells with a particle are liquid, the rest air, the layer of cells around the domain solid;
//! 4. the pressure that removes the faces' divergence ([`crate::sim::pressure`]), and its gradient
//!    subtracted from every face next to liquid;
//! 5. faces between two air cells keep what the particles gave them, and the velocities are
//!    extrapolated to the faces still unknown;
//! 6. faces to particles (APIC, or the PIC/FLIP blend), and the particles moved;
//! 7. crowded particles pushed apart ([`volume`]).
//!
//! Units are SI; the grid is `cells` cells of `h` metres from the origin, plus the solid layer.

pub mod coupled;
pub mod faces;
pub mod mixture;
pub mod particle;
pub mod volume;

pub use self::particle::WaterParticle;

use nalgebra::Vector3;

use self::faces::FaceGrid;
use self::mixture::SnowOnFaces;
use super::WaterSettings;
use crate::sim::pressure::PressureSettings;
use crate::sim::pressure::cells::{CellKind, PressureCells};
use crate::sim::pressure::cpu::operator::Poisson;
use crate::sim::pressure::cpu::pcg::{PcgReport, solve_from};
use crate::sim::pressure::cpu::precond::Precond;

/// The water solver's state.
#[derive(Clone, Debug)]
pub struct WaterCpu {
    /// Cells of the domain along x, y, z (the solid layer around it not counted).
    pub cells: [usize; 3],
    /// Cell edge, m.
    pub h: f64,
    /// Gravity, m/s².
    pub gravity: Vector3<f64>,
    /// Settings.
    pub settings: WaterSettings,
    /// The particles.
    pub particles: Vec<WaterParticle>,
    /// The last step's pressure per cell (solid layer included), Pa.
    pub pressure: Vec<f64>,
    /// The last step's cells.
    pub kinds: Option<PressureCells>,
    /// What the last pressure solve did.
    pub last_solve: Option<PcgReport>,
    /// The colliders' cells and face fractions ([`crate::sim::water::solids`]); `None`: the box
    /// alone.
    pub solids: Option<PressureCells>,
    /// The colliders' velocity on the faces ([`crate::sim::water::solids::face_velocities`]);
    /// `None`: they stand still.
    pub solid_velocity: Option<[Vec<f64>; 3]>,
}

impl WaterCpu {
    /// Water in a box of `cells` cells of `h` m, under `gravity`.
    pub fn new(
        cells: [usize; 3],
        h: f64,
        gravity: Vector3<f64>,
        settings: WaterSettings,
        particles: Vec<WaterParticle>,
    ) -> Self {
        Self {
            cells,
            h,
            gravity,
            settings,
            particles,
            pressure: Vec::new(),
            kinds: None,
            last_solve: None,
            solids: None,
            solid_velocity: None,
        }
    }

    /// The same water with colliders: `solids`' solid cells and face fractions
    /// ([`crate::sim::water::solids::cells_with_solids`] of the same cells).
    pub fn with_solids(mut self, solids: PressureCells) -> Self {
        self.solids = Some(solids);
        self
    }

    /// The same water with its colliders moving at `velocity` on the faces
    /// ([`crate::sim::water::solids::face_velocities`] of the same cells).
    pub fn with_solid_velocity(mut self, velocity: [Vec<f64>; 3]) -> Self {
        self.solid_velocity = Some(velocity);
        self
    }

    /// The grid's cells with the solid layer: `cells + 2` along each axis.
    pub fn grid_dims(&self) -> [usize; 3] {
        self.cells.map(|c| c + 2)
    }

    /// The step length for the fastest particle to move `cfl` cells, at most `max_dt`.
    pub fn stable_dt(&self, max_dt: f64) -> f64 {
        let fastest = self.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
        if fastest > 0.0 { max_dt.min(self.settings.cfl * self.h / fastest) } else { max_dt }
    }

    /// Advances `duration` seconds in steps of at most `max_dt` (and the CFL limit).
    pub fn advance(&mut self, duration: f64, max_dt: f64) {
        advance_in_steps(self, duration, max_dt, Self::stable_dt, Self::step);
    }

    /// The cell kinds: the solid layer around the domain and the colliders' cells, liquid where a
    /// particle is, air else; the colliders' face fractions.
    fn classify(&self) -> PressureCells {
        let dims = self.grid_dims();
        let mut liquid = vec![false; dims[0] * dims[1] * dims[2]];
        for p in &self.particles {
            liquid[faces::cell_of(&p.position, self.h, dims)] = true;
        }
        let mut cells = PressureCells::walled(dims, |i, j, k| {
            let inside = [i, j, k].iter().zip(&dims).all(|(&n, &d)| n >= 1 && n + 1 < d);
            let collider = self.solids.as_ref().is_some_and(|s| s.kind[s.cell(i, j, k)] == CellKind::Solid);
            if !inside || collider {
                CellKind::Solid
            } else if liquid[i + dims[0] * (j + dims[1] * k)] {
                CellKind::Liquid
            } else {
                CellKind::Air
            }
        });
        if let Some(solids) = &self.solids {
            cells.open = solids.open.clone();
        }
        cells
    }

    /// Keeps every particle inside the domain (the walls are the solid layer's faces).
    fn clamp_inside(&mut self) {
        for particle in &mut self.particles {
            for a in 0..3 {
                let hi = self.cells[a] as f64 * self.h;
                particle.position[a] = particle.position[a].clamp(1e-3 * self.h, hi - 1e-3 * self.h);
            }
        }
    }

    /// One step of `dt` seconds.
    pub fn step(&mut self, dt: f64) {
        self.step_with(dt, None);
    }

    /// The mass of one particle, kg: a cell of water holds `particles_per_cell` of them.
    pub fn particle_mass(&self) -> f64 {
        self.settings.density * self.h.powi(3) / self.settings.particles_per_cell
    }

    /// One step of `dt` seconds with `snow` in the projection ([`mixture`]): its cells touching
    /// the water join the liquid, its faces mix into the water's, and its `change` records what
    /// the projection did to them.
    pub fn step_with(&mut self, dt: f64, mut snow: Option<&mut SnowOnFaces>) {
        let dims = self.grid_dims();
        let mut grid = FaceGrid::new(dims, self.h);
        grid.scatter(&self.particles);
        let before = grid.clone();
        grid.add_gravity(self.gravity, dt);
        let mut cells = self.classify();
        if let Some(s) = snow.as_deref() {
            s.join(&mut cells);
        }
        grid.close_solid_faces(&cells);
        let moving = self.solid_velocity.as_ref();
        if let Some(v) = moving {
            grid.move_solid_faces(&cells, v);
        }
        // With snow, the divergence is of the two phases' volume flux and each face's coefficient
        // is scaled by `α_w + α_s ρ_w/ρ_s` ([`mixture`]).
        let mixed = snow.as_deref().map(|s| {
            let (mut flux, weights) = s.flux(&grid, self.settings.particles_per_cell, self.settings.density);
            flux.close_solid_faces(&cells);
            if let Some(v) = moving {
                flux.move_solid_faces(&cells, v);
            }
            (flux, weights)
        });
        // A p = b with b = −(ρ h / dt) Σ θ (u₊ − u₋): the operator's unit weights are θ, so the
        // pressure gradient dt/(ρ h) (p₊ − p₋) removes exactly this divergence.
        let op = Poisson::new(
            match &mixed {
                Some((_, weights)) => mixture::weighted(cells.clone(), weights),
                None => cells.clone(),
            },
            1.0,
        );
        let scale = self.settings.density * self.h / dt;
        let flux = mixed.as_ref().map_or(&grid, |(flux, _)| flux);
        // A moving collider's covered share of a face carries its velocity.
        let div = |c| flux.divergence(&cells, c) + moving.map_or(0.0, |v| flux.solid_flux(&cells, v, c));
        let b: Vec<f64> = (0..op.diag.len()).map(|c| if op.active(c) { -scale * div(c) } else { 0.0 }).collect();
        let pre = Precond::new(self.settings.pressure.preconditioner, &op);
        // From the last step's pressure (a warm start, as the GPU step).
        let (tolerance, cap) = (self.settings.pressure.tolerance, self.settings.pressure.max_iterations);
        let (p, report) = solve_from(&op, &pre, &b, Some(&self.pressure), tolerance, cap);
        let k = dt / (self.settings.density * self.h);
        grid.subtract_gradient(&cells, &p, k);
        if let Some(s) = snow.as_deref_mut() {
            s.record_change(&cells, &p, k, self.settings.density);
        }
        grid.keep_scattered(&cells, &before);
        grid.extrapolate(2);
        grid.gather(&mut self.particles, &before, self.settings.transfer);
        for particle in &mut self.particles {
            particle.position += dt * particle.velocity;
        }
        self.clamp_inside();
        if self.settings.volume_correction {
            let mut cells = self.classify();
            if let Some(s) = snow.as_deref() {
                s.join(&mut cells);
            }
            let (h, rest) = (self.h, self.settings.particles_per_cell);
            let solve = PressureSettings { tolerance: self.settings.volume_tolerance, ..self.settings.pressure };
            let occupied = snow.as_deref().map(|s| s.occupied.as_slice());
            volume::correct(&mut self.particles, cells, h, rest, &solve, occupied);
            self.clamp_inside();
        }
        self.pressure = p;
        self.kinds = Some(cells);
        self.last_solve = Some(report);
    }
}

/// Advances `sim` by `duration` seconds in steps of `stable(sim, max_dt)` (the last one shortened
/// to land on `duration`): the twins' time loop.
pub(crate) fn advance_in_steps<T>(
    sim: &mut T,
    duration: f64,
    max_dt: f64,
    stable: fn(&T, f64) -> f64,
    step: fn(&mut T, f64),
) {
    let mut left = duration;
    while left > 1e-12 {
        let dt = stable(sim, max_dt).min(left);
        step(sim, dt);
        left -= dt;
    }
}
