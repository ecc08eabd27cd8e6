//! The elastic presets (`powder::sim::presets`: jelly, rubber) on the CPU twins of both
//! integrators: the snow model with its plasticity, hardening and cracking off is the fixed
//! corotated solid, so a jelly cube thrown at a wall bounces off it and comes back to its shape and
//! volume, where reference snow thrown the same way packs down for good. CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::{UVec3, Vec3};
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::material::SnowMaterial;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::presets::preset_by_id;

/// Cell size, m: the cube is 4 cells on a side.
const H: f64 = 1.0 / 16.0;
/// Impact speed, m/s: a few per cent of strain in the jelly (its P wave runs at 6.2 m/s).
const SPEED: f32 = 0.4;

/// A 0.25 m cube of `material` thrown along +x at [`SPEED`] toward the wall at x = 1 m of a
/// 16 × 8 × 8-cell box, in zero gravity, walls without friction; and its particles.
fn thrown_cube(material: SnowMaterial, dt: f64) -> (SolverParams, Vec<GpuParticle>) {
    let mut params = common::params(1, H, dt);
    params.grid.cells = UVec3::new(16, 8, 8);
    params.gravity = glam::DVec3::ZERO;
    params.material = material;
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(material.density, H, params.max_speed);
    let lo = Vec3::new(0.55, 0.125, 0.125);
    let particles =
        common::block(lo, lo + Vec3::splat(0.25), H as f32, material.density as f32, |_| Vec3::new(SPEED, 0.0, 0.0));
    (params, particles)
}

/// What the test reads off a cube: its volume Σ V⁰ det F over the initial one, its extent along x
/// over the initial one, its smallest Jp, and its mean velocity along x.
fn measure(particles: &[CpuParticle], initial_volume: f64, initial_extent: f64) -> (f64, f64, f64, f64) {
    let volume: f64 = particles.iter().map(|p| p.volume * p.deformation.determinant()).sum();
    let xs = particles.iter().map(|p| p.position.x);
    let extent = xs.clone().fold(f64::MIN, f64::max) - xs.fold(f64::MAX, f64::min);
    let jp = particles.iter().map(|p| p.plastic_jacobian).fold(f64::MAX, f64::min);
    let vx =
        particles.iter().map(|p| p.mass * p.velocity.x).sum::<f64>() / particles.iter().map(|p| p.mass).sum::<f64>();
    (volume / initial_volume, extent / initial_extent, jp, vx)
}

/// The cube under `run` (one step of `dt` a call) for `seconds`, measured at the end.
fn bounce(material: SnowMaterial, dt: f64, seconds: f64, pbmpm: bool) -> (f64, f64, f64, f64) {
    let (params, particles) = thrown_cube(material, dt);
    let start: Vec<CpuParticle> = particles.iter().map(CpuParticle::from_gpu).collect();
    let initial_volume: f64 = start.iter().map(|p| p.volume).sum();
    let xs = start.iter().map(|p| p.position.x);
    let initial_extent = xs.clone().fold(f64::MIN, f64::max) - xs.fold(f64::MAX, f64::min);
    let steps = (seconds / dt).round() as u32;
    let end = if pbmpm {
        let mut s = PbmpmCpu::new(params, PbmpmSettings::default(), &particles).expect("twin");
        for _ in 0..steps {
            s.step(dt);
        }
        s.particles
    } else {
        let mut s = CpuSolver::new(params, &particles);
        s.step_frame(steps);
        s.particles
    };
    measure(&end, initial_volume, initial_extent)
}

#[test]
fn a_jelly_cube_bounces_off_a_wall_and_keeps_its_shape_and_volume() {
    // The cube reaches the wall after 0.5 s (0.2 m at 0.4 m/s) and is off it again by 0.9 s;
    // measured at 1.2 s, moving away.
    let jelly = preset_by_id("jelly").expect("jelly").material;
    let snow = SnowMaterial::default();
    // The explicit twin at 1 ms (its stable step for the jelly is about 4 ms); PB-MPM at its
    // default 1/240 s.
    let runs = [("explicit", 1e-3, false), ("PB-MPM", 1.0 / 240.0, true)];
    for (name, dt, pbmpm) in runs {
        let (volume, extent, jp, vx) = bounce(jelly, dt, 1.2, pbmpm);
        let (snow_volume, snow_extent, snow_jp, snow_vx) = bounce(snow, dt, 1.2, pbmpm);
        eprintln!(
            "{name}: jelly volume {volume:.4}, x extent {extent:.4}, smallest Jp {jp}, vx {vx:+.3} m/s; \
             snow volume {snow_volume:.4}, x extent {snow_extent:.4}, smallest Jp {snow_jp:.4}, vx {snow_vx:+.3} m/s"
        );
        // It bounced: moving back from the wall.
        assert!(vx < -0.1 * SPEED as f64, "{name}: the jelly did not bounce (vx {vx})");
        // No plasticity at all: Jp stays exactly 1.
        assert_eq!(jp, 1.0, "{name}: the jelly yielded");
        // Volume and shape back within 1 % and 2 % (what is left is the ringing of the impact).
        // Measured: volume 1.0000 in both, extent 1.0127 (explicit) and 0.9984 (PB-MPM); the
        // explicit twin bounces it back at 0.283 m/s, PB-MPM at 0.381.
        assert!((volume - 1.0).abs() < 0.01, "{name}: jelly volume {volume}");
        assert!((extent - 1.0).abs() < 0.02, "{name}: jelly extent {extent}");
        // The same throw leaves reference snow packed (smallest Jp 0.992 explicit, 0.984 PB-MPM)
        // and out of shape (extent 1.027 and 1.048: it cracks on the rebound), so the checks
        // above can fail.
        assert!(snow_jp < 0.995, "{name}: the snow did not pack ({snow_jp})");
        assert!((snow_extent - 1.0).abs() > 0.02, "{name}: the snow kept its shape ({snow_extent})");
    }
}
