//! Several materials on one grid: each particle takes its emitter's material from the table
//! (`SolverParams::material_of` on the host and the twin, `material_of` in `snow.wgsl` on the
//! GPU), in both integrators.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use glam::Vec3;
use powder::sim::cpu::CpuSolver;
use powder::sim::material::MaterialKind;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::presets::preset_by_id;

/// [`common::colliding_blocks`] with the second block jelly (material id 1, 1000 kg/m³) and the
/// first reference snow, the scene's material.
fn snow_against_jelly() -> (SolverParams, Vec<GpuParticle>, f64) {
    let (mut params, mut particles, h) = common::colliding_blocks();
    let jelly = preset_by_id("jelly").expect("jelly").material;
    params.emitter_materials[1] = Some(jelly);
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(params.densest(), h, params.max_speed);
    let half = particles.len() / 2;
    for p in &mut particles[half..] {
        p.material = 1;
        p.mass *= (jelly.density / 400.0) as f32;
    }
    (params, particles, h)
}

/// The mean `|F − I|` of the particles of material `id`.
fn strain(ps: &[GpuParticle], id: u32) -> f64 {
    let mine: Vec<&GpuParticle> = ps.iter().filter(|p| p.material == id).collect();
    let sum: f64 = mine.iter().map(|p| (common::mat3d(&p.deformation) - nalgebra::Matrix3::identity()).norm()).sum();
    sum / mine.len() as f64
}

#[test]
fn the_table_gives_each_id_its_emitters_material() {
    let (params, _, _) = snow_against_jelly();
    assert_eq!(params.material_of(0), &params.material);
    assert_eq!(params.material_of(1).youngs_modulus, 1.0e4);
    // Ids past the table's end share its last entry, as on the GPU.
    let mut p = params;
    p.emitter_materials[15] = preset_by_id("water").map(|w| w.material);
    assert_eq!(p.material_of(40).kind, MaterialKind::Liquid);
    // The GPU's bounds come from every material present: the jelly's density, the snow's modulus.
    let gpu = params.to_gpu(&Default::default(), &Default::default());
    assert_eq!(gpu.materials[1].density, 1000.0);
    assert_eq!(gpu.materials[2], gpu.materials[0]);
    assert_eq!(gpu.lightest_density, 400.0);
    assert_eq!(gpu.stiffest_modulus, gpu.materials[0].lambda0 + 2.0 * gpu.materials[0].mu0);
}

#[test]
fn snow_meeting_jelly_on_the_gpu_matches_the_twin_and_keeps_momentum() {
    // 100 explicit substeps of 5e-4 s on lavapipe against the f64 twin: the blocks meet after
    // 25 ms and are pressed together for the next 25.
    // Each block must have stepped with its own material: the jelly (E 1e4 Pa) deforms far more
    // than the snow (E 1.4e5 Pa, and it yields), which a single material would not give.
    let (mut params, particles, h) = snow_against_jelly();
    params.dt = 5e-4;
    let (out, cpu) = common::gpu_and_twin(&common::gpu(), params, &particles, 100);
    let twin: Vec<GpuParticle> = cpu.particles.iter().map(|p| p.to_gpu()).collect();
    let distance = common::worst_distance(&out, &twin);
    let (linear, spin) = common::collision_drifts(&particles, &out, h);
    let (snow, jelly) = (strain(&out, 0), strain(&out, 1));
    eprintln!(
        "GPU against twin {distance:.2e} m; momentum drift {linear:.2e}, angular {spin:.2e}; mean |F − I| snow {snow:.4}, jelly {jelly:.4}"
    );
    // f32 against f64 over 40 substeps of a collision: 1e-5 m, as the single-material tests.
    assert!(distance < 1e-5, "GPU and twin {distance} m apart");
    // Fixed-point sums conserve momentum to their quantum: 1e-5 of Σ m|v| with room.
    assert!(linear < 1e-5 && spin < 1e-3, "momentum drift {linear}, angular {spin}");
    assert!(jelly > 2.0 * snow, "jelly strained {jelly}, snow {snow}: not their own materials");
}

#[test]
fn pbmpm_steps_each_material_as_its_own() {
    // The same collision under PB-MPM's converging solve on lavapipe: momentum within the
    // solve's tolerance, and the jelly again the softer.
    let gpu = common::gpu();
    let (params, particles, h) = snow_against_jelly();
    let integrator = powder::sim::integrator::Integrator::Pbmpm(powder::sim::pbmpm::PbmpmSettings::default());
    let options = powder::sim::solver::SolverOptions { integrator, ..Default::default() };
    let solver = powder::sim::Solver::with_options(&gpu, params, &particles, options).expect("solver");
    solver.step(&gpu, 60);
    let out = solver.read_particles(&gpu).expect("particles");
    let (linear, _) = common::collision_drifts(&particles, &out, h);
    let mean_speed = |id: u32| {
        let mine: Vec<&GpuParticle> = out.iter().filter(|p| p.material == id).collect();
        mine.iter().map(|p| Vec3::from(p.velocity).x as f64).sum::<f64>() / mine.len() as f64
    };
    let (snow, jelly) = (strain(&out, 0), strain(&out, 1));
    eprintln!(
        "PB-MPM: momentum drift {linear:.2e}; mean x speed snow {:.3}, jelly {:.3}; mean |F − I| snow {snow:.4}, jelly {jelly:.4}",
        mean_speed(0),
        mean_speed(1)
    );
    assert!(jelly > 2.0 * snow, "jelly strained {jelly}, snow {snow}: not their own materials");
    assert!(linear < 1e-4, "momentum drift {linear}");
    // The heavier jelly (1000 against 400 kg/m³) carries the pair: after 35 ms of contact both
    // blocks move in its direction, −x, or the masses were not its own.
    assert!(mean_speed(0) < 2.0 && mean_speed(1) < 0.0, "{} {}", mean_speed(0), mean_speed(1));
}

/// A quasi-two-dimensional channel 0.5 m long, 4 cells of 1/32 m wide, walls separating with
/// friction 0.3, the scene's material water and material id 1 `other`; explicit twin.
fn channel_with(other: &str) -> SolverParams {
    let h = 1.0 / 32.0;
    let mut params = common::params(1, h, 2e-4);
    params.grid.cells = glam::UVec3::new(16, 4, 16);
    params.material = preset_by_id("water").expect("water").material;
    params.emitter_materials[1] = preset_by_id(other).map(|p| p.material);
    params.boundary.friction = 0.3;
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(params.densest(), h, params.max_speed);
    params
}

/// A block `[lo, hi)` of material id `id` and density `density`, at rest, 8 particles a cell.
fn block_of(lo: Vec3, hi: Vec3, id: u32, density: f32) -> Vec<GpuParticle> {
    let mut ps = common::block(lo, hi, 1.0 / 32.0, density, |_| Vec3::ZERO);
    for p in &mut ps {
        p.material = id;
    }
    ps
}

#[test]
fn water_does_not_pass_through_jelly() {
    // A slab of jelly 0.1 m thick covering the channel's floor, and water 0.1 m deep poured onto
    // it from 0.05 m above: the one grid velocity field both share keeps them apart, so after
    // 0.6 s no water particle lies in the jelly's lower half. (Measured: the lowest water particle
    // at 0.130 m, the jelly's top particle at 0.084 m: MPM's contact gap of about a cell.)
    let params = channel_with("jelly");
    let width = (4.0 / 32.0) as f32;
    let mut particles = block_of(Vec3::ZERO, Vec3::new(0.5, width, 0.1), 1, 1000.0);
    particles.extend(block_of(Vec3::new(0.0, 0.0, 0.15), Vec3::new(0.5, width, 0.25), 0, 1000.0));
    let mut s = CpuSolver::new(params, &particles);
    for _ in 0..6 {
        s.step_frame(500);
    }
    let lowest_water = s.particles.iter().filter(|p| p.material == 0).map(|p| p.position.z).fold(f64::MAX, f64::min);
    let jelly_top = s.particles.iter().filter(|p| p.material == 1).map(|p| p.position.z).fold(f64::MIN, f64::max);
    eprintln!("after 0.6 s: lowest water particle at {lowest_water:.4} m, jelly's top particle at {jelly_top:.4} m");
    assert!(lowest_water > 0.05, "water reached {lowest_water} m, inside the jelly");
}
