//! Elastic solids on the CPU twins: a bar rings at its analytic period under the explicit
//! integrator, and a jelly cube dropped on the floor keeps its volume and its shape under both
//! integrators. CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::{DVec3, UVec3, Vec3};
use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::material::SnowMaterial;
use powder::sim::params::{BoundaryKind, GpuParticle};
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::presets::{elastic, preset_by_id};

/// Density of the bar, kg/m³.
const RHO: f64 = 400.0;

/// A fixed-free bar (L = 0.5 m along x from the sticky wall at x = 0, square section L/8, no
/// gravity) of modulus `e` and ν = 0 (its P wave then runs at the bar speed √(E/ρ) whatever the
/// section), `cells` cells along, released in its first mode at 1 % of the wave speed and stepped
/// three periods by the explicit twin at `cfl` of the wave's crossing time: its period from the
/// tip's downward crossings of its mean, over the analytic `4L/√(E/ρ)`.
fn bar_period(cells: u32, e: f64) -> f64 {
    let len = 0.5;
    let h = len / cells as f64;
    let (across, margin) = (cells / 8, 4);
    let c = (e / RHO).sqrt();
    let dt = 0.25 * h / c;
    let mut params = common::params(1, h, dt);
    params.grid.cells = UVec3::new(cells + margin, across + 2 * margin, across + 2 * margin);
    params.gravity = DVec3::ZERO;
    params.boundary.kind = BoundaryKind::Sticky;
    params.material = elastic(e, 0.0, RHO);
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(RHO, h, params.max_speed);
    let period = 4.0 * len / c;
    let lo = Vec3::new(0.0, (margin as f64 * h) as f32, (margin as f64 * h) as f32);
    let hi = lo + Vec3::new(len as f32, (across as f64 * h) as f32, (across as f64 * h) as f32);
    let (v0, k) = (0.01 * c, std::f64::consts::PI / (2.0 * len));
    let ps = common::block(lo, hi, h as f32, RHO as f32, |x| Vec3::new((v0 * (k * x.x as f64).sin()) as f32, 0.0, 0.0));
    let mut s = CpuSolver::new(params, &ps);
    let tip: Vec<usize> = (0..ps.len()).filter(|&i| ps[i].position[0] as f64 > len - 0.5 * h).collect();
    let tip_x = |s: &CpuSolver| tip.iter().map(|&i| s.particles[i].position.x).sum::<f64>() / tip.len() as f64;
    let x0 = tip_x(&s);
    let series: Vec<f64> = (0..(3.0 * period / dt).ceil() as usize)
        .map(|_| {
            s.substep();
            tip_x(&s) - x0
        })
        .collect();
    common::crossing_period(&series, dt) / period
}

#[test]
fn the_bar_rings_at_its_analytic_period_in_the_explicit_integrator() {
    // The reference snow's modulus, E = 1.4e5 Pa: a period of 0.107 s. The target: within 3 % of
    // 4L/√(E/ρ). The sticky wall holds the bar's end a fraction of a cell off x = 0 (the walls are
    // first order), which lengthens the bar by a share of h/L that halves with the cell size:
    // measured +1.2 % at 16 cells and +0.6 % at 32.
    let ratios: Vec<f64> = [16, 32].iter().map(|&n| bar_period(n, 1.4e5)).collect();
    eprintln!("explicit bar period / analytic at 16, 32 cells: {ratios:?}");
    for r in &ratios {
        assert!((r - 1.0).abs() < 0.03, "period ratios {ratios:?}");
    }
    // Refining does not make it worse.
    assert!((ratios[1] - 1.0).abs() <= (ratios[0] - 1.0).abs() + 0.002, "period ratios {ratios:?}");
}

/// Cell size of the jelly drop, m: the cube is 6.4 cells on a side.
const CELL: f64 = 1.0 / 64.0;
/// Edge of the cube, m.
const SIDE: f64 = 0.1;

/// A cube of `material` released 2 cm above the floor of a 0.5 m box (its walls `separate`,
/// friction 0.5) and left for `seconds`: per sample (every 0.01 s over the last half of the run)
/// its volume `Σ V⁰ det F_E · J_P` over its initial one, and its height (the mean z of its top
/// layer of particles less that of its bottom layer) over the initial one. Stepped by the explicit
/// twin or, with `pbmpm`, by PB-MPM's twin (steps of 1/240 s).
fn jelly_drop(material: SnowMaterial, pbmpm: Option<PbmpmSettings>, seconds: f64) -> (Vec<f64>, Vec<f64>) {
    let dt = 5e-4;
    let mut params = common::params(32, CELL, dt);
    params.material = material;
    params.boundary = powder::sim::params::Boundary { kind: BoundaryKind::Separate, friction: 0.5 };
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(material.density, CELL, params.max_speed);
    let lo = Vec3::new(0.2, 0.2, 0.02);
    let ps: Vec<GpuParticle> =
        common::block(lo, lo + Vec3::splat(SIDE as f32), CELL as f32, material.density as f32, |_| Vec3::ZERO);
    let z: Vec<f32> = ps.iter().map(|p| p.position[2]).collect();
    let (zmin, zmax) = (z.iter().cloned().fold(f32::MAX, f32::min), z.iter().cloned().fold(f32::MIN, f32::max));
    let top: Vec<usize> = (0..ps.len()).filter(|&i| z[i] > zmax - 0.25 * CELL as f32).collect();
    let bottom: Vec<usize> = (0..ps.len()).filter(|&i| z[i] < zmin + 0.25 * CELL as f32).collect();
    let height = |p: &[CpuParticle]| {
        let mean = |ids: &[usize]| ids.iter().map(|&i| p[i].position.z).sum::<f64>() / ids.len() as f64;
        mean(&top) - mean(&bottom)
    };
    let volume =
        |p: &[CpuParticle]| p.iter().map(|q| q.volume * q.deformation.determinant() * q.plastic_jacobian).sum::<f64>();
    let particles: Vec<CpuParticle> = ps.iter().map(CpuParticle::from_gpu).collect();
    let (v0, h0) = (volume(&particles), height(&particles));
    let samples = (seconds / 0.01).round() as usize;
    let (mut volumes, mut heights) = (Vec::new(), Vec::new());
    let mut record = |k: usize, p: &[CpuParticle]| {
        if k >= samples / 2 {
            volumes.push(volume(p) / v0);
            heights.push(height(p) / h0);
        }
    };
    match pbmpm {
        None => {
            let mut s = CpuSolver::new(params, &ps);
            for k in 0..samples {
                s.step_frame((0.01 / dt).round() as u32);
                record(k, &s.particles);
            }
        }
        Some(settings) => {
            let mut s = PbmpmCpu::new(params, settings, &ps).expect("twin");
            for k in 0..samples {
                for _ in 0..2 {
                    s.step(0.005);
                }
                record(k, &s.particles);
            }
        }
    }
    (volumes, heights)
}

#[test]
fn a_dropped_jelly_cube_keeps_its_volume_and_its_shape_in_both_integrators() {
    // Jelly (E = 1e4 Pa, ν = 0.45, ρ = 1000 kg/m³) standing on the floor is squashed by its own
    // weight: a free column sags by ρgH/(2E) = 4.9 % of its height, its volume by (1 − 2ν) of that,
    // 0.5 %. Targets, over the second half of the run (the ringing after the landing is averaged
    // out, not gone: while it rings the volume swings by more): the mean volume within 1 % of the
    // initial one, and no permanent flattening: the mean height within 2 % of the elastic sag's
    // 0.951. Measured: explicit 0.9921 and 0.9487 (the volume 1.4 % off at most while it rings),
    // PB-MPM 0.9913 and 0.9470 (1.1 %); the plastic jelly ends at 0.789 and 0.847. Jelly made plastic (its
    // compression clamped at 1 − θc = 0.9) is crushed for good by the same drop, or the test could
    // not tell.
    let jelly = preset_by_id("jelly").expect("jelly").material;
    let sag = 1.0 - jelly.density * 9.81 * SIDE / (2.0 * jelly.youngs_modulus);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let plastic = SnowMaterial { critical_compression: 0.1, ..jelly };
    for (name, pbmpm) in [("explicit", None), ("PB-MPM", Some(PbmpmSettings::default()))] {
        let (volumes, heights) = jelly_drop(jelly, pbmpm, 1.0);
        let worst = volumes.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
        let (volume, height) = (mean(&volumes), mean(&heights));
        let (_, crushed) = jelly_drop(plastic, pbmpm, 1.0);
        eprintln!(
            "{name}: volume {volume:.4} of the initial (at most {worst:.4} off while it rings); height {height:.4} of \
             the initial (elastic sag {sag:.4}); plastic jelly {:.4}",
            mean(&crushed)
        );
        assert!((volume - 1.0).abs() < 0.01, "{name}: the volume came to {volume}");
        assert!((height - sag).abs() < 0.02, "{name}: height {height} against the elastic sag {sag}");
        assert!(mean(&crushed) < sag - 0.03, "{name}: the plastic jelly stood at {}", mean(&crushed));
    }
}
