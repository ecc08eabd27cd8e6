//! A snow column released at rest on the floor settles onto its elastic equilibrium under its own
//! weight (lavapipe, real dispatches, dt at the stable step).
//!
//! Analytic reference: a column of height H, density ρ, Young's modulus E on a frictionless floor
//! with free sides has the exact linear-elastic solution σ_zz = −ρg(H − z), σ_xx = σ_yy = 0, so
//! u_z(z) = −ρg(Hz − z²/2)/E and the mean height drops by δ = ρgH²/(3E) (the top by 1.5δ). Released
//! from rest it oscillates about that equilibrium between 0 and 2δ (fundamental period 4H/√(E/ρ));
//! the kinetic energy can never exceed what the fall to equilibrium releases, M g δ − ½ M g δ = ½ M g δ
//! (all the potential energy relative to the equilibrium is a non-negative quadratic form).

mod common;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::params::BoundaryKind;

const H_CELL: f64 = 1.0 / 32.0;
const HEIGHT: f64 = 0.25;

struct Settling {
    /// δ = ρgH²/(3E), m.
    delta: f64,
    /// ½ M g δ, J.
    energy: f64,
    /// Substeps per fundamental period 4H/√(E/ρ).
    period: usize,
    /// Mean height minus its initial value, and kinetic energy, every `SAMPLE` substeps.
    dz: Vec<f64>,
    ke: Vec<f64>,
    /// Lowest particle z over the run, m.
    z_min: f64,
}

const SAMPLE: usize = 2;
const PERIODS: usize = 10;

/// A 0.125 × 0.125 × 0.25 m column (1024 particles, 8 per cell) on the floor of a 0.5 m domain,
/// stepped at the solver's stable dt (CFL 0.4) for 10 fundamental periods.
fn settle(kind: BoundaryKind) -> Settling {
    let gpu = common::gpu();
    let mut params = common::params(16, H_CELL, 1e-4);
    params.boundary.kind = kind;
    let lo = Vec3::new(0.1875, 0.1875, 0.0);
    let ps = common::block(lo, lo + Vec3::new(0.125, 0.125, HEIGHT as f32), H_CELL as f32, 400.0, |_| Vec3::ZERO);
    let mut solver = Solver::new(&gpu, params, &ps).expect("solver");
    let (dt, _) = solver.stable_dt(&gpu, 0.4).expect("stats");
    solver.set_dt(&gpu, dt);
    let m = &params.material;
    let total_mass: f64 = ps.iter().map(|p| p.mass as f64).sum();
    let delta = m.density * 9.81 * HEIGHT * HEIGHT / (3.0 * m.youngs_modulus);
    let period = (4.0 * HEIGHT / (m.youngs_modulus / m.density).sqrt() / dt).round() as usize;
    let z0 = common::mean(&ps, |p| p.position[2] as f64);
    let mut s =
        Settling { delta, energy: 0.5 * total_mass * 9.81 * delta, period, dz: vec![], ke: vec![], z_min: f64::MAX };
    for _ in 0..PERIODS * period / SAMPLE {
        solver.step(&gpu, SAMPLE as u32);
        let out = solver.read_particles(&gpu).expect("particles");
        for p in &out {
            assert!(common::particle_is_finite(p), "{kind:?}: non-finite particle {p:?}");
            assert!(common::inside_domain(&params, p), "{kind:?}: particle left the domain: {p:?}");
            s.z_min = s.z_min.min(p.position[2] as f64);
        }
        s.dz.push(common::mean(&out, |p| p.position[2] as f64) - z0);
        s.ke.push(common::kinetic_energy(&out));
    }
    let stats = solver.stats(&gpu).expect("stats");
    assert_eq!((stats.overflow_count, stats.nonfinite_count), (0, 0));
    // The column stays elastic: its bottom strain ρgH/E ≈ 0.7 % (1.4 % at the dynamic peak) is
    // below θc = 2.5 %, so no particle may have yielded.
    assert_eq!((stats.min_plastic_jacobian, stats.max_plastic_jacobian), (1.0, 1.0));
    eprintln!("{kind:?}: dt {dt:.3e} s, period {period} substeps, δ = {delta:.3e} m, ½Mgδ = {:.3e} J", s.energy);
    s
}

/// Checks shared by both walls; returns the per-period maxima of the kinetic energy.
fn common_checks(kind: BoundaryKind, s: &Settling) -> Vec<f64> {
    // No creep through the floor: the lowest layer starts at h/4 = 7.8 mm and may only compress by
    // the bulk strain (≤ 1.4 % of that at the dynamic peak); a leaking floor would let it reach 0.
    let bottom = H_CELL / 4.0;
    assert!(s.z_min >= 0.9 * bottom, "{kind:?}: a particle sank to z = {}", s.z_min);
    // The mean height never goes up (the column starts unstressed) nor down by more than the
    // dynamic peak 2δ; 25 % margin for the discretisation (8 cells tall). Measured: 2.1δ.
    let (lowest, highest) = s.dz.iter().fold((0.0f64, f64::MIN), |(l, h), &z| (l.min(z), h.max(z)));
    eprintln!("{kind:?}: mean-height change in [{lowest:.3e}, {highest:.3e}] m (2δ = {:.3e})", 2.0 * s.delta);
    assert!(lowest >= -2.5 * s.delta && highest <= 0.25 * s.delta, "{kind:?}: [{lowest}, {highest}]");
    // Kinetic energy: bounded by ½ M g δ (same 25 % margin; measured 1.04 ½Mgδ, in line with the
    // discrete column being ~8 % softer, see below), and decaying: the largest value in each
    // period falls period after period (MLS-MPM's transfers are only slightly dissipative, so slowly:
    // measured −16 % (frictionless) and −23 % (sticky) over 10 periods; asserted: at least −10 %).
    let per = s.period / SAMPLE;
    let maxima: Vec<f64> =
        s.ke.chunks(per).filter(|c| c.len() == per).map(|c| c.iter().copied().fold(0.0, f64::max)).collect();
    let shown: Vec<String> = maxima.iter().map(|e| format!("{e:.3e}")).collect();
    eprintln!("{kind:?}: kinetic-energy maxima per period {shown:?}");
    assert!(maxima[0] <= 1.25 * s.energy, "{kind:?}: kinetic energy {} > ½Mgδ = {}", maxima[0], s.energy);
    assert!(maxima[0] > 0.5 * s.energy, "{kind:?}: the column barely moved: {}", maxima[0]);
    for w in maxima.windows(2) {
        assert!(w[1] < w[0], "{kind:?}: kinetic energy grew from one period to the next: {maxima:?}");
    }
    maxima
}

#[test]
fn column_on_a_frictionless_floor_settles_to_the_elastic_solution() {
    let s = settle(BoundaryKind::Separate);
    let maxima = common_checks(BoundaryKind::Separate, &s);
    assert!(*maxima.last().unwrap() < 0.9 * maxima[0], "{maxima:?}");
    // The oscillation is centred on the analytic equilibrium −δ: the mean over the last 5 whole
    // periods (the oscillation averages out to within amplitude/period-count). Measured −1.076δ;
    // 15 % allowed for the discretisation of an 8-cell column and its one-cell floor contact layer.
    let last = &s.dz[s.dz.len() - 5 * (s.period / SAMPLE)..];
    let centre = last.iter().sum::<f64>() / last.len() as f64;
    eprintln!("Separate: mean height change over the last 5 periods {centre:.4e} m vs −δ = {:.4e}", -s.delta);
    assert!((centre + s.delta).abs() <= 0.15 * s.delta, "equilibrium {centre} vs {}", -s.delta);
}

#[test]
fn column_on_a_sticky_floor_settles() {
    let s = settle(BoundaryKind::Sticky);
    let maxima = common_checks(BoundaryKind::Sticky, &s);
    assert!(*maxima.last().unwrap() < 0.9 * maxima[0], "{maxima:?}");
    // The sticky floor holds the base from spreading (ν = 0.2), which stiffens the bottom a little;
    // the analytic δ no longer holds exactly, but the drop stays of its order. Measured: 1.06δ
    // (the frictionless column measures 1.08δ: the 8-cell column is ~7 % softer than the continuum,
    // and the held base takes back a little of that). Bounds: [0.5δ, 1.15δ].
    let last = &s.dz[s.dz.len() - 5 * (s.period / SAMPLE)..];
    let centre = last.iter().sum::<f64>() / last.len() as f64;
    eprintln!("Sticky: mean height change over the last 5 periods {centre:.4e} m vs −δ = {:.4e}", -s.delta);
    assert!(centre >= -1.15 * s.delta && centre <= -0.5 * s.delta, "equilibrium {centre} vs {}", -s.delta);
}
