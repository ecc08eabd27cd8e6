//! Sand poured into water, on the explicit CPU twin: the two materials share one grid, and the
//! denser sand (2200 kg/m³) sinks through the water (1000 kg/m³) to the tank's floor, pushing the
//! water aside and up. CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use powder::sim::cpu::CpuSolver;
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::params::BoundaryKind;

/// A quasi-two-dimensional tank 0.25 m long (x) and two cells wide (y), cells of 1/128 m, water
/// 0.06 m deep at rest, and a spout four cells across above its middle pouring dry sand down at
/// 0.5 m/s for 0.25 s. Emitter 0 is the water, emitter 1 the sand.
const SCENE: &str = r#"{
  "version": 4,
  "domain": { "size": [0.25, 0.015625, 0.14] },
  "grid": { "resolution": 32 },
  "material": { "preset": "water" },
  "emitters": [
    { "shape": "box", "min": [0.0, 0.0, 0.0], "max": [0.25, 0.015625, 0.06], "velocity": [0, 0, 0],
      "material": { "preset": "water" } },
    { "shape": "box", "min": [0.109375, 0.0, 0.1], "max": [0.140625, 0.015625, 0.116], "velocity": [0, 0, -0.5],
      "material": { "preset": "dry_sand" }, "pour": { "end": 0.25 } }
  ]
}"#;

/// Cell size, m.
const H: f64 = 1.0 / 128.0;
/// The water's depth at rest, m.
const DEPTH: f64 = 0.06;

/// The `q`-quantile of `values`.
fn quantile(mut values: Vec<f64>, q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * q) as usize]
}

#[test]
fn sand_poured_into_water_sinks_to_the_floor() {
    let scene = powder::scene::Scene::from_json(SCENE, "sand_in_water").expect("scene");
    let schedule = scene.pour_schedule("sand_in_water").expect("schedule");
    let mut params = scene.solver_params();
    // The water's sound speed (31.6 m/s) sets the step: 0.4 h / c is 9.9e-5 s.
    let dt = 9e-5;
    params.dt = dt;
    params.boundary.kind = BoundaryKind::Slip;
    params.boundary.friction = 0.0;
    let mut s = CpuSolver::new(params, &scene.spawn_particles().expect("particles"));
    // Frames of 0.02 s: 0.25 s of pouring and 0.35 s for the sand to settle.
    let frame = 0.02;
    let substeps = (frame / dt).round() as u32;
    for f in 0..30 {
        let (t0, t1) = (f as f64 * frame, (f + 1) as f64 * frame);
        s.step_frame(substeps);
        s.particles.extend(schedule.born_between(t0, t1).iter().map(CpuParticle::from_gpu));
    }
    let heights = |material: u32| -> Vec<f64> {
        s.particles.iter().filter(|p| p.material == material).map(|p| p.position.z).collect()
    };
    let (water, sand) = (heights(0), heights(1));
    assert_eq!(sand.len() as u64, schedule.total(), "every batch poured");
    let surface = quantile(water.clone(), 0.99);
    let sand_low = quantile(sand.clone(), 0.02);
    let sand_mean = sand.iter().sum::<f64>() / sand.len() as f64;
    let water_mean = water.iter().sum::<f64>() / water.len() as f64;
    eprintln!(
        "{} sand particles: lowest (2nd percentile) at {sand_low:.4} m, mean {sand_mean:.4} m; water surface \
         (99th percentile) at {surface:.4} m, its mean height {water_mean:.4} m (at rest {:.4} m)",
        sand.len(),
        0.5 * DEPTH
    );
    // Sunk to the floor: the lowest sand lies within three cells of it (the water between sand and
    // floor is pushed out; MPM keeps about a cell between bodies). Sand floating on the water would
    // lie above DEPTH.
    assert!(sand_low < 3.0 * H, "the sand's lowest particles are at {sand_low} m");
    // Mostly under the surface, and the water it displaced has risen: its mean height is up by
    // at least half of what the sand's volume below the surface gives it.
    assert!(sand_mean < surface, "sand mean {sand_mean} m, water surface {surface} m");
    assert!(water_mean > 0.5 * DEPTH + 0.002, "water mean height {water_mean} m");
}
