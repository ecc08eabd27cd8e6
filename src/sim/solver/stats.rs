//! What the `stats` pass reports ([`SolverStats`]) and the stable time step it implies
//! ([`stable_dt`]), once a frame before its substeps ([`Solver::stable_dt`]).

use super::error::SolverError;
use super::state::{SolveTotals, Solver};
use crate::gpu::Gpu;
use crate::sim::params::SolverParams;

/// What the `stats` pass and the counters report about the current state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SolverStats {
    /// Largest particle speed, m/s.
    pub max_speed: f64,
    /// Largest hardening factor `exp(ξ(1 − Jp))` (bounded).
    pub max_hardening: f64,
    /// Smallest plastic Jacobian.
    pub min_plastic_jacobian: f64,
    /// Largest plastic Jacobian.
    pub max_plastic_jacobian: f64,
    /// P2G contributions clamped since the last report because they would not fit an i32 (none by
    /// construction of the scales; a guard).
    pub overflow_count: u32,
    /// Particles reset since the last report because their state was not finite.
    pub nonfinite_count: u32,
    /// Particle updates g2p2g made since the last report (the fused path's pass; zero on the
    /// other paths).
    pub fused_particles: u32,
    /// The most pool blocks a substep of a sparse grid asked for since the last report (zero on a
    /// dense grid); more than the pool holds if it ran out ([`crate::sim::grid_pool`]).
    pub grid_blocks_peak: u32,
    /// What PB-MPM's Newton–PCG steps since the last report did.
    pub solve: SolveTotals,
}

/// The largest stable time step: `cfl · h / (v_max + c)` with `c` the P-wave speed at the largest
/// hardening present (see `docs/algorithm.md`).
///
/// Non-finite inputs (a particle that arrived with a NaN velocity, which P2G will reset) fall back
/// to the bounds the solver enforces: `max_speed` and the hardening cap.
pub fn stable_dt(params: &SolverParams, max_speed: f64, max_hardening: f64, cfl: f64) -> f64 {
    let max_hardening =
        if max_hardening.is_finite() { max_hardening } else { crate::sim::material::MAX_HARDENING_EXPONENT.exp() };
    stable_dt_at(params, max_speed, params.wave_speed_bound(max_hardening.max(0.0)), cfl)
}

/// `cfl · h / (v + c)` for a largest particle speed `max_speed` (one not finite or past the
/// speed limit is taken as the limit) and P-wave speed `wave_speed`, both m/s, capped by the
/// viscous limit [`SolverParams::viscous_dt`] (f32, as the GPU's clock holds it).
pub fn stable_dt_at(params: &SolverParams, max_speed: f64, wave_speed: f64, cfl: f64) -> f64 {
    let max_speed = if max_speed.is_finite() { max_speed.min(params.max_speed) } else { params.max_speed };
    (cfl * params.grid.cell_size / (max_speed + wave_speed)).min(params.viscous_dt() as f32 as f64)
}

impl Solver {
    /// The largest stable substep for the current state (runs `stats`), once a frame before its
    /// substeps: a sparse grid's pool grows here if the last frame's substeps came near its end
    /// ([`Solver::fit_grid_pool`]).
    pub fn stable_dt(&mut self, gpu: &Gpu, cfl: f64) -> Result<(f64, SolverStats), SolverError> {
        let s = self.stats(gpu)?;
        Ok((self.stable_dt_of(gpu, &s, cfl), s))
    }

    /// [`Solver::stable_dt`] from stats already read ([`Solver::take_stats`]): the sparse grid's
    /// pool fitted to them, and the stable dt of the state they describe.
    pub fn stable_dt_of(&mut self, gpu: &Gpu, s: &SolverStats, cfl: f64) -> f64 {
        self.fit_grid_pool(gpu, s.grid_blocks_peak);
        let stable = stable_dt(&self.params, s.max_speed, s.max_hardening, cfl);
        self.last_stable_dt.set(Some(stable));
        stable
    }
}
