//! Sand under PB-MPM's Newton–PCG solve, whose stress is returned onto the Drucker–Prager cone
//! inside the solve over several Newton steps a time step (`pbmpm.newton_steps`): a column of dry
//! sand collapses and comes to rest as under the explicit integrator (f64 twins), and the GPU
//! (lavapipe) steps yielding sand as the twin does.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::{UVec3, Vec3};
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::params::{Boundary, BoundaryKind, GpuParticle, SolverParams};
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::presets::preset_by_id;

/// Cell size, m.
const H: f64 = 1.0 / 64.0;
/// Height of the rough floor, m: two cells above the domain's.
const FLOOR: f64 = 2.0 * H;
/// The column's side, m (a square column: aspect ratio 1).
const SIDE: f32 = 0.1;

/// `tests/sand.rs`'s quasi-2D channel (two cells wide, side walls without friction, a sticky floor)
/// at h = 1/64 m, with a square column of dry sand against its x = 0 wall.
fn channel() -> (SolverParams, Vec<GpuParticle>) {
    let sand = preset_by_id("dry_sand").expect("dry sand").material;
    let mut params = common::params(1, H, 1e-4);
    params.grid.cells = UVec3::new((0.5 / H) as u32, 2, ((SIDE as f64 + 0.02) / H).ceil() as u32 + 2);
    params.material = sand;
    params.boundary = Boundary { kind: BoundaryKind::Slip, friction: 0.0 };
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(sand.density, H, params.max_speed);
    let (lo, hi) = (Vec3::new(0.0, 0.0, FLOOR as f32), Vec3::new(SIDE, (2.0 * H) as f32, FLOOR as f32 + SIDE));
    (params, common::block(lo, hi, H as f32, sand.density as f32, |_| Vec3::ZERO))
}

/// The runout ΔL/L₀ of a deposit (its front, the 99.5th percentile of x, as in `tests/sand.rs`)
/// and its kinetic energy per kilogram, J/kg.
fn deposit(particles: &[CpuParticle]) -> (f64, f64) {
    let mut xs: Vec<f64> = particles.iter().map(|p| p.position.x).collect();
    xs.sort_by(f64::total_cmp);
    let front = xs[(xs.len() as f64 * 0.995) as usize];
    let mass: f64 = particles.iter().map(|p| p.mass).sum();
    let kinetic: f64 = particles.iter().map(|p| 0.5 * p.mass * p.velocity.norm_squared()).sum();
    ((front - SIDE as f64) / SIDE as f64, kinetic / mass)
}

/// The column after `seconds` under PB-MPM's default settings with `newton_steps` Newton steps.
fn pbmpm_collapse(newton_steps: u32, seconds: f64) -> (f64, f64) {
    let (params, particles) = channel();
    let settings = PbmpmSettings { newton_steps, ..PbmpmSettings::default() };
    let mut s = PbmpmCpu::new(params, settings, &particles).expect("twin");
    s.colliders = Some(common::sticky_floor(&params, FLOOR));
    for _ in 0..(seconds * 60.0).round() as u32 {
        s.advance_frame(1.0 / 60.0);
    }
    deposit(&s.particles)
}

#[test]
fn a_column_of_sand_collapses_and_rests_under_pbmpm_as_under_the_explicit_integrator() {
    let seconds = 0.8;
    let (params, particles) = channel();
    let mut explicit = CpuSolver::new(params, &particles);
    explicit.colliders = Some(common::sticky_floor(&params, FLOOR));
    explicit.step_frame((seconds / params.dt).round() as u32);
    let (reference, _) = deposit(&explicit.particles);
    let (runout, kinetic) = pbmpm_collapse(PbmpmSettings::default().newton_steps, seconds);
    let (one_step, _) = pbmpm_collapse(1, seconds);
    eprintln!(
        "square column at h = 1/64 m after {seconds} s: runout ΔL/L0 explicit {reference:.3}, PB-MPM {runout:.3} \
         (kinetic energy {kinetic:.2e} J/kg), PB-MPM with one Newton step {one_step:.3}; Lube et al. 1.2"
    );
    // Both integrators fall short of Lube et al.'s 1.2a at this resolution (docs/materials.md,
    // "Sand"): measured, explicit 0.611 and PB-MPM 0.805. PB-MPM must run out at least as far as
    // the explicit integrator, less the 15 % the issue allows against experiment, and no further
    // than experiment plus those 15 %.
    let lube = 1.2;
    assert!(runout > 0.85 * reference && runout < 1.15 * lube, "PB-MPM {runout}, explicit {reference}, Lube {lube}");
    // At rest: 1e-5 J/kg is a speed of 4.5 mm/s, where the collapse ran at about 1 m/s.
    assert!(kinetic < 1e-5, "still moving: {kinetic} J/kg");
    // One Newton step leaves the sand elastic within each step and it barely flows.
    assert!(one_step < 0.5 * reference, "one Newton step ran out {one_step}");
}

#[test]
fn pbmpm_on_the_gpu_yields_sand_as_the_twin_does() {
    // The perturbed drop of dry sand (F = I ± 0.03 per particle, falling at 1 m/s onto the floor),
    // which takes many particles past the sides of the cone and some past its apex: 20 default
    // PB-MPM steps of 1/240 s on lavapipe and on the twin.
    let sand = preset_by_id("dry_sand").expect("dry sand").material;
    let (params, particles) = common::perturbed_drop(sand, 1e-3);
    let (steps, dt) = (20, 1.0 / 240.0);
    let settings = PbmpmSettings::default();
    let (out, twin) = common::pbmpm_gpu_and_twin(&common::gpu(), params, &particles, settings, steps, dt);
    let one = common::pbmpm_twin(params, &particles, PbmpmSettings { newton_steps: 1, ..settings }, steps, dt);
    let worst = common::worst_distance(&out, &twin);
    let jp = out.iter().zip(&twin).map(|(a, b)| (a.plastic_jacobian - b.plastic_jacobian).abs() as f64);
    let jp = jp.fold(0.0, f64::max);
    let apart = common::worst_distance(&one, &twin);
    eprintln!(
        "dry sand under PB-MPM: GPU against twin {worst:.2e} m, Jp {jp:.2e}; one Newton step against three {apart:.2e} m"
    );
    // The bound of the other GPU-against-twin PB-MPM tests (tests/pbmpm_newton_gpu.rs,
    // tests/material_laws.rs): 2.5e-4 m, 1/250 of a cell.
    assert!(worst < 2.5e-4, "GPU and twin differ by {worst:e} m");
    assert!(jp < 1e-3, "Jp differs by {jp}");
    // The Newton steps matter here: the twin with one ends farther away than the bound.
    assert!(apart > 1e-3, "one Newton step ends only {apart} m away");
}
