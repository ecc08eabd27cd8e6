//! The explicit clock's viscous limit: a liquid's Newtonian viscous stress, integrated explicitly,
//! diffuses momentum and is stable only for steps below about `ρh²/η`; the clock caps its steps at
//! `ρ₀h²/(6η)` (`SolverParams::viscous_dt`) beside the acoustic `cfl·h/(v + c)`. On the CPU twin
//! and, for the cap, on lavapipe.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::Vec3;
use powder::sim::cpu::CpuSolver;
use powder::sim::explicit::clock::FrameStep;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::presets::preset_by_id;

/// Cell size, m.
const H: f64 = 1.0 / 32.0;
/// The viscosity, Pa·s: a thick syrup as a Newtonian liquid, whose viscous limit at this cell size
/// (8.1e-5 s) is five times shorter than the acoustic one (3.95e-4 s).
const VISCOSITY: f64 = 2000.0;

/// A block of the viscous liquid 0.2 m across in a 0.5 m box, falling at 1 m/s and spreading
/// sideways, so its velocity field has gradients for the viscosity to act on.
fn syrup(dt: f64) -> (SolverParams, Vec<GpuParticle>) {
    let mut liquid = preset_by_id("water").expect("water").material;
    liquid.viscosity = VISCOSITY;
    let mut params = common::params(16, H, dt);
    params.material = liquid;
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(liquid.density, H, params.max_speed);
    let particles = common::block(Vec3::new(0.15, 0.15, 0.05), Vec3::new(0.35, 0.35, 0.25), H as f32, 1000.0, |x| {
        Vec3::new(0.0, 2.0 * (x.x - 0.25), -1.0)
    });
    (params, particles)
}

/// The fastest particle after 0.2 s of fixed steps of `dt`, m/s.
fn fastest_after_fixed_steps(dt: f64) -> f64 {
    let (params, particles) = syrup(dt);
    let mut s = CpuSolver::new(params, &particles);
    s.step_frame((0.2 / dt).round() as u32);
    s.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max)
}

#[test]
fn the_twins_clock_keeps_a_viscous_liquid_stable_where_the_acoustic_limit_alone_does_not() {
    let (params, particles) = syrup(1e-4);
    let cap = params.viscous_dt();
    let mut s = CpuSolver::new(params, &particles);
    let acoustic = params.cfl * H / (params.wave_speed_bound(1.0) + 1.0);
    // The clock's own steps: 0.2 s of auto frames, every one at the cap.
    let mut frames = Vec::new();
    for _ in 0..12 {
        frames.push(s.step_span(1.0 / 60.0, FrameStep::Auto { max_substeps: 1000 }));
    }
    let fastest = s.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
    let largest_dt = frames.iter().map(|r| r.last_dt).fold(0.0, f64::max);
    // Steps of the acoustic limit alone, and of 2 and 3 times the cap, for the margin.
    let (at_acoustic, at_twice, at_thrice) = (
        fastest_after_fixed_steps(acoustic),
        fastest_after_fixed_steps(2.0 * cap),
        fastest_after_fixed_steps(3.0 * cap),
    );
    eprintln!(
        "viscous cap {cap:.3e} s, acoustic limit at 1 m/s {acoustic:.3e} s; auto frames: largest dt {largest_dt:.3e} s, \
         fastest particle {fastest:.3} m/s; fixed steps: acoustic limit {at_acoustic:.3e} m/s, 2× cap {at_twice:.3e}, \
         3× cap {at_thrice:.3e}"
    );
    assert!(acoustic > 4.0 * cap, "the acoustic limit {acoustic} should not already hold the cap {cap}");
    assert!(largest_dt <= cap * (1.0 + 1e-9), "a substep of {largest_dt} s past the cap {cap}");
    // Falling 0.2 s from 1 m/s at most doubles the speed; a blown-up state is far past it.
    assert!(fastest < 2.5, "the clock's steps let the liquid blow up: {fastest} m/s");
    assert!(at_acoustic > 5.0, "steps of the acoustic limit stayed stable ({at_acoustic} m/s): the cap is not needed");
    // The cap is conservative by less than 3: at twice it the step still holds, at three times not.
    assert!(at_twice < 2.5 && at_thrice > 5.0, "2× cap {at_twice} m/s, 3× cap {at_thrice} m/s");
}

#[test]
fn the_gpu_clock_caps_its_substeps_at_the_viscous_limit() {
    let gpu = common::gpu();
    let (params, particles) = syrup(1e-4);
    let solver = powder::sim::Solver::new(&gpu, params, &particles).expect("solver");
    let report = solver.step_frame(&gpu, 1.0 / 240.0, FrameStep::Auto { max_substeps: 1000 }, None).expect("frame");
    let cap = params.viscous_dt();
    eprintln!(
        "GPU auto frame of 1/240 s: {} substeps, stable dt {:.4e} s, cap {cap:.4e} s",
        report.substeps, report.min_stable_dt
    );
    // The clock holds dt in f32: the cap within its rounding, and the frame split into the
    // substeps the cap asks for (1/240 s / 8.14e-5 s = 51.2, so 52).
    assert!(
        (report.min_stable_dt - cap).abs() < 1e-6 * cap,
        "stable dt {} against the cap {cap}",
        report.min_stable_dt
    );
    assert_eq!(report.substeps, (1.0 / 240.0 / cap).ceil() as u32);
}
