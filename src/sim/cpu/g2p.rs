//! The `g2p` pass: particles gather velocity and affine motion from the grid, update their
//! deformation gradient, project it onto the snow's elastic range and move. `docs/algorithm.md`,
//! "g2p", steps 1–5 (step 6, the GPU's non-finite reset, has no CPU counterpart).

use nalgebra::Matrix3;

use super::svd::signed_svd;
use super::{CpuGrid, CpuParticle, Stencil, clamp_speed};
use crate::sim::material::{PLASTIC_JACOBIAN_MAX, PLASTIC_JACOBIAN_MIN, SnowMaterial};
use crate::sim::params::SolverParams;

/// Snow plasticity (step 3): clamps the singular values of the trial elastic gradient `f` to
/// `[1 − θc, 1 + θs]` and moves the removed volume change into `Jp`.
///
/// Returns `(F_E, Jp')` with `F_E = U Σc Vᵀ` (computed as `F + U (Σc − Σ) Vᵀ`) and `Jp' = clamp(Jp · |det Σ / det Σc|, 10⁻³, 10³)`.
pub fn project_plasticity(material: &SnowMaterial, f: &Matrix3<f64>, plastic_jacobian: f64) -> (Matrix3<f64>, f64) {
    let (elastic, jp, _, _) = project_plasticity_svd(material, f, plastic_jacobian, 0.0);
    (elastic, jp)
}

/// [`project_plasticity`], also returning the singular values `Σc` kept (those of `F_E`) and the
/// trial ones `Σ`, with the return to the elastic range made partial: `keep` (in `[0, 1)`) of each
/// singular value's excess over `[1 − θc, 1 + θs]` stays elastic, `Σc = clamp(Σ) + keep (Σ − clamp(Σ))`.
/// The explicit integrator passes 0 (the paper's clamp); PB-MPM's yield relaxation
/// (`docs/pbmpm.md`) passes `exp(−dt/τ)`. With `keep = 0` the result is the clamp exactly.
pub fn project_plasticity_svd(
    material: &SnowMaterial,
    f: &Matrix3<f64>,
    plastic_jacobian: f64,
    keep: f64,
) -> (Matrix3<f64>, f64, nalgebra::Vector3<f64>, nalgebra::Vector3<f64>) {
    let (u, sigma, v) = signed_svd(f);
    let lo = 1.0 - material.critical_compression;
    let hi = 1.0 + material.critical_stretch;
    let clamped = sigma.map(|s| s.clamp(lo, hi));
    let clamped = clamped + keep * (sigma - clamped);
    // F + U (Σc − Σ) Vᵀ = U Σc Vᵀ, written as a correction to F so that snow inside its elastic
    // range keeps F exactly: rebuilding F from its SVD every substep adds the SVD's rounding each
    // time, which in the GPU's f32 shrinks F steadily and makes resting snow creep.
    let elastic = f + u * Matrix3::from_diagonal(&(clamped - sigma)) * v.transpose();
    let det = sigma.x * sigma.y * sigma.z;
    let det_clamped = clamped.x * clamped.y * clamped.z;
    let jp = (plastic_jacobian * (det / det_clamped).abs()).clamp(PLASTIC_JACOBIAN_MIN, PLASTIC_JACOBIAN_MAX);
    (elastic, jp, clamped, sigma)
}

/// Gathers grid velocities back to every particle and advances it by `params.dt`.
///
/// `v' = Σ w vi`, `C' = (4/h²) Σ w vi dᵀ`, `F' = (I + dt C') F` then plasticity,
/// `x' = x + dt v'` clamped to the domain box, and last `v'` clamped to `max_speed` (the position
/// uses the unclamped `v'`, as on the GPU).
///
/// # Panics
/// If a particle lies 1.5 cells or more outside the domain, so that its stencil leaves the grid.
pub fn g2p(params: &SolverParams, grid: &CpuGrid, particles: &mut [CpuParticle]) {
    let spec = &params.grid;
    let h = spec.cell_size;
    let dt = params.dt;
    let (lo, hi) = (spec.domain_min, spec.domain_max());
    for p in particles {
        let stencil = Stencil::new(spec, &p.position);
        let mut velocity = nalgebra::Vector3::zeros();
        let mut b = Matrix3::zeros();
        for (node, w, d) in stencil.nodes(spec) {
            let vi = grid.velocity[node];
            velocity += w * vi;
            b += w * vi * d.transpose();
        }
        let affine = (4.0 / (h * h)) * b;
        let trial = (Matrix3::identity() + dt * affine) * p.deformation;
        let (elastic, mut jp, sigma, stretch) =
            project_plasticity_svd(&params.material, &trial, p.plastic_jacobian, 0.0);
        // A cracked particle's stretch past 1 + θs opens its cracks instead of loosening the snow
        // between them: its Jp may fall (compaction) but not rise.
        if p.damage > 0.0 {
            jp = jp.min(p.plastic_jacobian);
        }
        // Cracking (step 3b): the new state's largest principal stress against the tensile strength.
        if params.material.cracks([stretch.x, stretch.y, stretch.z], [sigma.x, sigma.y, sigma.z], jp, p.strength) {
            p.damage = 1.0;
        }

        let mut x = p.position + dt * velocity;
        for (a, (l, u)) in [(lo.x, hi.x), (lo.y, hi.y), (lo.z, hi.z)].into_iter().enumerate() {
            x[a] = x[a].clamp(l, u);
        }

        p.position = x;
        p.velocity = clamp_speed(velocity, params.max_speed);
        p.affine = affine;
        p.deformation = elastic;
        p.plastic_jacobian = jp;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cpu::{CpuSolver, test_scene};
    use glam::Vec3;
    use nalgebra::Vector3;

    /// One particle at an interior point with deformation `f` and plastic ratio `jp`; the grid
    /// velocity is zero everywhere (as after `CpuSolver::new`).
    fn deformed(f: Matrix3<f64>, jp: f64) -> CpuSolver {
        let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::ZERO);
        let mut solver = CpuSolver::new(test_scene::params(), &[p]);
        solver.particles[0].deformation = f;
        solver.particles[0].plastic_jacobian = jp;
        solver
    }

    #[test]
    fn stretch_past_theta_s_becomes_plastic() {
        let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.1, 1.0, 1.0)), 1.0);
        s.g2p();
        let theta_s = s.params.material.critical_stretch;
        let p = &s.particles[0];
        let (_, sigma, _) = signed_svd(&p.deformation);
        // Relative 1e-12: with zero grid velocity F' = F exactly and the SVD of a diagonal matrix
        // is exact to a few ulps, so only a handful of roundings separate the two sides.
        assert!((sigma.max() - (1.0 + theta_s)).abs() <= 1e-12 * (1.0 + theta_s), "σ = {sigma}");
        assert!((sigma.min() - 1.0).abs() <= 1e-12);
        let want = 1.1 / (1.0 + theta_s);
        assert!((p.plastic_jacobian - want).abs() <= 1e-12 * want, "Jp = {}", p.plastic_jacobian);
    }

    #[test]
    fn compression_past_theta_c_becomes_plastic() {
        let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(1.0, 0.9, 1.0)), 1.0);
        s.g2p();
        let theta_c = s.params.material.critical_compression;
        let (_, sigma, _) = signed_svd(&s.particles[0].deformation);
        // Same 1e-12 argument as for stretch.
        assert!((sigma.min() - (1.0 - theta_c)).abs() <= 1e-12);
        let want = 0.9 / (1.0 - theta_c);
        assert!((s.particles[0].plastic_jacobian - want).abs() <= 1e-12 * want);
    }

    #[test]
    fn plastic_jacobian_is_clamped() {
        // 1.5e-3 · 0.5 / 0.975 ≈ 7.7e-4 < 1e-3: held at the bound (exact, clamp returns it).
        let mut s = deformed(Matrix3::from_diagonal(&Vector3::new(0.5, 1.0, 1.0)), 1.5e-3);
        s.g2p();
        assert_eq!(s.particles[0].plastic_jacobian, PLASTIC_JACOBIAN_MIN);
    }

    #[test]
    fn gravity_only_substep_is_a_free_fall_step() {
        let (x0, v0) = (Vector3::new(0.43, 0.41, 0.47), Vector3::new(0.3, -0.2, 0.1));
        let p = test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::new(0.3, -0.2, 0.1));
        let mut s = CpuSolver::new(test_scene::params(), &[p]);
        // Use the particle's own (f32-rounded) start so the check is about the step, not the input.
        let (x0f, v0f) = (s.particles[0].position, s.particles[0].velocity);
        assert!((x0f - x0).norm() < 1e-7 && (v0f - v0).norm() < 1e-7);
        s.substep();
        let g = Vector3::new(0.0, 0.0, -9.81);
        let dt = s.params.dt;
        let v1 = v0f + dt * g;
        let x1 = x0f + dt * v1;
        let p = &s.particles[0];
        // 1e-12: every node gets the same velocity v + g dt, and the weights sum to one, so v' and
        // x' differ from the closed form only by rounding (~1e-16 relative).
        assert!((p.velocity - v1).norm() < 1e-12, "v = {}", p.velocity);
        assert!((p.position - x1).norm() < 1e-12, "x = {}", p.position);
        // C' = (4/h²)·v·Σ w dᵀ = 0 up to 400 × rounding of Σ w d (~1e-17 m), so F stays I.
        assert!(p.affine.norm() < 1e-10, "C = {}", p.affine);
        assert!((p.deformation - Matrix3::identity()).norm() < 1e-12);
        assert_eq!(p.plastic_jacobian, 1.0);
    }

    #[test]
    fn clamps_position_to_the_domain_and_speed_after_moving() {
        let low = test_scene::particle(Vec3::new(0.4, 0.4, 0.001), Vec3::ZERO);
        let mid = test_scene::particle(Vec3::new(0.4, 0.4, 0.4), Vec3::ZERO);
        let mut s = CpuSolver::new(test_scene::params(), &[low, mid]);
        s.grid.velocity.fill(Vector3::new(0.0, 0.0, -80.0));
        s.g2p();
        let dt = s.params.dt;
        // Low particle: 0.001 − 80 dt = −0.007 → clamped to the floor z = 0 (exact).
        assert_eq!(s.particles[0].position.z, 0.0);
        // Mid particle moves with the unclamped −80 m/s (to rounding, 1e-12), then its velocity is
        // clamped to 50 m/s.
        let z0 = 0.4f32 as f64;
        assert!((s.particles[1].position.z - (z0 - 80.0 * dt)).abs() < 1e-12);
        assert!((s.particles[1].velocity - Vector3::new(0.0, 0.0, -50.0)).norm() < 1e-12);
    }
}
