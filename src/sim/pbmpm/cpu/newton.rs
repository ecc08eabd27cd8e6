//! A PB-MPM step solved to the backward-Euler answer: one Newton step on the grid displacements,
//! its linear system solved by conjugate gradients preconditioned with an additive multilevel
//! (BPX) smoother. This converges where the constraint iterations of [`super::PbmpmCpu::step`]
//! do not: their stiffness reaches at most a few cells per iteration, so it falls as the grid is
//! refined, while the multilevel preconditioner reaches the whole body in every iteration.
//! `docs/pbmpm.md`, "The Newton–PCG solve", has the derivation and the measurements.
//!
//! The unknowns are the node displacements `u` over the step. Backward Euler in displacements is
//!
//! `r(u) = M (u* − u) + dt² f(u) = 0`,  `f_i(u) = −Σ_p V⁰_p τ(F'_p(u)) ∇w_ip`,
//!
//! with `u*` the prediction the particles scatter (their leapfrog motion, as in
//! [`super::integrate::begin_step`]), `F'_p(u) = (I + Σ_i u_i ∇w_ipᵀ) F_E,p` and τ the Kirchhoff
//! stress ([`super::constraint::target_impulse`]'s, symmetric, so `f` carries no torque about the
//! nodes). The step starts from `u = u*`: the stress a body already holds is in `F_E`, so a body
//! at rest under its weight starts with `r ≈ 0`, and what the solve leaves unconverged slows the
//! motion it is solving for rather than softening the material at rest.
//!
//! Newton's linear system `A x = r(u*)` uses `A = M + dt² K` with `K` the small-strain isotropic
//! stiffness of each particle at its hardened moduli (`δτ = 2μ sym(δD) + λ tr(δD) I`): it is
//! symmetric positive definite, invariant under the particle's rotation, and leaves out only the
//! stress's own (geometric) stiffness, small beside the moduli for snow's strains.
//!
//! Walls and colliders enter as a mask: an axis whose velocity the grid's conditions change is
//! held, and the solve leaves it alone. The force along the held axes is what the wall must push
//! back with; at the end of the step it is added to the node's velocity before the conditions are
//! applied once more, and the free axes keep what their Coulomb friction made of it (the weight of
//! the snow above a floor node, not just the node's own); the held axes keep the conditions'
//! answer without it. The force is the one at the
//! solution, to first order: the prediction's, less `dt² K x` along the held axes as the solve
//! updates `x` (at the prediction alone it can be many times the weight: the prediction moves the
//! body a whole step of gravity into the floor).

use nalgebra::{Matrix3, Vector3};

use super::PbmpmCpu;
use super::constraint::snow_response;
use super::integrate;
pub use super::state::SolveReport;
use super::state::StepReport;
use super::transfer;
use crate::sim::cpu::g2p::{sand_return, sand_secant, visco_return, visco_secant};
use crate::sim::cpu::grid::Stencil;
use crate::sim::cpu::grid_update::constrain_node;
use crate::sim::cpu::p2g::viscous_stress;
use crate::sim::cpu::svd::signed_svd;
use crate::sim::material::{MaterialKind, SnowMaterial};
use crate::sim::params::{GridSpec, SolverParams};

/// How a Newton–PCG step solves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonSettings {
    /// Most conjugate-gradient iterations.
    pub iterations: u32,
    /// Levels of the multilevel preconditioner: the grid and `levels − 1` coarser ones, each
    /// twice the cell of the one below. 1 is a Jacobi preconditioner.
    pub levels: u32,
    /// The solve stops once the preconditioned residual norm falls below this fraction of its
    /// value at the prediction; above 0, a prediction in balance to [`RESIDUAL_FLOOR`] takes no
    /// iteration.
    pub tolerance: f64,
    /// Newton steps: each takes the stress, its secant moduli and the residual again at what the
    /// last found and solves for the correction; the tolerance stays relative to the first
    /// residual, so a step already within it adds no CG iteration.
    pub steps: u32,
}

impl Default for NewtonSettings {
    fn default() -> Self {
        Self { iterations: 20, levels: 4, tolerance: 1e-3, steps: 1 }
    }
}

/// m/s: a step whose residual at the prediction, as an rms speed, is below this is in balance to
/// rounding (a body in free fall), and its relative residual would measure rounding alone; it
/// reports 0 ([`SolveReport::mass_residual`]; `NEWTON_RESIDUAL_FLOOR` in `newton.wgsl`).
pub const RESIDUAL_FLOOR: f64 = 1e-3;

impl NewtonSettings {
    /// The GPU's solve for PB-MPM `settings` among `params`'s materials: at most its `iterations`
    /// CG iterations a Newton step, its `tolerance`, its Newton steps
    /// ([`crate::sim::pbmpm::PbmpmSettings::newton_steps_for`]), the GPU's levels.
    pub fn of(settings: &crate::sim::pbmpm::PbmpmSettings, params: &SolverParams) -> Self {
        let steps = settings.newton_steps_for(params);
        Self { iterations: settings.iterations, tolerance: settings.tolerance, steps, ..Self::default() }
    }
}

/// One particle's 27 nodes: flat index, weight, gradient `∇w = (4/h²) w (x_i − x_p)`.
type ParticleStencil = [(usize, f64, Vector3<f64>); 27];

/// The constant `B` of [`level_ratio`]: the largest ratio of a node's Gershgorin bound of
/// `M + dt²K`'s row to its mass, less 1, over `dt² (λ₀ + 2μ₀)/(ρ₀ h²)`, measured over the nodes of
/// a filled body of 8 particles per cell (27.9–29.4 in `tests/pbmpm_newton.rs`'s bar).
pub const LEVEL_BOUND: f64 = 28.0;

/// Level `l`'s diagonal over its lumped masses: `1 + B dt² (λ₀ + 2μ₀)/(ρ₀ h²) / 4^l`
/// ([`LEVEL_BOUND`]) at the largest `(λ₀ + 2μ₀)/ρ₀` of the materials present; a cell `2^l` times
/// larger is `4^l` times softer. The unhardened moduli: a preconditioner need only be symmetric
/// and positive for CG to converge, and one ratio per level is what keeps momentum (see
/// `Level`); hardened snow converges in more iterations.
pub fn level_ratio(params: &SolverParams, dt: f64, h: f64, l: u32) -> f64 {
    let stiffness = LEVEL_BOUND * dt * dt * params.fastest_wave_squared() / (h * h);
    1.0 + stiffness / 4f64.powi(l as i32)
}

/// The grid and particle data a step's solve works with.
struct System {
    stencils: Vec<ParticleStencil>,
    mass: Vec<f64>,
    /// Per node and axis: held by a wall or collider for the solve.
    fixed: Vec<[bool; 3]>,
    /// Per particle: `dt² V⁰ μ`, `dt² V⁰ λ` of the operator ([`operator_moduli`]).
    moduli: Vec<(f64, f64)>,
    /// The materials, for [`level_ratio`].
    params: SolverParams,
    /// The step, seconds.
    dt: f64,
}

fn stencils(spec: &GridSpec, s: &PbmpmCpu) -> Vec<ParticleStencil> {
    let h2 = spec.cell_size * spec.cell_size;
    s.particles
        .iter()
        .map(|p| {
            let mut out = [(0, 0.0, Vector3::zeros()); 27];
            for (slot, (i, w, d)) in out.iter_mut().zip(Stencil::new(spec, &p.position).nodes(spec)) {
                *slot = (i, w, (4.0 / h2) * w * d);
            }
            out
        })
        .collect()
}

impl System {
    /// Each particle's gathered displacement gradient `Σ_i u_i ∇w_ipᵀ`.
    fn gradient(&self, p: usize, u: &[Vector3<f64>]) -> Matrix3<f64> {
        self.stencils[p].iter().map(|(i, _, g)| u[*i] * g.transpose()).sum()
    }

    /// Zeroes the components the walls and colliders hold.
    fn mask(&self, v: &mut [Vector3<f64>]) {
        for (x, fixed) in v.iter_mut().zip(&self.fixed) {
            for a in 0..3 {
                if fixed[a] {
                    x[a] = 0.0;
                }
            }
        }
    }

    /// `v` split into its free components (the held ones zeroed) and its held ones (the free
    /// ones zeroed).
    fn split(&self, mut v: Vec<Vector3<f64>>) -> (Vec<Vector3<f64>>, Vec<Vector3<f64>>) {
        let held = v.iter().zip(&self.fixed);
        let held = held.map(|(x, fixed)| Vector3::from_fn(|a, _| if fixed[a] { x[a] } else { 0.0 })).collect();
        self.mask(&mut v);
        (v, held)
    }

    /// `A x = M x + dt² K x`, not masked: along the held axes of an `x` that is zero there, this is
    /// `dt² K x`, the change of the force the walls hold.
    fn apply(&self, x: &[Vector3<f64>]) -> Vec<Vector3<f64>> {
        let mut out: Vec<Vector3<f64>> = x.iter().zip(&self.mass).map(|(v, m)| *v * *m).collect();
        for (p, &(mu, lambda)) in self.moduli.iter().enumerate() {
            let dd = self.gradient(p, x);
            let stress = mu * (dd + dd.transpose()) + Matrix3::identity() * (lambda * dd.trace());
            for (i, _, g) in &self.stencils[p] {
                out[*i] += stress * g;
            }
        }
        out
    }
}

/// `dt² f(u)`: the elastic forces at node displacements `u`, over the step, kg·m; and each
/// particle's share of the operator there ([`operator_moduli`]), from the same return
/// ([`yielded`]).
fn forces(s: &PbmpmCpu, sys: &System, u: &[Vector3<f64>]) -> (Vec<Vector3<f64>>, Vec<(f64, f64)>) {
    let dt = sys.dt;
    let mut out = vec![Vector3::zeros(); u.len()];
    let mut moduli = Vec::with_capacity(s.particles.len());
    for (k, p) in s.particles.iter().enumerate() {
        let gradient = sys.gradient(k, u);
        let material = s.params.material_of(p.material);
        let (trial, shear, bulk) =
            yielded(material, &((Matrix3::identity() + gradient) * p.deformation), p.plastic_jacobian, dt);
        moduli.push(operator_moduli(material, p.volume, p.plastic_jacobian, dt, shear, bulk));
        // A liquid's viscous stress at the velocity gradient of the Newton step's point (the
        // displacement's over dt); the operator carries its linearisation (operator_moduli).
        let tau = snow_response(material, &trial, p.plastic_jacobian, p.damage).stress * trial.transpose()
            + viscous_stress(material, &(gradient / dt), trial.determinant());
        for (i, _, g) in &sys.stencils[k] {
            out[*i] -= dt * dt * p.volume * (tau * g);
        }
    }
    (out, moduli)
}

/// A yielding particle's trial deformation returned inside the solve, and the secant scales of
/// its shear and bulk moduli there, for a step of `dt` seconds: sand onto its cone
/// ([`crate::sim::cpu::g2p::sand_return`], [`crate::sim::cpu::g2p::sand_secant`]), a
/// visco-plastic fluid toward its yield surface ([`crate::sim::cpu::g2p::visco_return`],
/// [`crate::sim::cpu::g2p::visco_secant`]); other kinds keep the trial and their moduli.
fn yielded(material: &SnowMaterial, trial: &Matrix3<f64>, jp: f64, dt: f64) -> (Matrix3<f64>, f64, f64) {
    if !material.kind.yields_in_solve() {
        return (*trial, 1.0, 1.0);
    }
    let (u, sigma, v) = signed_svd(trial);
    let (returned, shear, bulk) = if material.kind == MaterialKind::Sand {
        let (shear, bulk) = sand_secant(material, sigma, jp);
        (sand_return(material, sigma, jp).0, shear, bulk)
    } else {
        (visco_return(material, sigma, dt), visco_secant(material, sigma, dt), 1.0)
    };
    (trial + u * Matrix3::from_diagonal(&(returned - sigma)) * v.transpose(), shear, bulk)
}

/// The moduli of a particle's share of the operator, `dt² V⁰ (μ, λ)`: its hardened moduli at
/// the secant scales `shear` and `bulk` ([`yielded`]), and for a liquid with a viscosity η the
/// viscous stress's own, `2η/dt sym(δD) − (2η/3dt) tr(δD) I` (its Kirchhoff stress
/// `J 2η dev sym(C)` with `C = D/dt`, at J = 1: a weakly compressible liquid's J stays within
/// 1e-3 of it, and the residual keeps the exact stress). Without it the viscosity acts
/// explicitly, on the right-hand side alone, which is stable only for steps under the explicit
/// limit ρ₀h²/(6η) (2e-4 s for η = 50 Pa·s at h = 1/128 m, against PB-MPM's steps of about
/// 4 ms). `3λ + 2μ` keeps its sign, so the operator stays positive definite.
fn operator_moduli(material: &SnowMaterial, volume: f64, jp: f64, dt: f64, shear: f64, bulk: f64) -> (f64, f64) {
    let hc = material.hardening_factor(jp);
    let (mut mu, mut lambda) = (material.mu0() * hc * shear, material.lambda0() * hc * bulk);
    if material.kind == MaterialKind::Liquid && material.viscosity > 0.0 {
        mu += material.viscosity / dt;
        lambda -= 2.0 * material.viscosity / (3.0 * dt);
    }
    (dt * dt * volume * mu, dt * dt * volume * lambda)
}

/// One level of the multilevel preconditioner: nodes every `2^l` grid nodes.
struct Level {
    /// Grid nodes per level node along each axis, `2^l`.
    factor: usize,
    /// The level's node counts along x, y, z.
    dims: [usize; 3],
    /// `1 / (c_l m_I)` per level node, 0 where it has no mass.
    inverse: Vec<f64>,
}

impl Level {
    /// Level `l` over `sys`'s grid: its lumped masses `m_I = Σ_i P_iI m_i`, scaled by one ratio
    /// `c_l` for the whole level ([`level_ratio`]). One ratio per level makes each level's `D_l`
    /// proportional to its masses, so the preconditioned residual carries no net momentum when the
    /// residual carries none, and CG keeps the momentum of the prediction at every iteration.
    fn new(spec: &GridSpec, sys: &System, l: u32) -> Self {
        let grid = node_dims(spec);
        let factor = 1usize << l;
        let dims = grid.map(|n| n / factor + 2);
        let mut level = Self { factor, dims, inverse: vec![0.0; dims[0] * dims[1] * dims[2]] };
        let mut mass = vec![0.0; level.inverse.len()];
        for (i, node) in nodes(grid).enumerate() {
            if sys.mass[i] > 0.0 {
                for (c, w) in level.parents(node) {
                    mass[c] += w * sys.mass[i];
                }
            }
        }
        let ratio = level_ratio(&sys.params, sys.dt, spec.cell_size, l);
        for (inv, m) in level.inverse.iter_mut().zip(&mass) {
            *inv = if *m > 0.0 { 1.0 / (ratio * m) } else { 0.0 };
        }
        level
    }

    /// The level nodes of grid node `n` and their trilinear weights.
    fn parents(&self, n: [usize; 3]) -> [(usize, f64); 8] {
        let f = self.factor;
        let axis = |a: usize| {
            let t = (n[a] % f) as f64 / f as f64;
            [(n[a] / f, 1.0 - t), (n[a] / f + 1, t)]
        };
        let (x, y, z) = (axis(0), axis(1), axis(2));
        let mut out = [(0usize, 0.0f64); 8];
        for (o, slot) in out.iter_mut().enumerate() {
            let (cx, wx) = x[o & 1];
            let (cy, wy) = y[(o >> 1) & 1];
            let (cz, wz) = z[o >> 2];
            *slot = (cx + self.dims[0] * (cy + self.dims[1] * cz), wx * wy * wz);
        }
        out
    }
}

/// The grid's node counts along x, y, z.
fn node_dims(spec: &GridSpec) -> [usize; 3] {
    let d = spec.node_dims();
    [d.x as usize, d.y as usize, d.z as usize]
}

/// The grid nodes `[i, j, k]` in flat-index order (x fastest, as [`GridSpec::node_index`]).
fn nodes(dims: [usize; 3]) -> impl Iterator<Item = [usize; 3]> {
    (0..dims[2]).flat_map(move |k| (0..dims[1]).flat_map(move |j| (0..dims[0]).map(move |i| [i, j, k])))
}

/// The additive multilevel preconditioner `z = Σ_l P_l D_l⁻¹ P_lᵀ r` ([`Level`]), masked.
fn precondition(spec: &GridSpec, sys: &System, levels: &[Level], r: &[Vector3<f64>]) -> Vec<Vector3<f64>> {
    let grid = node_dims(spec);
    let mut z = vec![Vector3::zeros(); r.len()];
    for level in levels {
        let mut coarse = vec![Vector3::zeros(); level.inverse.len()];
        for (i, node) in nodes(grid).enumerate() {
            if sys.mass[i] > 0.0 {
                for (c, w) in level.parents(node) {
                    coarse[c] += w * r[i];
                }
            }
        }
        for (c, inv) in coarse.iter_mut().zip(&level.inverse) {
            *c *= *inv;
        }
        for (i, node) in nodes(grid).enumerate() {
            if sys.mass[i] > 0.0 {
                for (c, w) in level.parents(node) {
                    z[i] += w * coarse[c];
                }
            }
        }
    }
    sys.mask(&mut z);
    z
}

fn dot(a: &[Vector3<f64>], b: &[Vector3<f64>]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.dot(y)).sum()
}

/// `rᵀM⁻¹r` over the nodes with mass.
fn mass_norm_squared(r: &[Vector3<f64>], mass: &[f64]) -> f64 {
    r.iter().zip(mass).filter(|(_, m)| **m > 0.0).map(|(r, m)| r.norm_squared() / m).sum()
}

/// One step of `dt` seconds solved by Newton–PCG: the prediction, the solve, then the twin's own
/// end of step ([`integrate::end_step`]). Returns the twin's step report and the solve's.
pub fn step(s: &mut PbmpmCpu, dt: f64, cfg: &NewtonSettings) -> (StepReport, SolveReport) {
    let kick = integrate::gravity_kick(s.last_dt, dt);
    integrate::begin_step(&s.params, dt, kick, &s.particles, &mut s.state);
    s.last_dt = dt;
    let spec = s.params.grid;
    transfer::p2g(&spec, &s.particles, &s.state, &mut s.grid);
    let colliders = s.colliders.as_ref().map(|c| (c, s.collider_blend));
    super::grid::grid_update(&s.params, dt, colliders, &mut s.grid);
    let predicted = s.grid.displacement.clone();

    let mut fixed = vec![[false; 3]; predicted.len()];
    for (idx, node) in nodes(node_dims(&spec)).enumerate() {
        if s.grid.mass[idx] <= 0.0 {
            continue;
        }
        let node = node.map(|n| n as u32);
        let v = predicted[idx] / dt;
        for a in 0..3 {
            // A component is held if the conditions change a nudge of it either way.
            fixed[idx][a] = [-1.0, 1.0].iter().any(|sign| {
                let nudged = v + Vector3::ith(a, *sign);
                (constrain_node(&s.params, node, idx, nudged, colliders)[a] - nudged[a]).abs() > 1e-9
            });
        }
    }

    let stencils = stencils(&spec, s);
    let mut sys = System { stencils, mass: s.grid.mass.clone(), fixed, moduli: Vec::new(), params: s.params, dt };
    let (x, held, report) = solve(s, &mut sys, &predicted, cfg);

    // What the walls' friction of the held force takes off the free axes (`slide`, v − plain)
    // moves a liquid's particles but does not strain them: the solve balanced the pressure without
    // it, and the divergence a node stopped by friction would leave, at a bulk modulus of 1e6 Pa,
    // became pressure that grew step by step until the water splashed (docs/pbmpm.md, "Friction
    // and liquids"). Solids keep the strain of the motion the friction leaves them, or a block
    // held by friction would creep.
    let mut slide = vec![Vector3::zeros(); s.grid.displacement.len()];
    for (idx, node) in nodes(node_dims(&spec)).enumerate() {
        if s.grid.mass[idx] > 0.0 {
            let node = node.map(|n| n as u32);
            let u = (predicted[idx] + x[idx]) / dt;
            let plain = constrain_node(&s.params, node, idx, u, colliders);
            let pressed = constrain_node(&s.params, node, idx, u + held[idx] / (s.grid.mass[idx] * dt), colliders);
            // The free axes take the friction of the held force; the held axes keep what the
            // conditions make of the solution alone, so a held force pulling a node off a wall
            // does not fling it off (a first-order force of an unconverged solve can be large).
            let v = Vector3::from_fn(|a, _| if sys.fixed[idx][a] { plain[a] } else { pressed[a] });
            s.grid.displacement[idx] = v * dt;
            slide[idx] = (v - plain) * dt;
        }
    }
    transfer::g2p(&spec, &s.grid, &s.particles, &mut s.state);
    for (p, state) in s.particles.iter().zip(s.state.iter_mut()) {
        if s.params.material_of(p.material).kind == MaterialKind::Liquid {
            state.affine -= transfer::gather(&spec, &slide, &p.position).1;
        }
    }
    let keep = s.settings.keep(dt);
    (integrate::end_step(&s.params, dt, keep, &mut s.particles, &s.state), report)
}

/// The Newton steps of a time step from the prediction `predicted`: returns the correction `x`
/// (zero along the held axes), the force the walls and colliders hold at `predicted + x`, and the
/// solve's report.
///
/// What the walls and colliders hold is the force's components along the held axes, which the
/// solve leaves out, carried to the solution to first order as CG goes. The end of the step hands
/// it to the grid's conditions, whose friction then acts on the normal force the stress carries,
/// not only on the node's own weight.
///
/// Each Newton step takes the stress (a yielding particle's returned, [`yielded`]) and the moduli
/// (secant ones where it yields, [`operator_moduli`]) at `predicted + x` and the residual there,
/// `r = dt² f − M x`, and adds the CG solution of `A δ = r`.
fn solve(
    s: &PbmpmCpu,
    sys: &mut System,
    predicted: &[Vector3<f64>],
    cfg: &NewtonSettings,
) -> (Vec<Vector3<f64>>, Vec<Vector3<f64>>, SolveReport) {
    let (spec, dt, n) = (s.params.grid, sys.dt, predicted.len());
    let mut x = vec![Vector3::zeros(); n];
    let mut held = vec![Vector3::zeros(); n];
    let mut report = SolveReport::default();
    let (mut r, mut rz) = (Vec::new(), 0.0);
    let (mut initial, mut initial_mass_norm, mut rounding) = (0.0, 0.0, false);
    // The levels depend on the masses and the materials alone, not on the Newton step's moduli.
    let levels: Vec<Level> = (0..cfg.levels).map(|l| Level::new(&spec, sys, l)).collect();
    for step in 0..cfg.steps.max(1) {
        let u: Vec<Vector3<f64>> = predicted.iter().zip(&x).map(|(a, b)| a + b).collect();
        let (mut f, moduli) = forces(s, sys, &u);
        sys.moduli = moduli;
        for i in 0..n {
            f[i] -= x[i] * sys.mass[i];
        }
        (r, held) = sys.split(f);
        let mut z = precondition(&spec, sys, &levels, &r);
        let mut p = z.clone();
        rz = dot(&r, &z);
        if step == 0 {
            initial = rz.max(0.0).sqrt();
            initial_mass_norm = mass_norm_squared(&r, &sys.mass).sqrt();
            // A prediction in balance to rounding (RESIDUAL_FLOOR: free fall) reports no
            // residual, and under a tolerance needs no iteration.
            rounding = initial_mass_norm <= RESIDUAL_FLOOR * dt * sys.mass.iter().sum::<f64>().sqrt();
            report.initial_residual = initial;
        }
        let balanced = cfg.tolerance > 0.0 && rounding;
        let mut iterations = 0;
        while !balanced && iterations < cfg.iterations && rz > (cfg.tolerance * initial).powi(2) {
            let (ap, ap_held) = sys.split(sys.apply(&p));
            let alpha = rz / dot(&p, &ap);
            for i in 0..n {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
                // The held force at u* + x, to first order: what the walls hold changes by −dt²K x.
                held[i] -= alpha * ap_held[i];
            }
            z = precondition(&spec, sys, &levels, &r);
            let next = dot(&r, &z);
            let beta = next / rz;
            rz = next;
            for i in 0..n {
                p[i] = z[i] + beta * p[i];
            }
            iterations += 1;
        }
        report.iterations += iterations;
    }
    report.relative_residual = if initial > 0.0 { rz.max(0.0).sqrt() / initial } else { 0.0 };
    report.mass_residual = if rounding { 0.0 } else { mass_norm_squared(&r, &sys.mass).sqrt() / initial_mass_norm };
    (x, held, report)
}
