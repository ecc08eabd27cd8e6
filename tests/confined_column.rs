//! An elastic snow column between `slip` walls settles onto the confined-compression solution and
//! stays there (lavapipe, real dispatches, the solver's stable dt).
//!
//! Analytic reference. A column of height H = 0.5 m fills the domain across, so the slip side walls
//! hold it laterally and it deforms in 1-D: F = diag(1, 1, s(Z)) for the reference height Z. The
//! fixed-corotated model then gives the first Piola stress P_zz = τ_zz / s = (λ + 2μ)(s − 1) exactly
//! (τ_zz = 2μ(s − 1)s + λ(s − 1)s), so equilibrium in the reference frame, dP_zz/dZ = ρ₀g, makes
//! the strain s − 1 = −ρ₀g(H − Z)/(λ + 2μ) exactly: there is no nonlinear correction to the
//! small-strain answer, although the bottom strain is 1.8 % (3.5 % at the dynamic peak). The
//! centre of mass drops by δ = ρ₀gH²/(3(λ + 2μ)) = 2.943 mm. Released from rest, the column
//! oscillates about that between 0 and 2δ.
//!
//! The time average is taken with a Hann window (weights sin²(πt/T) over the averaged span): over
//! six periods or more it passes at most 2e-3 of the oscillation's amplitude δ, where a plain mean
//! over a span that is not a whole number of periods passes up to 1/(2π·periods) of it.

mod common;

use glam::{UVec3, Vec3};
use powder::sim::Solver;
use powder::sim::params::BoundaryKind;

const HEIGHT: f64 = 0.5;
const G: f64 = 9.81;
/// Periods of the fundamental (4H/c) simulated; each half of the run holds six.
const PERIODS: f64 = 12.0;
/// Substeps between readbacks: 20 or more samples per period at both resolutions.
const SAMPLE: u32 = 8;

/// Mean settlement of the centre of mass over the whole run and over its two halves, as fractions
/// of δ (Hann-weighted, see the module comment).
struct Settlement {
    whole: f64,
    first_half: f64,
    second_half: f64,
}

fn hann_mean(samples: &[f64]) -> f64 {
    let n = samples.len() as f64;
    let (sum, weight) = samples.iter().enumerate().fold((0.0, 0.0), |(s, w), (i, x)| {
        let wi = (std::f64::consts::PI * (i as f64 + 0.5) / n).sin().powi(2);
        (s + wi * x, w + wi)
    });
    sum / weight
}

/// The column with `cells` cells over its height: 2 × 2 cells across (8 particles a cell), E = 1e5,
/// ν = 0.2, ρ = 400, no hardening and yield limits far out of reach, slip walls without friction.
fn settle(cells: u32) -> Settlement {
    let gpu = common::gpu();
    let h = HEIGHT / cells as f64;
    let mut params = common::params(1, h, 1e-4);
    params.grid.cells = UVec3::new(2, 2, cells + cells / 4);
    params.boundary.kind = BoundaryKind::Slip;
    let m = &mut params.material;
    (m.youngs_modulus, m.poisson_ratio, m.density) = (1e5, 0.2, 400.0);
    (m.hardening, m.critical_compression, m.critical_stretch) = (0.0, 0.5, 0.5);
    let stiffness = m.lambda0() + 2.0 * m.mu0();
    let delta = m.density * G * HEIGHT * HEIGHT / (3.0 * stiffness);
    let period = 4.0 * HEIGHT / (stiffness / m.density).sqrt();
    let top = Vec3::new(2.0 * h as f32, 2.0 * h as f32, HEIGHT as f32);
    let ps = common::block(Vec3::ZERO, top, h as f32, 400.0, |_| Vec3::ZERO);
    let mut solver = Solver::new(&gpu, params, &ps).expect("solver");
    let (dt, _) = solver.stable_dt(&gpu, 0.4).expect("stats");
    solver.set_dt(&gpu, dt);
    let z0 = common::mean(&ps, |p| p.position[2] as f64);
    let samples = (PERIODS * period / dt / SAMPLE as f64).round() as usize;
    let mut drop = Vec::with_capacity(samples);
    for _ in 0..samples {
        solver.step(&gpu, SAMPLE);
        let out = solver.read_particles(&gpu).expect("particles");
        drop.push((z0 - common::mean(&out, |p| p.position[2] as f64)) / delta);
    }
    let stats = solver.stats(&gpu).expect("stats");
    assert_eq!((stats.overflow_count, stats.nonfinite_count), (0, 0));
    assert_eq!((stats.min_plastic_jacobian, stats.max_plastic_jacobian), (1.0, 1.0), "the column yielded");
    let half = samples / 2;
    let s = Settlement {
        whole: hann_mean(&drop),
        first_half: hann_mean(&drop[..half]),
        second_half: hann_mean(&drop[half..]),
    };
    eprintln!(
        "{cells} cells over H: dt {dt:.3e} s, {samples} samples; settlement {:.4}δ (halves {:.4}δ, {:.4}δ), δ = {delta:.4e} m",
        s.whole, s.first_half, s.second_half
    );
    s
}

#[test]
fn confined_column_settles_by_rho_g_h2_over_3m_and_does_not_creep() {
    let coarse = settle(16);
    let fine = settle(32);
    let (e16, e32) = ((coarse.whole - 1.0).abs(), (fine.whole - 1.0).abs());
    // Acceptance: within 2 % at 32 cells over the height (measured +1.56 %, +3.07 % at 16 cells: the
    // nodes past the floor stop instead of mirroring the snow, so the last layer is held over less
    // than its whole stencil and over-compresses; an error of a fixed number of cells, first order).
    assert!(e32 <= 0.02, "settlement {}δ at 32 cells", fine.whole);
    // Refining the grid reduces the error, at first order: at most 3/4 of the coarse one.
    assert!(e32 < 0.75 * e16, "error {e32} at 32 cells against {e16} at 16");
    // No creep: the two halves of each run agree within 0.5 % of δ (measured ≤ 0.05 %). With F
    // rebuilt from its f32 SVD every substep the halves read 1.033δ, 1.045δ (16 cells) and 1.023δ,
    // 1.046δ (32 cells), the whole run +3.5 % at 32.
    for (cells, s) in [(16, &coarse), (32, &fine)] {
        let drift = (s.second_half - s.first_half).abs();
        assert!(drift <= 0.005, "{cells} cells: halves {}δ and {}δ", s.first_half, s.second_half);
    }
}
