//! The `g2p` pass: particles gather velocity and affine motion from the grid, update their
//! deformation gradient, project it onto the snow's elastic range and move. `docs/algorithm.md`,
//! "g2p", steps 1–5 (step 6, the GPU's non-finite reset, has no CPU counterpart).

use nalgebra::Matrix3;

use super::grid::{CpuGrid, Stencil};
use super::particle::{CpuParticle, clamp_speed};
use super::svd::signed_svd;
use crate::sim::material::{MaterialKind, PLASTIC_JACOBIAN_MAX, PLASTIC_JACOBIAN_MIN, SnowMaterial};
use crate::sim::params::SolverParams;

/// Plasticity (step 3): returns the trial elastic gradient `f` to the material's elastic range.
/// Snow clamps its singular values to `[1 − θc, 1 + θs]` and moves the removed volume change into
/// `Jp`; sand returns them onto its Drucker–Prager cone ([`sand_return`]), keeping its volume
/// correction in `Jp`; a liquid keeps only its volume (every singular value `J^(1/3)`, `Jp` as
/// it was).
///
/// Returns `(F_E, Jp')` with `F_E = U Σc Vᵀ` (computed as `F + U (Σc − Σ) Vᵀ`) and, for snow,
/// `Jp' = clamp(Jp · |det Σ / det Σc|, 10⁻³, 10³)`.
pub fn project_plasticity(material: &SnowMaterial, f: &Matrix3<f64>, plastic_jacobian: f64) -> (Matrix3<f64>, f64) {
    let (elastic, jp, _, _) = project_plasticity_svd(material, f, plastic_jacobian, 0.0, 0.0);
    (elastic, jp)
}

/// [`project_plasticity`], also returning the singular values `Σc` kept (those of `F_E`) and the
/// trial ones `Σ`, with the return to the elastic range made partial: `keep` (in `[0, 1)`) of each
/// singular value's excess over the returned one `Σr` stays elastic, `Σc = Σr + keep (Σ − Σr)`.
/// The explicit integrator passes 0 (the paper's clamp); PB-MPM's yield relaxation
/// (`docs/pbmpm.md`) passes `exp(−dt/τ)`. With `keep = 0` the result is the return exactly. `dt`
/// is the step's length, seconds: the visco-plastic return relaxes toward its yield surface over
/// it ([`visco_return`]).
pub fn project_plasticity_svd(
    material: &SnowMaterial,
    f: &Matrix3<f64>,
    plastic_jacobian: f64,
    keep: f64,
    dt: f64,
) -> (Matrix3<f64>, f64, nalgebra::Vector3<f64>, nalgebra::Vector3<f64>) {
    let (u, sigma, v) = signed_svd(f);
    // The returned singular values, and for sand and liquids the new Jp (for snow it follows).
    let (returned, kept_jp) = match material.kind {
        MaterialKind::Snow => {
            let (lo, hi) = (1.0 - material.critical_compression, 1.0 + material.critical_stretch);
            (sigma.map(|s| s.clamp(lo, hi)), None)
        }
        MaterialKind::Sand => {
            let (returned, volume) = sand_return(material, sigma, plastic_jacobian);
            (returned, Some(volume.exp()))
        }
        // Only the volume stays: J^(1/3) on every axis, sign kept; Jp as it was.
        MaterialKind::Liquid => {
            let j: f64 = sigma.x * sigma.y * sigma.z;
            (nalgebra::Vector3::repeat(j.signum() * j.abs().cbrt()), Some(plastic_jacobian))
        }
        MaterialKind::ViscoPlastic => (visco_return(material, sigma, dt), Some(plastic_jacobian)),
    };
    let clamped = returned + keep * (sigma - returned);
    // F + U (Σc − Σ) Vᵀ = U Σc Vᵀ, written as a correction to F so that snow inside its elastic
    // range keeps F exactly: rebuilding F from its SVD every substep adds the SVD's rounding each
    // time, which in the GPU's f32 shrinks F steadily and makes resting snow creep.
    let elastic = f + u * Matrix3::from_diagonal(&(clamped - sigma)) * v.transpose();
    let jp = match kept_jp {
        Some(jp) => jp,
        None => {
            let det = sigma.x * sigma.y * sigma.z;
            let det_clamped = clamped.x * clamped.y * clamped.z;
            plastic_jacobian * (det / det_clamped).abs()
        }
    };
    (elastic, jp.clamp(PLASTIC_JACOBIAN_MIN, PLASTIC_JACOBIAN_MAX), clamped, sigma)
}

/// Sand plasticity: the Drucker–Prager return mapping of Klár et al. 2016 on the Hencky strain
/// `ε = ln |Σ|` of the trial singular values `sigma`, with the volume correction of Tampubolon et
/// al. 2017 carried in `Jp` as `v = ln Jp`. With `tr = Σ εᵢ + v`, `ε̂ = ε − tr/3` and the apex
/// `a` of the cone ([`SnowMaterial::cohesion_strain`]: 0 for dry sand, positive for cohesive sand,
/// which holds some tension):
/// - `tr ≥ a` (pulled apart): only the apex's hydrostatic strain is left, every εᵢ = a/3, and the
///   volume beyond it is kept (`v = tr − a`) to be given back once the sand is pressed again;
/// - otherwise `Δγ = ‖ε̂‖ + α (3λ + 2μ)/(2μ) (tr − a)` (α of
///   [`SnowMaterial::drucker_prager_alpha`]); outside the cone (`Δγ > 0`) ε moves back along ε̂ by
///   Δγ, onto it; `v = 0`.
///
/// Returns the singular values of the returned elastic deformation and the new `v`.
pub fn sand_return(
    material: &SnowMaterial,
    sigma: nalgebra::Vector3<f64>,
    plastic_jacobian: f64,
) -> (nalgebra::Vector3<f64>, f64) {
    let epsilon = sigma.map(|s| s.abs().max(SAND_MIN_STRETCH).ln());
    let tr = epsilon.sum() + plastic_jacobian.ln();
    let apex = material.cohesion_strain();
    let beyond = tr - apex;
    if beyond >= 0.0 {
        return (nalgebra::Vector3::repeat((apex / 3.0).exp()), beyond);
    }
    let deviatoric = epsilon - nalgebra::Vector3::repeat(tr / 3.0);
    let norm = deviatoric.norm() + 1e-20;
    let (mu, lambda) = (material.mu0(), material.lambda0());
    let dgamma = norm + (3.0 * lambda + 2.0 * mu) / (2.0 * mu) * beyond * material.drucker_prager_alpha();
    let returned = epsilon - dgamma.max(0.0) / norm * deviatoric;
    (returned.map(f64::exp), 0.0)
}

/// The secant scales `(shear, bulk)` of sand's moduli at the trial singular values `sigma`: the
/// fraction `1 − Δγ/‖ε̂‖` of the deviatoric strain [`sand_return`] keeps (1 inside the cone), and
/// `(0, 0)` past the apex, where the returned stress no longer follows the strain. PB-MPM's Newton
/// operator takes sand's moduli scaled by them (`docs/pbmpm.md`, "Sand").
pub fn sand_secant(material: &SnowMaterial, sigma: nalgebra::Vector3<f64>, plastic_jacobian: f64) -> (f64, f64) {
    let epsilon = sigma.map(|s| s.abs().max(SAND_MIN_STRETCH).ln());
    let tr = epsilon.sum() + plastic_jacobian.ln();
    let beyond = tr - material.cohesion_strain();
    if beyond >= 0.0 {
        return (0.0, 0.0);
    }
    let norm = (epsilon - nalgebra::Vector3::repeat(tr / 3.0)).norm() + 1e-20;
    let (mu, lambda) = (material.mu0(), material.lambda0());
    let dgamma = norm + (3.0 * lambda + 2.0 * mu) / (2.0 * mu) * beyond * material.drucker_prager_alpha();
    ((1.0 - dgamma.max(0.0) / norm).clamp(0.0, 1.0), 1.0)
}

/// The visco-plastic return mapping (Bingham: Herschel–Bulkley of flow index 1, as an
/// elasto-viscoplastic solid after Yue et al. 2015, "Continuum foam"): on the Hencky strain
/// `ε = ln |Σ|`, its deviator `ε̂ = ε − tr ε / 3` has the deviatoric Kirchhoff stress `s = 2μ ε̂`.
/// Within the yield surface `‖s‖ ≤ k = √2 τ_y` (von Mises, `τ_y` the yield stress in simple shear)
/// nothing changes (`sigma` is returned as it is). Past it the overstress relaxes at the
/// viscosity over the step (Perzyna, implicit in dt):
/// `‖s'‖ = (‖s‖ + r k) / (1 + r)`, `r = μ dt / η`, which in steady simple shear gives the shear
/// stress `τ_y + η γ̇` (docs/materials.md derives it); `ε̂` is scaled to match and the volume
/// `tr ε` kept. Returns the new singular values.
pub fn visco_return(material: &SnowMaterial, sigma: nalgebra::Vector3<f64>, dt: f64) -> nalgebra::Vector3<f64> {
    let epsilon = sigma.map(|s| s.abs().max(SAND_MIN_STRETCH).ln());
    let tr = epsilon.sum();
    let deviatoric = epsilon - nalgebra::Vector3::repeat(tr / 3.0);
    let mu = material.mu0();
    let stress = 2.0 * mu * deviatoric.norm();
    let k = std::f64::consts::SQRT_2 * material.yield_stress;
    if stress <= k {
        return sigma;
    }
    let r = mu * dt / material.viscosity;
    let relaxed = (stress + r * k) / (1.0 + r);
    (nalgebra::Vector3::repeat(tr / 3.0) + deviatoric * (relaxed / stress)).map(f64::exp)
}

/// The secant scale of the visco-plastic shear modulus at the trial singular values `sigma` over a
/// step of `dt` seconds: the fraction `‖s'‖/‖s‖` of the deviatoric stress [`visco_return`] keeps
/// (1 within the yield surface). PB-MPM's Newton operator takes the shear modulus scaled by it
/// (`docs/pbmpm.md`, "Yielding inside the Newton solve").
pub fn visco_secant(material: &SnowMaterial, sigma: nalgebra::Vector3<f64>, dt: f64) -> f64 {
    let epsilon = sigma.map(|s| s.abs().max(SAND_MIN_STRETCH).ln());
    let deviatoric = epsilon - nalgebra::Vector3::repeat(epsilon.sum() / 3.0);
    let mu = material.mu0();
    let stress = 2.0 * mu * deviatoric.norm();
    let k = std::f64::consts::SQRT_2 * material.yield_stress;
    if stress <= k {
        return 1.0;
    }
    let r = mu * dt / material.viscosity;
    (stress + r * k) / (1.0 + r) / stress
}

/// The smallest singular value sand's return mapping takes the logarithm of: a particle crushed
/// flatter is treated as this flat (`SAND_MIN_STRETCH` in `snow.wgsl`).
pub const SAND_MIN_STRETCH: f64 = 1e-4;

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
            project_plasticity_svd(params.material_of(p.material), &trial, p.plastic_jacobian, 0.0, dt);
        // A cracked particle's stretch past 1 + θs opens its cracks instead of loosening the snow
        // between them: its Jp may fall (compaction) but not rise.
        if p.damage > 0.0 {
            jp = jp.min(p.plastic_jacobian);
        }
        // Cracking (step 3b): the new state's largest principal stress against the tensile strength.
        if params.material_of(p.material).cracks(
            [stretch.x, stretch.y, stretch.z],
            [sigma.x, sigma.y, sigma.z],
            jp,
            p.strength,
        ) {
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
mod tests;
