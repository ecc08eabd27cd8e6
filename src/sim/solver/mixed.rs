//! Water beside snow in one scene (the `flip` integrator over particles of several materials): the
//! liquid's particles are the water's own, stepped by the water step ([`super::water`]); every
//! other particle stays in the solver's pages and is stepped by explicit MLS-MPM, and the two meet
//! in the water's pressure projection ([`crate::sim::water::gpu::snow`]).
//!
//! A water step of `dt` first runs the snow's explicit substeps over `dt` (as many as its stable dt
//! asks for), then the water's step with the snow in its projection, which gives the snow's
//! particles the projection's change: one submission per water step, the snow's substeps of a
//! batch sharing one clock and one collider frame.

use super::state::Solver;
use crate::gpu::Gpu;
use crate::sim::explicit::clock::FrameStep;
use crate::sim::integrator::Integrator;
use crate::sim::material::MaterialKind;
use crate::sim::params::{GpuParticle, SolverParams};
use crate::sim::particles::ParticleBuffers;

/// How far the snow may fall under gravity alone within one coupled step, in cells: its substeps
/// run before the projection that holds it up, so over a step of `dt` it sinks `g dt² / 2` too far
/// before the water's pressure acts. Measured on the pond of `tests/snow_water_solver.rs` (cells
/// of 5 cm): steps of 1/30 s (0.11 cells) float the ball 0.32 submerged and lose the water's rise
/// to sloshing; steps of 1/60 s (0.028 cells) give 0.38 and a rise of 1.005 of the displaced
/// volume, as the f64 twin does with the same steps.
pub(crate) const COUPLED_FALL: f64 = 0.03;

/// Into how many coupled steps a water step of `dt` seconds is split on cells of `h` m under
/// gravity `g`: enough that none lets the snow fall more than [`COUPLED_FALL`] cells.
pub(crate) fn coupled_steps(dt: f64, h: f64, g: f64) -> u32 {
    if g <= 0.0 {
        return 1;
    }
    let longest = (2.0 * COUPLED_FALL * h / g).sqrt();
    (dt / longest).ceil().clamp(1.0, 1024.0) as u32
}

/// The particles split as `integrator` steps them: `(mpm, water)`. Under the `flip` integrator a
/// set holding both liquid and other materials gives its liquid to the water step and the rest to
/// MPM; otherwise every particle is in `mpm` (water alone runs over the pages, and the other
/// integrators step every material).
pub(crate) fn split(
    params: &SolverParams,
    integrator: &Integrator,
    particles: &[GpuParticle],
) -> (Vec<GpuParticle>, Vec<GpuParticle>) {
    let liquid = |p: &GpuParticle| params.material_of(p.material).kind == MaterialKind::Liquid;
    let count = particles.iter().filter(|p| liquid(p)).count();
    if integrator.water().is_none() || count == 0 || count == particles.len() {
        return (particles.to_vec(), Vec::new());
    }
    particles.iter().partition(|p| !liquid(p))
}

/// The water's own particle streams, beside the pages ([`split`]).
pub(crate) fn water_streams(gpu: &Gpu, water: &[GpuParticle]) -> Option<ParticleBuffers> {
    let usage = wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    (!water.is_empty()).then(|| ParticleBuffers::new(&gpu.device, water, usage))
}

impl Solver {
    /// Whether the water has streams of its own and snow (any other material) in the pages.
    pub fn water_meets_snow(&self) -> bool {
        self.companion.is_some()
    }

    /// Records and submits `steps` water steps of `dt` with the snow's substeps before each (this
    /// module's text), `record` recording a water step into an encoder; `measured` is the fastest
    /// speed and largest hardening of the state they start from where the caller has them (else
    /// they are read back). Returns the last submission. The snow's substeps of all the steps make one collider frame, as a frame of
    /// the explicit integrator's does (substep k sees the colliders `(k + 1) / total` of the way
    /// through it), and run as the sorted path's: the water step between two of them changes the
    /// snow's velocities, which the fused path's next scatter would not see.
    pub(super) fn record_snow_and_water(
        &self,
        gpu: &Gpu,
        steps: u32,
        dt: f64,
        measured: Option<(f64, f64)>,
        record: &mut dyn FnMut(&mut wgpu::CommandEncoder),
    ) -> Option<wgpu::SubmissionIndex> {
        // The snow's stable dt at the fastest either phase may reach by the frame's end (gravity
        // alone adds g · span to a speed), so the substeps planned now stay stable through it.
        let span = steps as f64 * dt;
        let measured = measured.map(Ok).unwrap_or_else(|| self.stats(gpu).map(|s| (s.max_speed, s.max_hardening)));
        let stable = match measured {
            Ok((speed, hardening)) => {
                let speed = speed + self.params.gravity.length() * span;
                super::stats::stable_dt(&self.params, speed, hardening, self.params.cfl)
            }
            Err(e) => {
                log::warn!("the snow's stable dt could not be read back: {e}");
                self.params.dt
            }
        };
        let substeps = (dt / stable).ceil().clamp(1.0, 10_000.0) as u32;
        let total = steps * substeps;
        self.begin_frame(gpu, span, FrameStep::Fixed { dt: dt / substeps as f64, substeps: total });
        let mut last = None;
        for k in 0..steps {
            let range = k * substeps..(k + 1) * substeps;
            last = self.record_substeps_then(gpu, range, total, false, None, u32::MAX, record);
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::coupled_steps;

    #[test]
    fn a_coupled_step_lets_the_snow_fall_a_few_hundredths_of_a_cell() {
        // Cells of 5 cm: at most 0.01749 s, so a frame of 1/30 s takes two steps of 1/60 s.
        assert_eq!(coupled_steps(1.0 / 30.0, 0.05, 9.81), 2);
        assert_eq!(coupled_steps(1.0 / 60.0, 0.05, 9.81), 1);
        // A quarter of the cell: half the step, twice the steps.
        assert_eq!(coupled_steps(1.0 / 60.0, 0.0125, 9.81), 2);
        assert_eq!(coupled_steps(1.0, 0.05, 0.0), 1);
    }
}
