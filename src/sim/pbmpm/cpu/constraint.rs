//! The snow constraint: each iteration moves each particle's affine displacement `D` toward the
//! elastic state of its material, one compliant (XPBD, Macklin et al. 2016) step.
//!
//! **What it converges to.** An implicit (backward Euler) step of the grid displacements u solves
//! `m_i (u_i − ũ_i) = dt² f_i(u)`, where ũ is the predicted motion and the elastic force of the
//! snow is MLS-MPM's, with the stress taken at the end of the step:
//! `f_i = −Σ_p V⁰_p τ(F'_p) ∇w_ip` with `∇w_ip = (4/h²) w_ip (x_i − x_p)`,
//! `F'_p = (I + D_p) F_E,p` and `τ(F') = P(F') F'ᵀ` its Kirchhoff stress. The particle's share
//! `dt² V⁰ τ(F')` is its constraint impulse Λ (a matrix, the multiplier of XPBD). Handed to the
//! grid through the scatter, an impulse Λ is a change `−(4/(h² m_p)) Λ` of `D_p`: node i then
//! gets `w_ip m_p ΔD (x_i − x_p) = −(4/h²) w_ip Λ (x_i − x_p)`, which is `dt² f_i`'s term from
//! particle p. So each iteration:
//!
//! 1. takes the target impulse `Λ* = dt² V⁰ τ(F')` at the particle's current `F'`;
//! 2. moves the impulse applied so far, Λ, toward it by a step `ΔΛ` (below);
//! 3. applies the step: `Λ ← Λ + ΔΛ`, `D ← D − (4/(h² m)) ΔΛ`.
//!
//! Where the iterations stop changing anything (`ΔΛ = 0`), `Λ = Λ*` and the grid has received
//! exactly the implicit step's elastic impulses, `dt² f_i`. This is XPBD's fixed point
//! `C + α̃ λ = 0` with compliance `α̃ = α / dt²`, `α = 1 / stiffness`: the converged answer is the
//! elastic one for the snow's moduli, not a rigid body, and fewer iterations leave it softer.
//!
//! **Why τ(F') and not `P(F') F_Eᵀ`.** The latter is the exact gradient of the end-of-step elastic
//! energy with respect to the node displacements, and its force is free of torque about the
//! nodes' *end* positions, not about the nodes: it is not symmetric once the step rotates the
//! particle, and the angular momentum that torque removes is lost (1.7e-2 of it through the
//! off-centre collision of two snowballs in `tests/pbmpm_cpu.rs`). τ is
//! symmetric, so, as in the explicit integrator, the force has no torque about the nodes, the APIC
//! transfers carry the rest, and the same collision keeps its angular momentum to rounding
//! (4e-16). The two differ by `P F_Eᵀ Dᵀ`, of the order of the step's rotation.
//!
//! **The step.** XPBD's update `Δλ = (−C − α̃ λ) / (w + α̃)` is `(λ* − λ) / (1 + w k dt²)` with
//! `λ* = −C/α̃` and stiffness k: the residual, scaled down by how strongly the target itself moves
//! when the impulse moves the particle. For the particle's own affine motion (APIC inertia
//! `m h²/4`, so `w = 4 / (h² m)` per unit of D) and the linearized snow stress
//! (`2μ ε + λ tr ε I`), that factor is `1 + κ·2μ` for the deviatoric part of the residual and
//! `1 + κ(2μ + 3λ)` for its isotropic part, with `κ = 4 dt² V⁰ / (h² m) = 4 dt² / (h² ρ)` and the
//! hardened moduli. The relaxation setting multiplies the step.
//!
//! This is the step a particle would need if it alone moved its stencil (then the gather returns
//! its D unchanged, and one step with relaxation 1 solves its linearized problem). In a body the
//! scatter averages each particle's change of D with its neighbours', and scatter-then-gather
//! never amplifies (the gather is the scatter's adjoint in the mass-weighted inner products, and
//! by Jensen's inequality the scatter's norm is at most 1), so the grid answers all particles'
//! simultaneous (Jacobi) steps by no more than each assumed: the iteration does not overstep,
//! and a relaxation below 2 converges (to the linearization's accuracy). In the stiff limit the
//! step undoes the particle's strain geometrically, as the reference PB-MPM's projection does.
//!
//! **Plasticity at the step's end, not within it.** The stress is the elastic one of `F'`
//! whatever its singular values (only a guard, [`SAFE_SINGULAR_VALUES`], keeps a torn or
//! inverted particle's stress finite); the yield limit is applied once the iterations are done,
//! with the step's yield relaxation (`integrate::end_step`). Within a step the iterations have
//! not converged: strain they leave at a wall is partly their error, not the snow's response.
//! Capping the stress at the yield stress inside the step (tried first) let that error turn into
//! plastic compaction every step, and the default snowball was crushed to Jp = 0.001 at
//! resolution 64. The moduli are hardened by the particle's `Jp` at the step's start, as the
//! explicit integrator hardens by the `Jp` each substep starts with.
//!
//! **Cracking.** A cracked particle's positive principal Kirchhoff stresses are scaled by
//! `1 − damage` (0 for `damage` 1), as in the explicit integrator: it carries no tension.

use nalgebra::{Matrix3, Vector3};

use super::state::StepState;
use crate::sim::cpu::CpuParticle;
use crate::sim::cpu::svd::signed_svd;
use crate::sim::material::{Elasticity, NEO_HOOKEAN_MIN_J, SnowMaterial};
use crate::sim::params::SolverParams;

/// The range the singular values of a trial deformation are clamped to before its stress is
/// taken: a guard against a step that inverts or tears a particle (the stress there would be
/// meaningless and huge), far outside anything snow reaches in a converged step.
pub const SAFE_SINGULAR_VALUES: (f64, f64) = (0.05, 20.0);

/// The snow's response to a trial deformation: its stress and the moduli it was taken with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnowResponse {
    /// First Piola–Kirchhoff stress P, Pa.
    pub stress: Matrix3<f64>,
    /// Hardened shear modulus μ₀·hc, Pa.
    pub mu: f64,
    /// Hardened Lamé λ₀·hc, Pa.
    pub lambda: f64,
}

/// The snow's elastic response at the trial deformation `f`.
///
/// Moduli `μ = μ₀ hc`, `λ = λ₀ hc` with the hardening factor `hc = exp(clamp(ξ(1 − Jp), −10, 5))`
/// of the particle's `Jp` ([`SnowMaterial::hardening_factor`]). With the signed SVD
/// `f = U Σ Vᵀ` and `s = clamp(Σ, 0.05, 20)` ([`SAFE_SINGULAR_VALUES`]), the fixed corotated
/// stress (`ψ = μ Σ(sᵢ − 1)² + λ/2 (J − 1)²`) at `s`:
/// `P = U diag(Pᵢ) Vᵀ`, `Pᵢ = 2μ (sᵢ − 1) + λ (J − 1) J / sᵢ`, `J = s₁s₂s₃` (`J / sᵢ` formed as the
/// product of the other two, so nothing is divided). Its Kirchhoff stress `Pᵢ sᵢ` is the explicit
/// integrator's `τᵢ` at the same elastic state; a cracked particle scales each positive `τᵢ` (so
/// `Pᵢ`) by `1 − damage`.
pub fn snow_response(material: &SnowMaterial, f: &Matrix3<f64>, plastic_jacobian: f64, damage: f64) -> SnowResponse {
    let (u, sigma, v) = signed_svd(f);
    let s = sigma.map(|x| x.clamp(SAFE_SINGULAR_VALUES.0, SAFE_SINGULAR_VALUES.1));
    let hc = material.hardening_factor(plastic_jacobian);
    let (mu, lambda) = (material.mu0() * hc, material.lambda0() * hc);
    let j = s.x * s.y * s.z;
    let others = Vector3::new(s.y * s.z, s.x * s.z, s.x * s.y);
    let mut p = match material.elasticity {
        Elasticity::FixedCorotated => Vector3::from_fn(|i, _| 2.0 * mu * (s[i] - 1.0) + lambda * (j - 1.0) * others[i]),
        // Pᵢ = τᵢ / sᵢ of the neo-Hookean τᵢ = μ (sᵢ² − 1) + λ ln J; sᵢ ≥ 0.05, so the division is safe.
        Elasticity::NeoHookean => {
            let volume = lambda * j.max(NEO_HOOKEAN_MIN_J).ln();
            Vector3::from_fn(|i, _| mu * (s[i] - 1.0 / s[i]) + volume / s[i])
        }
    };
    if damage > 0.0 {
        for i in 0..3 {
            // τᵢ = sᵢ Pᵢ: tension where it is positive.
            if s[i] * p[i] > 0.0 {
                p[i] *= 1.0 - damage;
            }
        }
    }
    SnowResponse { stress: u * Matrix3::from_diagonal(&p) * v.transpose(), mu, lambda }
}

/// The target impulse `Λ* = dt² V⁰ τ(F')` of a particle whose affine displacement is `affine`
/// (`F' = (I + D) F_E`, `τ = P(F') F'ᵀ` its Kirchhoff stress; see the module docs), and the moduli
/// it was taken with.
pub fn target_impulse(
    material: &SnowMaterial,
    dt: f64,
    p: &CpuParticle,
    affine: &Matrix3<f64>,
) -> (Matrix3<f64>, SnowResponse) {
    let trial = (Matrix3::identity() + affine) * p.deformation;
    let response = snow_response(material, &trial, p.plastic_jacobian, p.damage);
    (dt * dt * p.volume * response.stress * trial.transpose(), response)
}

/// The step `ΔΛ` from the residual `r = Λ* − Λ`: its isotropic part `tr(r)/3 · I` divided by
/// `1 + κ(2μ + 3λ)`, the rest by `1 + 2κμ`, both times `relaxation`, with the moduli of the
/// target's response and `κ = 4 dt² V⁰ / (h² m)` (module docs, "The step").
pub fn impulse_step(
    response: &SnowResponse,
    dt: f64,
    cell_size: f64,
    relaxation: f64,
    p: &CpuParticle,
    residual: &Matrix3<f64>,
) -> Matrix3<f64> {
    let kappa = 4.0 * dt * dt * p.volume / (cell_size * cell_size * p.mass);
    let isotropic = Matrix3::identity() * (residual.trace() / 3.0);
    let rest = residual - isotropic;
    let (mu, lambda) = (response.mu, response.lambda);
    relaxation * (rest / (1.0 + 2.0 * kappa * mu) + isotropic / (1.0 + kappa * (2.0 * mu + 3.0 * lambda)))
}

/// Moves every particle's affine displacement one compliant step toward its snow constraint:
/// `ΔΛ = impulse_step(Λ* − Λ)`, `Λ ← Λ + ΔΛ`, `D ← D − (4/(h² m)) ΔΛ`. The displacement `d` is left
/// alone, so the projection changes no particle's momentum.
pub fn project(params: &SolverParams, dt: f64, relaxation: f64, particles: &[CpuParticle], state: &mut [StepState]) {
    let h = params.grid.cell_size;
    for (p, s) in particles.iter().zip(state) {
        let (target, response) = target_impulse(params.material_of(p.material), dt, p, &s.affine);
        let step = impulse_step(&response, dt, h, relaxation, p, &(target - s.impulse));
        s.impulse += step;
        s.affine -= (4.0 / (h * h * p.mass)) * step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cpu::p2g::kirchhoff_stress;
    use crate::sim::cpu::test_scene;
    use glam::Vec3;

    #[test]
    fn stress_matches_the_explicit_kirchhoff_stress_inside_the_elastic_range() {
        // τ = P Fᵀ for states inside [1 − θc, 1 + θs], uncracked and cracked, hardened or not: one
        // compressed (all τᵢ < 0), one stretched along a rotated axis (τ₁ > 0, which a cracked
        // particle drops).
        let m = SnowMaterial::default();
        let rot = nalgebra::Rotation3::from_euler_angles(0.3, -0.7, 1.1).into_inner();
        let compressed = rot * Matrix3::new(0.99, 0.002, 0.0, 0.001, 1.004, -0.003, 0.0, 0.002, 0.985);
        let stretched = rot * Matrix3::from_diagonal(&Vector3::new(1.006, 0.999, 1.0)) * rot.transpose();
        // The neo-Hookean law too, and at a large strain, where it differs from the corotated one.
        let neo = SnowMaterial { elasticity: Elasticity::NeoHookean, ..m };
        let squashed = rot * Matrix3::from_diagonal(&Vector3::new(1.3, 0.7, 0.9)) * rot.transpose();
        for (m, f) in [(m, compressed), (m, stretched), (neo, compressed), (neo, stretched), (neo, squashed)] {
            for (jp, damage) in [(1.0, 0.0), (0.97, 0.0), (1.02, 1.0), (0.97, 1.0)] {
                let tau = snow_response(&m, &f, jp, damage).stress * f.transpose();
                let want = kirchhoff_stress(&m, &f, jp, damage);
                // Relative 1e-11 of the stress scale: two SVDs of the same matrix and a few products.
                assert!((tau - want).norm() <= 1e-11 * want.norm().max(m.mu0() * 1e-3), "{tau} vs {want}");
            }
        }
        // The stretched state carries tension, and a cracked particle none: its largest principal
        // stress is 0 (to rounding of stresses ~ 1e3 Pa), the uncracked one's 894 Pa.
        let largest = |damage| snow_response(&m, &stretched, 1.0, damage).stress.symmetric_eigenvalues().max();
        assert!(largest(0.0) > 100.0, "{}", largest(0.0));
        assert!(largest(1.0).abs() < 1e-9, "{}", largest(1.0));
    }

    #[test]
    fn stress_is_elastic_past_the_yield_limit_and_guarded_far_beyond() {
        // Compressed along y past θc = 0.025: the stress keeps growing as the elastic formula says
        // (yield comes at the step's end), so at 0.9 it is the fixed corotated stress of 0.9:
        // P_y = 2μ(s − 1) + λ(J − 1) with J = s.
        let m = SnowMaterial::default();
        let at = |s: f64| snow_response(&m, &Matrix3::from_diagonal(&Vector3::new(1.0, s, 1.0)), 1.0, 0.0).stress;
        let want = 2.0 * m.mu0() * (0.9 - 1.0) + m.lambda0() * (0.9 - 1.0);
        // Relative 1e-12: an SVD of a diagonal matrix and a few products.
        assert!((at(0.9)[(1, 1)] - want).abs() <= 1e-12 * want.abs(), "{} vs {want}", at(0.9)[(1, 1)]);
        assert!(at(0.9)[(1, 1)] < 3.0 * at(0.975)[(1, 1)]);
        // Beyond the guard (0.05) the stress no longer grows: a crushed particle's is that of 0.05.
        let scale = at(0.05).norm();
        assert!((at(0.01) - at(0.05)).norm() <= 1e-12 * scale, "{} vs {}", at(0.01), at(0.05));
    }

    #[test]
    fn a_lone_particle_converges_to_its_implicit_step() {
        // One particle compressed to F_E = diag(1, 0.98, 1) (inside the elastic range), at rest, no
        // gravity. Alone, its nodes hold exactly its own affine field, so the iteration is the
        // particle's implicit step for its affine mode of inertia m h²/4:
        // D = −(4/(h² m)) dt² V⁰ τ((I + D) F_E). Iterate the projection alone and check that.
        let params = test_scene::params();
        let mut p = CpuParticle::from_gpu(&test_scene::particle(Vec3::splat(0.4), Vec3::ZERO));
        p.deformation = Matrix3::from_diagonal(&Vector3::new(1.0, 0.98, 1.0));
        let dt = 1e-3;
        let mut state = [StepState::default()];
        for _ in 0..60 {
            project(&params, dt, 1.0, &[p], &mut state);
        }
        let h = params.grid.cell_size;
        let want = -(4.0 / (h * h * p.mass)) * target_impulse(&params.material, dt, &p, &state[0].affine).0;
        // The step is this particle's linearized problem, so each one cuts the error by about the
        // size of the strain (2 %): after 60 steps only rounding is left, 1e-12 relative with room.
        assert!((state[0].affine - want).norm() <= 1e-12 * want.norm(), "{} vs {want}", state[0].affine);
        // It pushes back: the compressed direction expands.
        assert!(state[0].affine[(1, 1)] > 0.0);
    }

    #[test]
    fn one_step_solves_a_lone_particles_linearized_problem() {
        // The step size is the linearization of a lone particle's problem (module docs, "The
        // step"), so with relaxation 1 one step lands on its implicit step up to the problem's
        // nonlinearity, however stiff: here E = 1e8 Pa and ν = 0.45 (λ = 4.5 μ), at 1/240 s on
        // 0.1 m cells (κ·(λ + 2μ) ≈ 3,700), with F_E a rotated strain of ~1e-3.
        let mut params = test_scene::params();
        (params.material.youngs_modulus, params.material.poisson_ratio) = (1e8, 0.45);
        let mut p = CpuParticle::from_gpu(&test_scene::particle(Vec3::splat(0.4), Vec3::ZERO));
        let rot = nalgebra::Rotation3::from_euler_angles(0.2, 0.5, -0.3).into_inner();
        let strain = Matrix3::new(1.2e-3, 3e-4, 0.0, 3e-4, -1.5e-3, -2e-4, 0.0, -2e-4, -8e-4);
        p.deformation = rot * (Matrix3::identity() + strain);
        let dt = 1.0 / 240.0;
        let mut one = [StepState::default()];
        project(&params, dt, 1.0, &[p], &mut one);
        let mut converged = one;
        for _ in 0..20 {
            project(&params, dt, 1.0, &[p], &mut converged);
        }
        // The stiff answer undoes the strain: D ≈ −R ε Rᵀ, to 1/(κk) and the strain's square
        // (measured 1.5e-3 relative). Leaving the volumetric stiffness out of the step size makes
        // this iteration diverge (|D| reaches 0.25 in 21 steps).
        let undo = -(rot * strain * rot.transpose());
        assert!((converged[0].affine - undo).norm() <= 0.01 * undo.norm(), "{} vs {undo}", converged[0].affine);
        // One step is within 1 % of it (measured 1.8e-3: the strain's square and its coupling to
        // the rotation are what the linearization leaves).
        let err = (one[0].affine - converged[0].affine).norm() / converged[0].affine.norm();
        assert!(err <= 0.01, "one step: relative error {err:e}");
    }
}
