//! The start and the end of a step: the particles' predicted motion, and what they keep of the
//! step once its iterations are done.

use nalgebra::Matrix3;

use super::state::{StepReport, StepState};
use crate::sim::cpu::g2p::project_plasticity_svd;
use crate::sim::cpu::{CpuParticle, clamp_speed};
use crate::sim::params::SolverParams;

/// Predicts every particle's motion over the step and clears its constraint impulse:
/// `d = (v + g·kick)·dt`, `D = C·dt`, `Λ = 0`, with `kick = (dt_prev + dt)/2`
/// ([`gravity_kick`]).
///
/// `d` is where the particle would go with no constraint and no wall. A particle's velocity is
/// its mean velocity over the step it last took (`v = d/dt` at the step's end), that is its
/// velocity half a step back, so gravity acts on it for the half of the last step and the half
/// of this one that lie between the two midpoints: the leapfrog (Störmer–Verlet) update, exact
/// for a constant acceleration at any sequence of step lengths. `D` is the affine part of the
/// motion.
pub fn begin_step(params: &SolverParams, dt: f64, kick: f64, particles: &[CpuParticle], state: &mut [StepState]) {
    let g = nalgebra::Vector3::new(params.gravity.x, params.gravity.y, params.gravity.z);
    for (p, s) in particles.iter().zip(state) {
        s.displacement = (p.velocity + g * kick) * dt;
        s.affine = p.affine * dt;
        s.impulse = Matrix3::zeros();
    }
}

/// How long gravity acts on a particle's velocity before a step of `dt` seconds that follows one
/// of `previous` seconds: `(previous + dt)/2`, from the middle of the last step to the middle of
/// this one. `previous` is 0 before the first step (the velocities given are instantaneous),
/// which makes the first step's prediction `v·dt + g·dt²/2`.
pub fn gravity_kick(previous: f64, dt: f64) -> f64 {
    0.5 * (previous + dt)
}

/// Ends the step with each particle's last gathered `d` and `D`:
///
/// 1. `F' = (I + D) F_E`, then the explicit integrator's snow plasticity with the step's yield
///    relaxation ([`project_plasticity_svd`]: singular values returned toward `[1 − θc, 1 + θs]`,
///    all but the fraction `keep` of the excess ([`super::super::PbmpmSettings::keep`]; 0 for the
///    kinds that yield inside the solve), what
///    was removed into `Jp`, `Jp` kept in `[10⁻³, 10³]`); a cracked particle's `Jp` may fall but
///    not rise.
/// 2. Cracking as in the explicit integrator ([`crate::sim::material::SnowMaterial::cracks`]).
/// 3. `x ← x + d`, clamped to the domain box (counted in the report).
/// 4. `v ← d/dt` (then capped at `max_speed`), `C ← D/dt`.
///
/// `D` here is the gathered one, the gradient of what the grid actually did, not the last
/// projected one: the deformation then follows the motion the particles made.
pub fn end_step(
    params: &SolverParams,
    dt: f64,
    keep: f64,
    particles: &mut [CpuParticle],
    state: &[StepState],
) -> StepReport {
    let spec = &params.grid;
    let (lo, hi) = (spec.domain_min, spec.domain_max());
    let mut report = StepReport::default();
    for (p, s) in particles.iter_mut().zip(state) {
        let trial = (Matrix3::identity() + s.affine) * p.deformation;
        let material = params.material_of(p.material);
        let keep = if material.kind.yields_in_solve() { 0.0 } else { keep };
        let (elastic, mut jp, sigma, stretch) = project_plasticity_svd(material, &trial, p.plastic_jacobian, keep, dt);
        if p.damage > 0.0 {
            jp = jp.min(p.plastic_jacobian);
        }
        if params.material_of(p.material).cracks(
            [stretch.x, stretch.y, stretch.z],
            [sigma.x, sigma.y, sigma.z],
            jp,
            p.strength,
        ) {
            p.damage = 1.0;
        }

        let moved = p.position + s.displacement;
        let mut x = moved;
        for (a, (l, u)) in [(lo.x, hi.x), (lo.y, hi.y), (lo.z, hi.z)].into_iter().enumerate() {
            x[a] = x[a].clamp(l, u);
        }
        if x != moved {
            report.clamped += 1;
        }
        report.max_displacement_cells = report.max_displacement_cells.max(s.displacement.norm() / spec.cell_size);

        p.position = x;
        p.velocity = clamp_speed(s.displacement / dt, params.max_speed);
        p.affine = s.affine / dt;
        p.deformation = elastic;
        p.plastic_jacobian = jp;
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cpu::g2p::project_plasticity;
    use crate::sim::cpu::test_scene;
    use crate::sim::material::{PLASTIC_JACOBIAN_MIN, SnowMaterial};
    use glam::Vec3;
    use nalgebra::Vector3;

    /// One particle at rest ending a step whose gathered affine displacement is `affine`, keeping
    /// `keep` of its excess over the elastic range.
    fn end_keeping(affine: Matrix3<f64>, jp: f64, keep: f64) -> CpuParticle {
        let params = test_scene::params();
        let mut p = CpuParticle::from_gpu(&test_scene::particle(Vec3::splat(0.4), Vec3::ZERO));
        p.plastic_jacobian = jp;
        let state = [StepState { affine, ..StepState::default() }];
        let mut ps = [p];
        end_step(&params, 1e-3, keep, &mut ps, &state);
        ps[0]
    }

    /// [`end_keeping`] with the plain clamp (no yield relaxation).
    fn end_with(affine: Matrix3<f64>, jp: f64) -> CpuParticle {
        end_keeping(affine, jp, 0.0)
    }

    #[test]
    fn end_step_keeps_exp_minus_dt_over_tau_of_the_excess() {
        // Compressed to 0.9 along y at the step's end, with τ = 10 ms and dt = 1/240 s: the
        // fraction k = exp(−dt/τ) = 0.659 of the excess past 1 − θc = 0.975 stays elastic,
        // σ_y = 0.975 − 0.075 k, and the rest goes into Jp = 0.9 / σ_y (the volume is shared
        // between the elastic and the plastic part as before).
        let settings = crate::sim::pbmpm::PbmpmSettings { yield_time: 0.01, ..Default::default() };
        let keep = settings.keep(1.0 / 240.0);
        assert!((keep - (-0.41666666666666663f64).exp()).abs() < 1e-15, "keep {keep}");
        let p = end_keeping(Matrix3::from_diagonal(&Vector3::new(0.0, -0.1, 0.0)), 1.0, keep);
        let want = 0.975 - 0.075 * keep;
        // 1e-12: an SVD of a diagonal matrix, exact to a few ulps.
        assert!((p.deformation[(1, 1)] - want).abs() < 1e-12, "σ_y = {}", p.deformation[(1, 1)]);
        assert!((p.plastic_jacobian - 0.9 / want).abs() < 1e-12, "Jp = {}", p.plastic_jacobian);
        // τ = 0 keeps nothing: the explicit integrator's clamp.
        let clamp = crate::sim::pbmpm::PbmpmSettings { yield_time: 0.0, ..settings };
        assert_eq!(clamp.keep(1.0 / 240.0), 0.0);
    }

    #[test]
    fn plasticity_is_the_explicit_integrators() {
        // Compressed to 0.9 along y in one step: σ clamped to 1 − θc = 0.975 and Jp = 0.9/0.975,
        // the same numbers the explicit g2p gives (same function, same trial F).
        let p = end_with(Matrix3::from_diagonal(&Vector3::new(0.0, -0.1, 0.0)), 1.0);
        let (f, jp) =
            project_plasticity(&SnowMaterial::default(), &Matrix3::from_diagonal(&Vector3::new(1.0, 0.9, 1.0)), 1.0);
        assert_eq!((p.deformation, p.plastic_jacobian), (f, jp));
        // Relative 1e-12: the SVD of a diagonal matrix is exact to a few ulps.
        assert!((jp - 0.9 / 0.975).abs() <= 1e-12, "Jp = {jp}");
        // And the clamp of Jp: 1.5e-3 · 0.5 / 0.975 < 1e-3 stays at the bound.
        let p = end_with(Matrix3::from_diagonal(&Vector3::new(-0.5, 0.0, 0.0)), 1.5e-3);
        assert_eq!(p.plastic_jacobian, PLASTIC_JACOBIAN_MIN);
    }
}
