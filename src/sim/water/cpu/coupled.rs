//! Snow and water in one box (f64 twin): the snow on the MPM twin's grid ([`CpuSolver`]), the
//! water on its MAC grid ([`WaterCpu`]), one pressure projection for both ([`super::mixture`]).
//!
//! A step of `dt` (the water's, at its motion limit): the snow takes its own substeps over `dt`
//! (elasticity, plasticity, gravity, walls), then the water's step runs with the snow mixed into
//! its faces, and the projection's change on the snow's faces goes to the snow's particles.

use nalgebra::Vector3;

use super::WaterCpu;
use super::mixture::SnowOnFaces;
use crate::sim::cpu::CpuSolver;

/// Snow and water stepping together.
#[derive(Clone, Debug)]
pub struct SnowAndWaterCpu {
    /// The water.
    pub water: WaterCpu,
    /// The snow (and any other MPM material).
    pub snow: CpuSolver,
    /// The longest substep the snow takes, s (its own stability limit).
    pub snow_dt: f64,
}

impl SnowAndWaterCpu {
    /// `water` and `snow` in one box: `None` unless the snow's grid is the water's (same cell
    /// size and cells; the water's corner is the snow's `domain_min`). The snow's substeps are at
    /// most its `params.dt`.
    pub fn new(water: WaterCpu, snow: CpuSolver) -> Option<Self> {
        let spec = &snow.params.grid;
        let same = (spec.cell_size - water.h).abs() <= 1e-12 * water.h
            && (0..3).all(|a| spec.cells[a] as usize == water.cells[a]);
        let snow_dt = snow.params.dt;
        same.then_some(Self { water, snow, snow_dt })
    }

    /// The water's domain corner in the snow's coordinates, m.
    fn origin(&self) -> Vector3<f64> {
        let o = self.snow.params.grid.domain_min;
        Vector3::new(o.x, o.y, o.z)
    }

    /// The step for the fastest particle of either phase to move the water's `cfl` cells, at most
    /// `max_dt`.
    pub fn stable_dt(&self, max_dt: f64) -> f64 {
        let fastest = self.snow.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
        let limit = if fastest > 0.0 { self.water.settings.cfl * self.water.h / fastest } else { max_dt };
        self.water.stable_dt(max_dt).min(limit)
    }

    /// One step of `dt` seconds.
    pub fn step(&mut self, dt: f64) {
        let substeps = (dt / self.snow_dt).ceil().max(1.0);
        self.snow.params.dt = dt / substeps;
        for _ in 0..substeps as u32 {
            self.snow.substep();
        }
        let dims = self.water.grid_dims();
        let mut snow = SnowOnFaces::new(&self.snow.particles, self.origin(), dims, self.water.h);
        self.water.step_with(dt, Some(&mut snow));
        snow.apply(&mut self.snow.particles, dims, self.water.h);
    }

    /// Advances `duration` seconds in steps of at most `max_dt` (and the CFL limit).
    pub fn advance(&mut self, duration: f64, max_dt: f64) {
        super::advance_in_steps(self, duration, max_dt, Self::stable_dt, Self::step);
    }
}
