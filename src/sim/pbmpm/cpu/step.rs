//! [`PbmpmCpu::step`]: one step by the solve the settings name. It lives apart from the solver's
//! type so that the type's module does not name [`newton`], which names the type.

use super::newton::{self, NewtonSettings};
use super::{PbmpmCpu, StepReport, integrate};
use crate::sim::pbmpm::PbSolver;

impl PbmpmCpu {
    /// One step of `dt` seconds with `settings.iterations` iterations, by the solve
    /// `settings.solver` names: the constraint iterations (see the module docs), or
    /// [`newton::step`] with [`NewtonSettings::of`] as the GPU runs it, whose report
    /// is kept in [`PbmpmCpu::last_solve`].
    pub fn step(&mut self, dt: f64) -> StepReport {
        if self.settings.solver == PbSolver::Newton {
            let (report, solve) = newton::step(self, dt, &NewtonSettings::of(&self.settings, &self.params));
            self.last_solve = Some(solve);
            return report;
        }
        let kick = integrate::gravity_kick(self.last_dt, dt);
        integrate::begin_step(&self.params, dt, kick, &self.particles, &mut self.state);
        self.last_dt = dt;
        for _ in 0..self.settings.iterations {
            self.iterate(dt);
        }
        integrate::end_step(&self.params, dt, self.settings.keep(dt), &mut self.particles, &self.state)
    }
}
