//! Viscous flow under PB-MPM's Newton–PCG solve: a visco-plastic fluid's stress is returned toward
//! its yield surface inside the solve (as sand's is), and a viscous liquid's viscosity is in the
//! solve's operator. Layers on an incline on the f64 twin against the Nusselt film and the Bingham
//! yield height (`tests/visco.rs` has the same under the explicit integrator), and the GPU
//! (lavapipe) against the twin.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use common::incline::{self, middle_moved, nusselt, surface};
use powder::sim::material::SnowMaterial;
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::pbmpm::cpu::PbmpmCpu;
use powder::sim::presets::preset_by_id;

/// [`incline::layer`] on the PB-MPM twin under `settings`, the sticky floor in place.
fn layer(material: SnowMaterial, thickness: f64, settings: PbmpmSettings) -> PbmpmCpu {
    let (params, particles) = incline::layer(material, thickness, 1e-4);
    let mut s = PbmpmCpu::new(params, settings, &particles).expect("twin");
    s.colliders = Some(common::sticky_floor(&params, incline::FLOOR));
    s
}

/// The film's surface speed over Nusselt's at its depth there, after each of `frames` frames of
/// 1/60 s.
fn film(material: SnowMaterial, thickness: f64, settings: PbmpmSettings, frames: u32) -> Vec<(f64, f64)> {
    let mut s = layer(material, thickness, settings);
    (0..frames)
        .map(|_| {
            s.advance_frame(1.0 / 60.0);
            let (speed, depth) = surface(&s.particles);
            (speed, speed / nusselt(&material, depth))
        })
        .collect()
}

#[test]
fn a_honey_film_reaches_the_nusselt_surface_speed_under_pbmpm() {
    // tests/visco.rs's film of thick honey (η = 200 Pa·s, shear modulus 8e4 Pa), 0.1 m deep, under
    // PB-MPM's defaults: 36 steps of 1/240 s. Target: ρ g sin θ h²/(2η) within 10 %. With the
    // return at the step's end alone the elastic step added a viscosity of about μ dt = 333 Pa·s
    // and the film ran at 0.41 of it.
    let honey = preset_by_id("honey").expect("honey").material;
    let honey = SnowMaterial { viscosity: 200.0, youngs_modulus: 2.3e5, ..honey };
    let speeds = film(honey, 0.1, PbmpmSettings::default(), 9);
    eprintln!("honey film under PB-MPM, (speed m/s, over Nusselt) every 1/60 s: {speeds:.3?}");
    let (last, before) = (speeds[8], speeds[5]);
    assert!((last.1 - 1.0).abs() < 0.10, "surface speed {} of Nusselt's", last.1);
    // Steady, as in tests/visco.rs: the speeds at 0.1 s and 0.15 s agree within 3 %.
    assert!((last.0 / before.0 - 1.0).abs() < 0.03, "{speeds:?}");
}

#[test]
fn a_viscous_liquid_film_reaches_the_nusselt_surface_speed_under_pbmpm() {
    // tests/visco.rs's film of water made 50 000 times more viscous (η = 50 Pa·s), 0.05 m deep,
    // 0.1 s. The liquid's bulk modulus (1e6 Pa) makes the solve converge slowly: with the default
    // 10 CG iterations a step the film runs at 1.22 of the Nusselt speed; with 20, within 10 %.
    let water = preset_by_id("water").expect("water").material;
    let liquid = SnowMaterial { viscosity: 50.0, ..water };
    let settings = PbmpmSettings { iterations: 20, ..PbmpmSettings::default() };
    let speeds = film(liquid, 0.05, settings, 6);
    eprintln!("viscous liquid film under PB-MPM (20 CG iterations), (speed, over Nusselt): {speeds:.3?}");
    let last = speeds[5].1;
    assert!((last - 1.0).abs() < 0.10, "surface speed {last} of Nusselt's");
}

#[test]
fn mud_thinner_than_its_yield_height_stands_under_pbmpm() {
    // tests/visco.rs's mud (yield stress 400 Pa, yield height 4.5 cm on the 30° slope), 0.2 s
    // under PB-MPM's defaults: the 3 cm layer stands (its elastic sag only, under 1 mm), the
    // 7.5 cm one flows (more than 1 cm; the explicit twin's moves 2.7 cm).
    let mud = SnowMaterial { yield_stress: 400.0, ..preset_by_id("mud").expect("mud").material };
    let moved = |thickness: f64| {
        let (_, start) = incline::layer(mud, thickness, 1e-4);
        let mut s = layer(mud, thickness, PbmpmSettings::default());
        for _ in 0..12 {
            s.advance_frame(1.0 / 60.0);
        }
        middle_moved(&start, &s.particles)
    };
    let (thin, thick) = (moved(0.03), moved(0.075));
    eprintln!("mud under PB-MPM, 0.2 s: the 3 cm layer moved {thin:.2e} m, the 7.5 cm layer {thick:.3} m");
    assert!(thin.abs() < 1e-3, "the thin layer moved {thin} m");
    assert!(thick > 1e-2, "the thick layer moved {thick} m");
}

#[test]
fn pbmpm_on_the_gpu_returns_mud_as_the_twin_does() {
    // The perturbed drop (F = I ± 0.03, falling at 1 m/s onto the floor) of mud, which takes most
    // particles past its yield surface: 20 default PB-MPM steps of 1/240 s on lavapipe against
    // the twin.
    let (params, particles) = common::perturbed_drop(preset_by_id("mud").expect("mud").material, 1e-3);
    let settings = PbmpmSettings::default();
    let (out, twin) = common::pbmpm_gpu_and_twin(&common::gpu(), params, &particles, settings, 20, 1.0 / 240.0);
    let worst = common::worst_distance(&out, &twin);
    eprintln!("mud under PB-MPM: GPU against twin {worst:.2e} m");
    // The bound of the other GPU-against-twin PB-MPM tests: 2.5e-4 m, 1/250 of a cell.
    assert!(worst < 2.5e-4, "GPU and twin differ by {worst:e} m");
}

#[test]
fn pbmpm_on_the_gpu_takes_a_liquids_viscosity_as_the_twin_does() {
    // A slab of water made viscous (η = 50 Pa·s), 0.25 × 0.25 × 0.1 m, sliding at 1 m/s along a
    // floor of friction 0.3 (tests/liquid.rs's slab), 30 PB-MPM steps of 1/240 s on lavapipe
    // against the twin; and the twin of the inviscid slab, which must end farther away than the
    // bound, or the comparison could not see the viscosity.
    let water = preset_by_id("water").expect("water").material;
    let h = 1.0 / 16.0;
    let slab = |viscosity: f64| {
        let material = SnowMaterial { viscosity, ..water };
        let mut params = common::params(16, h, 1.0 / 240.0);
        params.material = material;
        params.boundary.friction = 0.3;
        params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(material.density, h, params.max_speed);
        let (lo, hi) = (glam::Vec3::new(0.2, 0.2, 0.0), glam::Vec3::new(0.45, 0.45, 0.1));
        let particles = common::block(lo, hi, h as f32, material.density as f32, |_| glam::Vec3::X);
        (params, particles)
    };
    let settings = PbmpmSettings::default();
    let (params, particles) = slab(50.0);
    let (out, twin) = common::pbmpm_gpu_and_twin(&common::gpu(), params, &particles, settings, 30, 1.0 / 240.0);
    let (params, particles) = slab(0.0);
    let inviscid = common::pbmpm_twin(params, &particles, settings, 30, 1.0 / 240.0);
    let worst = common::worst_distance(&out, &twin);
    let apart = common::worst_distance(&inviscid, &twin);
    eprintln!("viscous slab under PB-MPM: GPU against twin {worst:.2e} m; viscous against inviscid {apart:.2e} m");
    // tests/liquid.rs's bound for the inviscid slab on the GPU (f32, and force sums in a fixed point
    // coarse enough for the water's bulk modulus): 1.5e-3 m.
    assert!(worst < 1.5e-3, "GPU and twin differ by {worst:e} m");
    assert!(apart > 3e-3, "the viscosity moved the particles by only {apart} m");
}
