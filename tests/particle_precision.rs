//! What storing particle fields in half precision (f16) would cost, measured on the CPU twin
//! (GPU-free): the evidence behind keeping every particle stream in f32 (docs/performance.md,
//! "Particle layout").
//!
//! A block of snow drops onto the floor, compacts and yields. The twin runs it in f64, then again
//! with the particles rounded after every substep as the GPU would store them: all fields in f32
//! (what powder does), or velocity and C in f16, or F in f16. Velocity and C are rebuilt from the
//! grid every substep, so their rounding does not accumulate; F and x are integrated, so theirs
//! does.

use glam::Vec3;
use half::f16;
use nalgebra::{Matrix3, Vector3};
use powder::sim::cpu::{CpuParticle, CpuSolver};

mod common;

const H: f64 = 1.0 / 32.0;
const DT: f64 = 2e-4;
const SUBSTEPS: u32 = 200;

fn f32_round(x: f64) -> f64 {
    x as f32 as f64
}

fn f16_round(x: f64) -> f64 {
    f16::from_f64(x).to_f64()
}

fn round_vector(v: &mut Vector3<f64>, r: fn(f64) -> f64) {
    v.iter_mut().for_each(|x| *x = r(*x));
}

fn round_matrix(m: &mut Matrix3<f64>, r: fn(f64) -> f64) {
    m.iter_mut().for_each(|x| *x = r(*x));
}

/// Rounds every field to f32, then velocity and C with `velocity`, F with `deformation`.
fn store(p: &mut CpuParticle, velocity: fn(f64) -> f64, deformation: fn(f64) -> f64) {
    round_vector(&mut p.position, f32_round);
    round_vector(&mut p.velocity, velocity);
    round_matrix(&mut p.affine, velocity);
    round_matrix(&mut p.deformation, deformation);
    p.plastic_jacobian = f32_round(p.plastic_jacobian);
}

/// The block after SUBSTEPS substeps, its particles stored after each as `round` says (or not).
fn run(round: Option<fn(&mut CpuParticle)>) -> Vec<CpuParticle> {
    let params = common::params(32, H, DT);
    let block = common::block(Vec3::new(0.375, 0.375, 0.05), Vec3::new(0.625, 0.625, 0.3), H as f32, 400.0, |_| {
        Vec3::new(0.5, 0.0, -2.0)
    });
    let mut twin = CpuSolver::new(params, &block);
    for _ in 0..SUBSTEPS {
        twin.substep();
        if let Some(round) = round {
            twin.particles.iter_mut().for_each(round);
        }
    }
    twin.particles
}

/// Largest differences from the reference: position (in cells), F (max entry) and Jp.
fn errors(run: &[CpuParticle], reference: &[CpuParticle]) -> [f64; 3] {
    let mut e = [0.0f64; 3];
    for (p, r) in run.iter().zip(reference) {
        e[0] = e[0].max((p.position - r.position).amax() / H);
        e[1] = e[1].max((p.deformation - r.deformation).amax());
        e[2] = e[2].max((p.plastic_jacobian - r.plastic_jacobian).abs());
    }
    e
}

#[test]
fn half_precision_velocity_costs_little_and_half_precision_deformation_costs_much() {
    let reference = run(None);
    // The block compacted and yielded, so F and Jp carry history worth keeping.
    let jp_min = reference.iter().map(|p| p.plastic_jacobian).fold(f64::INFINITY, f64::min);
    assert!(jp_min < 0.999, "the block must yield in compression (min Jp {jp_min})");

    let all_f32 = errors(&run(Some(|p| store(p, f32_round, f32_round))), &reference);
    let velocity_f16 = errors(&run(Some(|p| store(p, f16_round, f32_round))), &reference);
    let deformation_f16 = errors(&run(Some(|p| store(p, f32_round, f16_round))), &reference);
    for (name, e) in [("all f32", all_f32), ("v, C in f16", velocity_f16), ("F in f16", deformation_f16)] {
        eprintln!("{name:12} max |Δx| {:.2e} cells, max |ΔF| {:.2e}, max |ΔJp| {:.2e}", e[0], e[1], e[2]);
    }

    // f16 rounds to 2⁻¹¹ ≈ 4.9e-4 relative. A velocity off by that much for every one of the 200
    // substeps, at the block's ~2.5 m/s, moves a particle at most 200 · 2e-4 s · 2.5 m/s · 4.9e-4
    // = 4.9e-5 m = 1.6e-3 cells if nothing amplified it. Allow 10× that for the grid transfers.
    assert!(velocity_f16[0] < 1.6e-2, "f16 velocity and C moved particles {:.2e} cells", velocity_f16[0]);
    // F is integrated: its f16 rounding (4.9e-4 on entries near 1) is as large as a hundred
    // substeps' elastic increments and accumulates; past θs = 7.5e-3 that is what plasticity
    // keeps. It must show up well above the f32 run's error and the f16 velocity's.
    assert!(deformation_f16[1] > 10.0 * velocity_f16[1].max(all_f32[1]), "F in f16: {deformation_f16:?}");
    assert!(deformation_f16[1] > 1e-4, "F in f16 must lose more than 1e-4: {deformation_f16:?}");
}
