//! How stiff PB-MPM's snow looks at each grid resolution, on the f64 twin: an elastic column
//! settling under its weight and a fixed-free bar swinging in its first mode, at 16, 32 and 64
//! cells over their length, against the analytic answers (the table "Softer as the grid is
//! refined" in docs/pbmpm.md).
//!
//! `cargo run --release --example pbmpm_convergence -- [E] [SCHEDULE] [warm]`
//!
//! - `E`: Young's modulus, Pa (default 2.5e4).
//! - `SCHEDULE`: without it, the twin's own step (`PbmpmCpu::step`). With it, e.g. `3,2,1,0,0`, a
//!   step of smooth coarse corrections, one entry per iteration: level 0 is the usual
//!   projection, level l a correction on a grid of cell `2^l h` (see [`coarse_correction`]). This
//!   is a study of a method the integrator does not have, kept to reproduce the table.
//! - `warm`: with a schedule, each step starts from the last step's impulses.
//!
//! With `NEWTON=iterations,levels` in the environment, every step is instead the twin's
//! Newton–PCG step (`powder::sim::pbmpm::cpu::newton`) running exactly `iterations` CG
//! iterations (no tolerance) with a preconditioner of `levels` levels.
//!
//! Prints one line per case: the column's mean settlement over `ρgH²/(3(λ + 2μ))` and the bar's
//! period over `4L/√(E/ρ)` ("none" if it did not swing back through its mean, "diverged" if a
//! value stopped being finite).

use glam::{DVec3, UVec3, Vec3};
use nalgebra::{Matrix3, Vector3};
use powder::sim::cpu::CpuParticle;
use powder::sim::fixed_point::FixedPoint;
use powder::sim::material::SnowMaterial;
use powder::sim::params::{Boundary, BoundaryKind, GpuParticle, GridSpec, SolverParams};
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::pbmpm::cpu::newton::{self, NewtonSettings};
use powder::sim::pbmpm::cpu::{PbmpmCpu, constraint, grid, integrate, transfer};

const DT: f64 = 1.0 / 240.0;
const RHO: f64 = 400.0;
const G: f64 = 9.81;

/// Parameters on `cells` cells of edge `h`: elastic snow of modulus `e` (ν = 0.2, no hardening,
/// yield far away, no cracking), gravity −9.81 z, walls of `kind`.
fn params(cells: UVec3, h: f64, e: f64, kind: BoundaryKind) -> SolverParams {
    let mut material = SnowMaterial::default();
    (material.youngs_modulus, material.poisson_ratio, material.density) = (e, 0.2, RHO);
    (material.hardening, material.critical_compression, material.critical_stretch) = (0.0, 0.9, 10.0);
    material.tensile_strength = 0.0;
    SolverParams {
        grid: GridSpec { domain_min: DVec3::ZERO, cell_size: h, cells },
        material,
        emitter_materials: Default::default(),
        gravity: DVec3::new(0.0, 0.0, -G),
        dt: DT,
        cfl: 0.4,
        boundary: Boundary { kind, friction: 0.0 },
        max_speed: 50.0,
        fixed_point: FixedPoint::for_scene(RHO, h, 50.0),
    }
}

/// Eight particles per cell filling `[lo, hi)`, moving at `velocity(x)`.
fn block(lo: Vec3, hi: Vec3, h: f32, velocity: impl Fn(Vec3) -> Vec3) -> Vec<GpuParticle> {
    let s = 0.5 * h;
    let n = ((hi - lo) / s).round().as_uvec3();
    let mut out = Vec::new();
    for k in 0..n.z {
        for j in 0..n.y {
            for i in 0..n.x {
                let x = lo + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s;
                out.push(GpuParticle::new(x, velocity(x), RHO as f32 * s * s * s, s * s * s, 0));
            }
        }
    }
    out
}

/// The grid of level `l`: cells `2^l` times larger, as many as cover the domain.
fn level(p: &SolverParams, l: u32) -> SolverParams {
    let f = (1u32 << l) as f64;
    let mut p = *p;
    p.grid.cell_size *= f;
    p.grid.cells = (p.grid.cells.as_dvec3() / f).ceil().as_uvec3();
    p
}

/// The quadratic B-spline stencil of `x` on `spec`: (node index, weight).
fn stencil(spec: &GridSpec, x: &Vector3<f64>) -> Vec<(usize, f64)> {
    let o = spec.grid_origin();
    let xg = (x - Vector3::new(o.x, o.y, o.z)) / spec.cell_size;
    let mut axes = [[(0u32, 0.0); 3]; 3];
    for (a, axis) in axes.iter_mut().enumerate() {
        let base = (xg[a] - 0.5).floor();
        let f = xg[a] - base;
        let w = [0.5 * (1.5 - f).powi(2), 0.75 - (f - 1.0).powi(2), 0.5 * (f - 0.5).powi(2)];
        for (o, slot) in axis.iter_mut().enumerate() {
            *slot = (base as u32 + o as u32, w[o]);
        }
    }
    let mut out = Vec::with_capacity(27);
    for (k, wk) in axes[2] {
        for (j, wj) in axes[1] {
            for (i, wi) in axes[0] {
                out.push((spec.node_index(i, j, k), wi * wj * wk));
            }
        }
    }
    out
}

/// A study step: the grid rebuilt each iteration from the prediction and the impulses applied
/// so far, and the impulses updated by a projection (level 0) or a smooth coarse correction.
struct Study {
    schedule: Vec<u32>,
    warm: bool,
    kept: Vec<Matrix3<f64>>,
}

/// Scatters the prediction and the impulses, updates the grid and gathers `d`, `D`.
fn transfer_all(s: &mut PbmpmCpu, dt: f64, predicted: &[(Vector3<f64>, Matrix3<f64>)]) {
    let h = s.params.grid.cell_size;
    for ((p, st), (d, a)) in s.particles.iter().zip(s.state.iter_mut()).zip(predicted) {
        st.displacement = *d;
        st.affine = a - (4.0 / (h * h * p.mass)) * st.impulse;
    }
    transfer::p2g(&s.params.grid, &s.particles, &s.state, &mut s.grid);
    grid::grid_update(&s.params, dt, None, &mut s.grid);
    transfer::g2p(&s.params.grid, &s.grid, &s.particles, &mut s.state);
}

/// A coarse correction on grid `coarse`: each particle's step toward its target taken as if its
/// cell were the coarse one, averaged by mass over the coarse nodes and interpolated back, so
/// that only a smooth field of impulse changes.
fn coarse_correction(s: &mut PbmpmCpu, dt: f64, coarse: &SolverParams) {
    let n = coarse.grid.node_count() as usize;
    let (mut sum, mut mass) = (vec![Matrix3::zeros(); n], vec![0.0; n]);
    let material = s.params.material;
    for (p, st) in s.particles.iter().zip(&s.state) {
        let (target, response) = constraint::target_impulse(&material, dt, p, &st.affine);
        let step = constraint::impulse_step(&response, dt, coarse.grid.cell_size, 1.0, p, &(target - st.impulse));
        for (i, w) in stencil(&coarse.grid, &p.position) {
            sum[i] += w * p.mass * step;
            mass[i] += w * p.mass;
        }
    }
    for (p, st) in s.particles.iter().zip(s.state.iter_mut()) {
        for (i, w) in stencil(&coarse.grid, &p.position) {
            if mass[i] > 0.0 {
                st.impulse += w * sum[i] / mass[i];
            }
        }
    }
}

/// One study step of `dt` (the twin's begin and end, the study's iterations between).
fn study_step(s: &mut PbmpmCpu, dt: f64, study: &mut Study) {
    let kick = integrate::gravity_kick(s.last_dt, dt);
    let ratio = if s.last_dt > 0.0 { dt / s.last_dt } else { 0.0 };
    integrate::begin_step(&s.params, dt, kick, &s.particles, &mut s.state);
    s.last_dt = dt;
    let predicted: Vec<_> = s.state.iter().map(|st| (st.displacement, st.affine)).collect();
    study.kept.resize(s.state.len(), Matrix3::zeros());
    for (st, kept) in s.state.iter_mut().zip(&study.kept) {
        st.impulse = if study.warm { kept * (ratio * ratio) } else { Matrix3::zeros() };
    }
    let (h, relaxation, material) = (s.params.grid.cell_size, s.settings.relaxation, s.params.material);
    for &l in &study.schedule {
        transfer_all(s, dt, &predicted);
        if l == 0 {
            for (p, st) in s.particles.iter().zip(s.state.iter_mut()) {
                let (target, response) = constraint::target_impulse(&material, dt, p, &st.affine);
                st.impulse += constraint::impulse_step(&response, dt, h, relaxation, p, &(target - st.impulse));
            }
        } else {
            coarse_correction(s, dt, &level(&s.params, l));
        }
    }
    transfer_all(s, dt, &predicted);
    integrate::end_step(&s.params, dt, s.settings.keep(dt), &mut s.particles, &s.state);
    study.kept = s.state.iter().map(|st| st.impulse).collect();
}

/// A step of the twin, or of the study if there is one.
fn step(s: &mut PbmpmCpu, study: &mut Option<Study>) {
    if let Some(cfg) = newton_opt() {
        newton::step(s, DT, &cfg);
        return;
    }
    match study {
        Some(study) => study_step(s, DT, study),
        None => {
            s.step(DT);
        }
    }
}

/// Whether every particle's position is still finite.
fn finite(s: &PbmpmCpu) -> bool {
    s.particles.iter().all(|p: &CpuParticle| p.position.iter().all(|x| x.is_finite()))
}

/// The column (H = 0.5 m, `cells` cells high, 4 cells across between slip walls), released from
/// rest and stepped 300 times, velocities damped by 0.95 after each step (which leaves the state
/// it settles to unchanged): mean settlement over `ρgH²/(3(λ + 2μ))`.
fn column(cells: u32, e: f64, study: &mut Option<Study>) -> Option<f64> {
    let height = 0.5;
    let h = height / cells as f64;
    let p = params(UVec3::new(4, 4, cells + cells / 4), h, e, BoundaryKind::Slip);
    let modulus = p.material.lambda0() + 2.0 * p.material.mu0();
    let ps = block(Vec3::ZERO, Vec3::new(4.0 * h as f32, 4.0 * h as f32, height as f32), h as f32, |_| Vec3::ZERO);
    let mut s = PbmpmCpu::new(p, PbmpmSettings::default(), &ps).expect("solver");
    let mean_z = |s: &PbmpmCpu| s.particles.iter().map(|q| q.position.z).sum::<f64>() / s.particles.len() as f64;
    let z0 = mean_z(&s);
    for _ in 0..300 {
        step(&mut s, study);
        if !finite(&s) {
            return None;
        }
        for q in &mut s.particles {
            q.velocity *= 0.95;
            q.affine *= 0.95;
        }
    }
    Some((z0 - mean_z(&s)) / (RHO * G * height * height / (3.0 * modulus)))
}

/// The bar (L = 0.5 m along x from a sticky wall, a square section of L/8, no gravity), released
/// in its first mode at 1 % of the wave speed, stepped for three periods: the period from the
/// tip's downward crossings of its mean, over `4L/√(E/ρ)`. `Some(NAN)`: no period.
fn bar(cells: u32, e: f64, study: &mut Option<Study>) -> Option<f64> {
    let len = 0.5;
    let h = len / cells as f64;
    let (across, margin) = (cells / 8, 4);
    let dims = UVec3::new(cells + margin, across + 2 * margin, across + 2 * margin);
    let mut p = params(dims, h, e, BoundaryKind::Sticky);
    p.gravity = DVec3::ZERO;
    let c = (e / RHO).sqrt();
    let period = 4.0 * len / c;
    let lo = Vec3::new(0.0, (margin as f64 * h) as f32, (margin as f64 * h) as f32);
    let hi = lo + Vec3::new(len as f32, (across as f64 * h) as f32, (across as f64 * h) as f32);
    let v0 = 0.01 * c;
    let k = std::f64::consts::PI / (2.0 * len);
    let ps = block(lo, hi, h as f32, |x| Vec3::new((v0 * (k * x.x as f64).sin()) as f32, 0.0, 0.0));
    let mut s = PbmpmCpu::new(p, PbmpmSettings::default(), &ps).expect("solver");
    let tip: Vec<usize> = (0..ps.len()).filter(|&i| ps[i].position[0] as f64 > len - 0.5 * h).collect();
    let tip_x = |s: &PbmpmCpu| tip.iter().map(|&i| s.particles[i].position.x).sum::<f64>() / tip.len() as f64;
    let x0 = tip_x(&s);
    let mut series = Vec::new();
    for _ in 0..(3.0 * period / DT).ceil() as usize {
        step(&mut s, study);
        if !finite(&s) {
            return None;
        }
        series.push(tip_x(&s) - x0);
    }
    let mean = series.iter().sum::<f64>() / series.len() as f64;
    let crossings: Vec<f64> = (1..series.len())
        .filter_map(|i| {
            let (a, b) = (series[i - 1] - mean, series[i] - mean);
            (a > 0.0 && b <= 0.0).then(|| (i as f64 + a / (a - b)) * DT)
        })
        .collect();
    if crossings.len() < 2 {
        return Some(f64::NAN);
    }
    Some((crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64 / period)
}

/// A ratio as printed: three decimals, "none" for no period, "diverged" for a non-finite state.
fn show(v: Option<f64>) -> String {
    match v {
        None => "diverged".into(),
        Some(x) if x.is_nan() => "none".into(),
        Some(x) => format!("{x:.3}"),
    }
}

/// The Newton–PCG settings the environment asks for (`NEWTON=iterations,levels`), if any.
fn newton_opt() -> Option<NewtonSettings> {
    let v = std::env::var("NEWTON").ok()?;
    let f: Vec<u32> = v.split(',').map(|x| x.parse().expect("NEWTON=iterations,levels")).collect();
    Some(NewtonSettings { iterations: f[0], levels: f[1], tolerance: 0.0, ..NewtonSettings::default() })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let e: f64 = args.first().map_or(2.5e4, |a| a.parse().expect("E, Pa"));
    let schedule: Option<Vec<u32>> =
        args.get(1).map(|a| a.split(',').map(|l| l.parse().expect("levels like 3,2,1,0,0")).collect());
    let warm = args.iter().any(|a| a == "warm");
    println!("E = {e:e} Pa, {}", schedule.as_ref().map_or("the twin's step".into(), |s| format!("study {s:?}")));
    for cells in [16, 32, 64] {
        let study = || schedule.clone().map(|schedule| Study { schedule, warm, kept: Vec::new() });
        let col = column(cells, e, &mut study());
        let period = bar(cells, e, &mut study());
        println!("{cells} cells: column {} × analytic, bar period {} × analytic", show(col), show(period));
    }
}
