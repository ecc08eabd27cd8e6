//! The `p2g` pass: particles scatter mass and MLS-MPM momentum (velocity, affine motion and the
//! stress impulse) onto their 3×3×3 grid stencil. `docs/algorithm.md`, "p2g", steps 1–7.

use nalgebra::Matrix3;

use super::grid::{CpuGrid, Stencil};
use super::particle::{CpuParticle, clamp_speed};
use super::svd::signed_svd;
use crate::sim::material::{Elasticity, MaterialKind, NEO_HOOKEAN_MIN_J, SnowMaterial};
use crate::sim::params::SolverParams;

/// Kirchhoff stress of the snow model (steps 3–5), fixed corotated:
/// `τ = 2μ (F − R) Fᵀ + λ (J − 1) J · I` with `μ = μ₀·hc`, `λ = λ₀·hc`,
/// `hc = exp(clamp(ξ(1 − Jp), −10, 5))`, `R = U Vᵀ` and `J = σ₁σ₂σ₃` from the signed SVD; a
/// neo-Hookean material's is `τ = μ (F Fᵀ − I) + λ ln J · I` ([`Elasticity::NeoHookean`]).
/// A cracked particle (`damage` 1) keeps only the compressive principal stresses: with
/// `(F − R) Fᵀ = U (Σ − I) Σ Uᵀ`, `τ = U diag(τᵢ) Uᵀ` and each `τᵢ > 0` is scaled by `1 − damage`.
pub fn kirchhoff_stress(material: &SnowMaterial, f: &Matrix3<f64>, plastic_jacobian: f64, damage: f64) -> Matrix3<f64> {
    let hc = material.hardening_factor(plastic_jacobian);
    let mu = material.mu0() * hc;
    let lambda = material.lambda0() * hc;
    let (u, sigma, v) = signed_svd(f);
    if damage > 0.0 {
        let tau = material.principal_stress([sigma.x, sigma.y, sigma.z], plastic_jacobian);
        let kept = nalgebra::Vector3::from(tau.map(|t| if t > 0.0 { t * (1.0 - damage) } else { t }));
        return u * Matrix3::from_diagonal(&kept) * u.transpose();
    }
    let j = sigma.x * sigma.y * sigma.z;
    if material.elasticity == Elasticity::NeoHookean {
        let volume = lambda * j.max(NEO_HOOKEAN_MIN_J).ln();
        return mu * (f * f.transpose() - Matrix3::identity()) + Matrix3::identity() * volume;
    }
    let r = u * v.transpose();
    2.0 * mu * (f - r) * f.transpose() + Matrix3::identity() * (lambda * (j - 1.0) * j)
}

/// A liquid's viscous Kirchhoff stress `J · 2η dev(sym(C))` (Newtonian, without bulk viscosity)
/// for a particle of velocity gradient `c` (APIC's C) and volume ratio `j`; zero for the other
/// kinds (the visco-plastic kind's viscosity acts through its return mapping).
pub fn viscous_stress(material: &SnowMaterial, c: &Matrix3<f64>, j: f64) -> Matrix3<f64> {
    if material.kind != MaterialKind::Liquid || material.viscosity <= 0.0 {
        return Matrix3::zeros();
    }
    let d = 0.5 * (c + c.transpose());
    2.0 * material.viscosity * j * (d - Matrix3::identity() * (d.trace() / 3.0))
}

/// Scatters every particle onto the grid, adding to `grid.mass` and `grid.momentum` (clear first).
///
/// Per particle: `A = −dt V⁰ (4/h²) τ + m C`; per node `u = v + A d / m`, clamped to `max_speed`;
/// the node gets `w m` mass and `w m u` momentum. Plain f64 sums (the GPU uses fixed point).
///
/// # Panics
/// If a particle lies 1.5 cells or more outside the domain, so that its stencil leaves the grid.
pub fn p2g(params: &SolverParams, particles: &[CpuParticle], grid: &mut CpuGrid) {
    let spec = &params.grid;
    let h = spec.cell_size;
    for p in particles {
        let stencil = Stencil::new(spec, &p.position);
        let material = params.material_of(p.material);
        let tau = kirchhoff_stress(material, &p.deformation, p.plastic_jacobian, p.damage)
            + viscous_stress(material, &p.affine, p.deformation.determinant());
        let a = -params.dt * p.volume * (4.0 / (h * h)) * tau + p.mass * p.affine;
        for (node, w, d) in stencil.nodes(spec) {
            let u = clamp_speed(p.velocity + (a * d) / p.mass, params.max_speed);
            grid.mass[node] += w * p.mass;
            grid.momentum[node] += w * p.mass * u;
        }
    }
}

#[cfg(test)]
mod tests;
