//! Snow meeting water under the pressure projection (f64 twins): a snowball dropped into a pond.

mod common;

use common::water::{G, fill};
use glam::Vec3;
use nalgebra::Vector3;
use powder::sim::cpu::CpuSolver;
use powder::sim::water::cpu::WaterCpu;
use powder::sim::water::cpu::coupled::SnowAndWaterCpu;
use powder::sim::water::{Transfer, WaterSettings};

/// The pond's depth, m.
const DEPTH: f64 = 0.3;

/// The pond: 12³ cells of 5 cm, water 30 cm deep (whole cells, and deep enough that the ball
/// does not reach the floor as it plunges); a ball of reference snow (400 kg/m³) of radius `r`
/// released with its lowest point at the water's surface.
fn pond(r: f64) -> SnowAndWaterCpu {
    let (n, h, depth) = (12, 0.05, DEPTH);
    let water = fill([n; 3], h, |_, z| z < depth);
    // PIC's dissipation lets the ball and the waves settle within the few seconds simulated.
    let settings = WaterSettings { transfer: Transfer::PicFlip { ratio: 0.0 }, ..Default::default() };
    let water = WaterCpu::new([n; 3], h, Vector3::new(0.0, 0.0, -G), settings, water);
    let centre = Vec3::new(0.3, 0.3, (depth + r) as f32);
    let (lo, hi) = (Vec3::ZERO, Vec3::splat((n as f64 * h) as f32));
    let ball = common::lattice(lo, hi, h as f32, 400.0, |x| ((x - centre).length() < r as f32).then_some(Vec3::ZERO));
    let snow = CpuSolver::new(common::params(n as u32, h, 4e-4), &ball);
    SnowAndWaterCpu::new(water, snow).expect("one box")
}

/// The water's surface over the open columns (`common::water::open_water_surface`), m.
fn open_water_surface(sim: &SnowAndWaterCpu, clear: f64) -> f64 {
    let points = sim.water.particles.iter().map(|p| [p.position.x, p.position.y, p.position.z]);
    common::water::open_water_surface(points, sim.water.h, [0.3, 0.3], clear)
}

/// A snowball dropped into a pond floats, and the water rises by the volume of snow below its
/// surface spread over the pond (the target: within 5 %). Measured here: the rise 1.013
/// of that volume over the pond's area, and 0.377 of the ball under water where Archimedes says
/// 0.40; held to 5 % and to 0.33–0.45. On 16³ cells (docs/water.md, "Snow in the water") the
/// share is 0.373 but the rise 0.77, so the 5 % is met on this grid, not yet on every grid; and a
/// count of the water in the open columns (instead of their highest particles) rises far less
/// here (docs/water.md), so the measure of the rise is itself not settled. When
/// the snow's particles do not take the projection's change (no buoyancy) the ball sinks and the
/// test fails. Mass is kept by construction: particles are neither made nor lost.
#[test]
fn a_snowball_dropped_into_a_pond_floats_and_raises_the_water() {
    let r = 0.14;
    let mut sim = pond(r);
    let area = (12.0 * 0.05f64).powi(2);
    let clear = r + 0.1;
    let still = open_water_surface(&sim, clear);
    let (mut rises, mut expected, mut shares) = (Vec::new(), Vec::new(), Vec::new());
    // 3 s; the last second averaged (PIC has settled the bobbing to a few millimetres by then).
    for frame in 0..90 {
        sim.advance(1.0 / 30.0, 1.0 / 60.0);
        if frame < 60 {
            continue;
        }
        let rise = open_water_surface(&sim, clear) - still;
        // The surface: the filled depth (whole layers of the lattice, h/2 apart, below DEPTH)
        // plus the rise; each snow particle a cube of its current volume, the share of it below
        // the surface counted.
        let layer = 0.5 * sim.water.h;
        let surface = (DEPTH / layer).ceil() * layer + rise;
        let snow = sim.snow.particles.iter();
        let (below, total) = common::water::submerged(
            surface,
            snow.map(|p| (p.position.z, p.volume * p.deformation.determinant() * p.plastic_jacobian)),
        );
        rises.push(rise);
        expected.push(below / area);
        shares.push(below / total);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (rise, expected, share) = (mean(&rises), mean(&expected), mean(&shares));
    eprintln!(
        "water rose {rise:.5} m, submerged volume / area {expected:.5} m ({:.3}), submerged share {share:.3}",
        rise / expected
    );
    assert!(sim.snow.particles.iter().all(|p| p.position.iter().all(|x| x.is_finite())));
    assert!(sim.water.particles.iter().all(|p| p.position.iter().all(|x| x.is_finite())));
    assert!((0.33..0.45).contains(&share), "submerged share {share}");
    assert!((rise / expected - 1.0).abs() < 0.05, "rise {rise} vs {expected}");
}
