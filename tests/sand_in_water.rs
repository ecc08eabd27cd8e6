//! Sand poured into water, on the explicit CPU twin: the two materials share one grid, and the
//! denser sand (2200 kg/m³) sinks through the water (1000 kg/m³) to the tank's floor, pushing the
//! water aside and up. CPU only, f64.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

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
    // The water's sound speed (31.6 m/s) sets the step: 0.4 h / c is 9.9e-5 s.
    let (mut s, schedule) = common::pouring_twin(SCENE, "sand_in_water", 9e-5);
    // 0.25 s of pouring and 0.35 s for the sand to settle.
    common::pour_frames(&mut s, &schedule, 30);
    let heights = |material: u32| -> Vec<f64> {
        s.particles.iter().filter(|p| p.material == material).map(|p| p.position.z).collect()
    };
    let (water, sand) = (heights(0), heights(1));
    assert_eq!(sand.len() as u64, schedule.total(), "every batch poured");
    let surface = quantile(water.clone(), 0.99);
    let sand_low = quantile(sand.clone(), 0.02);
    let sand_mean = sand.iter().sum::<f64>() / sand.len() as f64;
    let water_mean = water.iter().sum::<f64>() / water.len() as f64;
    // How far the surface would rise were all the sand under it: its volume over the tank's floor
    // (0.25 m by 0.015625 m); the water's mean height rises by half of that.
    let sand_volume: f64 = s.particles.iter().filter(|p| p.material == 1).map(|p| p.volume).sum();
    let full_rise = sand_volume / (0.25 * 0.015625);
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
    // Mostly under the surface, and the water it displaced has risen: its mean height is up by at
    // least half of what the whole sand under it would give (measured: more than all of it, as
    // the sand standing on the floor lifts water above the surface at rest).
    assert!(sand_mean < surface, "sand mean {sand_mean} m, water surface {surface} m");
    let rise = water_mean - 0.5 * DEPTH;
    eprintln!(
        "the water's mean height rose {rise:.4} m; all the sand under it would raise it {:.4} m",
        0.5 * full_rise
    );
    assert!(rise > 0.25 * full_rise, "the water's mean height rose {rise} m of {} m", 0.5 * full_rise);
}
