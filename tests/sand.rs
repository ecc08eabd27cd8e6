//! Sand (`material.kind = "sand"`, the `dry_sand` preset): Drucker–Prager plasticity on the CPU
//! twins, against the granular column collapse of Lube et al. 2005. CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::{UVec3, Vec3};
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::params::{BoundaryKind, GpuParticle, SolverParams};
use powder::sim::presets::preset_by_id;

/// Cell size, m.
const H: f64 = 1.0 / 64.0;

/// A quasi-two-dimensional channel 0.5 m long (x), 4 cells wide (y, slip walls) and 0.25 m high,
/// with a column of dry sand `width` long and `height` high against its x = 0 wall, at rest.
fn column(width: f32, height: f32, dt: f64, floor_friction: f64) -> (SolverParams, Vec<GpuParticle>) {
    let sand = preset_by_id("dry_sand").expect("dry sand").material;
    let mut params = common::params(1, H, dt);
    params.grid.cells = UVec3::new(32, 4, 16);
    params.material = sand;
    params.boundary.kind = BoundaryKind::Separate;
    params.boundary.friction = floor_friction;
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(sand.density, H, params.max_speed);
    let depth = (4.0 * H) as f32;
    let particles =
        common::block(Vec3::ZERO, Vec3::new(width, depth, height), H as f32, sand.density as f32, |_| Vec3::ZERO);
    (params, particles)
}

/// Where the deposit ends: the 99.5th percentile of the particles' x (a few grains that roll off
/// the front do not count, as in the experiments' reading of the front).
fn front(particles: &[CpuParticle]) -> f64 {
    let mut xs: Vec<f64> = particles.iter().map(|p| p.position.x).collect();
    xs.sort_by(f64::total_cmp);
    xs[(xs.len() as f64 * 0.995) as usize]
}

fn kinetic(particles: &[CpuParticle]) -> f64 {
    particles.iter().map(|p| 0.5 * p.mass * p.velocity.norm_squared()).sum()
}

/// Runs the collapse of a column of aspect ratio `height / width` on the explicit twin for 1.2 s
/// and returns the runout ΔL / L₀, the particles' mean height and the kinetic energy left.
fn collapse(width: f32, height: f32) -> (f64, f64, f64) {
    let dt = 2e-4;
    let (params, particles) = column(width, height, dt, 0.5);
    let mut s = CpuSolver::new(params, &particles);
    let start: f64 = particles.iter().map(|p| p.position[2] as f64).sum::<f64>() / particles.len() as f64;
    // 1.2 s: the collapse is over in about 0.4 s at these sizes (√(H/g) ≈ 0.1 s).
    for _ in 0..12 {
        s.step_frame((0.1 / dt).round() as u32);
    }
    let runout = (front(&s.particles) - width as f64) / width as f64;
    let mean_z = s.particles.iter().map(|p| p.position.z).sum::<f64>() / s.particles.len() as f64;
    eprintln!(
        "a = {:.2}: runout ΔL/L0 {runout:.3}, mean height {start:.4} → {mean_z:.4} m, kinetic energy left {:.2e} J",
        height / width,
        kinetic(&s.particles)
    );
    (runout, mean_z, kinetic(&s.particles))
}

#[test]
fn a_column_of_sand_collapses_into_a_heap_and_stops() {
    // A square column (a = 1) released against the channel's end wall, walls with friction 0.5.
    // Granular, not elastic or liquid: it spreads, comes to rest and keeps a heap. Lube et al.
    // 2005 measured a runout ΔL/L₀ ≈ 1.2a for a < 1.8 in a quasi-2D channel; this twin measures
    // 0.52 here (0.69 in a channel 16 cells wide, 0.61 with walls of friction 0.3, 3.9 with none):
    // the runout target is not met, and docs/materials.md says so. What is asserted is what makes
    // it sand: at rest (kinetic energy 6.5e-7 J measured, against 0.14 J of potential energy
    // released), spread forward (0.52) but far short of a frictionless slide (3.9), its mean
    // height down from 0.051 to 0.041 m and not flattened (a liquid would end under 0.01 m).
    let (runout, mean_z, kinetic) = collapse(0.1, 0.1);
    assert!(kinetic < 1e-5, "still moving: {kinetic} J");
    assert!(runout > 0.3 && runout < 1.4, "runout {runout}");
    assert!(mean_z > 0.03 && mean_z < 0.048, "mean height {mean_z}");
}

#[test]
fn the_gpu_returns_sand_as_the_twin_does() {
    // A block of dry sand dropped at 1 m/s onto the floor, deformed at random (F = I ± 0.03, past
    // its cone) and with Jp in [1, 1.05] (volume kept from earlier pulls): 20 explicit substeps of
    // 2e-4 s on lavapipe against the f64 twin.
    let (params, mut particles) = common::perturbed_drop(preset_by_id("dry_sand").expect("dry sand").material, 2e-4);
    for (i, p) in particles.iter_mut().enumerate() {
        p.plastic_jacobian = 1.0 + 0.05 * ((i % 5) as f32) / 4.0;
    }
    let (out, cpu) = common::gpu_and_twin(&common::gpu(), params, &particles, 20);
    let returned = cpu.particles.iter().zip(&particles).filter(|(c, p)| {
        let d = c.deformation - CpuParticle::from_gpu(p).deformation;
        d.norm() > 1e-3
    });
    let returned = returned.count();
    let distance = out
        .iter()
        .zip(&cpu.particles)
        .map(|(g, c)| {
            (Vec3::from(g.position).as_dvec3() - glam::DVec3::new(c.position.x, c.position.y, c.position.z)).length()
        })
        .fold(0.0, f64::max);
    let jp = out
        .iter()
        .zip(&cpu.particles)
        .map(|(g, c)| (g.plastic_jacobian as f64 - c.plastic_jacobian).abs())
        .fold(0.0, f64::max);
    let f = out
        .iter()
        .zip(&cpu.particles)
        .map(|(g, c)| (CpuParticle::from_gpu(g).deformation - c.deformation).abs().max())
        .fold(0.0, f64::max);
    eprintln!(
        "{returned} of {} particles returned; GPU against twin: position {distance:.2e} m, Jp {jp:.2e}, F {f:.2e}",
        particles.len()
    );
    assert!(returned > particles.len() / 2, "the cone acted on only {returned} particles");
    assert!(distance < 1e-5 && jp < 1e-4 && f < 1e-4, "position {distance}, Jp {jp}, F {f}");
}
