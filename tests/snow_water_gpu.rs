//! Snow in the water's projection on the GPU (`shaders/water/snow.wgsl`, lavapipe on machines
//! without a GPU) against the f64 twin (`WaterCpu::step_with` and `SnowOnFaces`): the same steps of
//! the same pond with a ball of snow half in it.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use common::water::{G, fill};
use glam::Vec3;
use nalgebra::Vector3;
use powder::sim::cpu::CpuParticle;
use powder::sim::particles::ParticleBuffers;
use powder::sim::pressure::Preconditioner;
use powder::sim::water::cpu::WaterCpu;
use powder::sim::water::cpu::mixture::SnowOnFaces;
use powder::sim::water::gpu::{SnowStreams, WaterGpu};
use powder::sim::water::{Transfer, WaterSettings};

/// A pond of 12³ cells of 5 cm, water 30 cm deep and at rest, and a ball of reference snow
/// (400 kg/m³, radius 14 cm) at rest with its centre on the surface: `steps` steps of 1/120 s on
/// the GPU and on the twin, the snow held where it is (its own step is its solver's) and taking
/// only the projection's change. The water's particles and the snow's velocities are compared.
fn compare(transfer: Transfer, preconditioner: Preconditioner, steps: usize) -> (f64, f64, f64) {
    let gpu = common::gpu();
    let (n, h, depth, dt) = (12usize, 0.05, 0.3, 1.0 / 120.0);
    let water = fill([n; 3], h, |_, z| z < depth);
    let mut settings = WaterSettings { transfer, ..Default::default() };
    settings.pressure.preconditioner = preconditioner;
    settings.pressure.max_iterations = 80;
    let gravity = Vector3::new(0.0, 0.0, -G);
    let centre = Vec3::new(0.3, 0.3, depth as f32);
    let (lo, hi) = (Vec3::ZERO, Vec3::splat((n as f64 * h) as f32));
    let mut ball = common::lattice(lo, hi, h as f32, 400.0, |x| ((x - centre).length() < 0.14).then_some(Vec3::ZERO));
    // Snow that has moved and deformed, so that the scatter's affine part and current volume
    // (V⁰ det F_E J_P) count: a small velocity, velocity gradient and deformation varying from
    // particle to particle.
    for (i, p) in ball.iter_mut().enumerate() {
        let s = ((i * 37) % 11) as f32 / 10.0 - 0.5;
        p.velocity = [0.05 * s, -0.03 * s, 0.02];
        p.affine = [[0.4 * s, 0.1, 0.0, 0.0], [-0.1, 0.3 * s, 0.2, 0.0], [0.0, 0.1 * s, -0.5, 0.0]];
        p.deformation = [[0.95 + 0.05 * s, 0.01, 0.0, 0.0], [0.0, 1.02, 0.02 * s, 0.0], [0.01, 0.0, 0.97, 0.0]];
        p.plastic_jacobian = 0.9 + 0.1 * s;
    }
    let mut snow: Vec<CpuParticle> = ball.iter().map(CpuParticle::from_gpu).collect();
    let mut twin = WaterCpu::new([n; 3], h, gravity, settings, water.clone());
    let dims = twin.grid_dims();
    for _ in 0..steps {
        let mut faces = SnowOnFaces::new(&snow, Vector3::zeros(), dims, h);
        twin.step_with(dt, Some(&mut faces));
        faces.apply(&mut snow, dims, h);
    }
    let buffers = ParticleBuffers::new(&gpu.device, &ball, wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST);
    let [position, velocity, affine, deformation, plastic, _] = buffers.buffers();
    let mut on_gpu = WaterGpu::new(&gpu, [n; 3], h, gravity, settings, &water);
    let streams = SnowStreams { streams: [position, velocity, affine, deformation, plastic], count: ball.len() as u32 };
    on_gpu.set_snow(&gpu, Some(streams));
    on_gpu.advance_steps(&gpu, steps, dt);
    let moved = on_gpu.read_particles(&gpu).expect("read back");
    let snow_gpu = buffers.read(&gpu).expect("read back");
    assert_eq!((moved.len(), snow_gpu.len()), (twin.particles.len(), snow.len()));
    let dx = moved.iter().zip(&twin.particles).map(|(g, t)| (g.position - t.position).norm()).fold(0.0, f64::max);
    let dv = moved.iter().zip(&twin.particles).map(|(g, t)| (g.velocity - t.velocity).norm()).fold(0.0, f64::max);
    let fastest = twin.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
    let snow_fastest = snow.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
    let snow_dv = snow_gpu
        .iter()
        .zip(&snow)
        .map(|(g, t)| {
            (Vector3::new(g.velocity[0] as f64, g.velocity[1] as f64, g.velocity[2] as f64) - t.velocity).norm()
        })
        .fold(0.0, f64::max);
    let mean_rise = snow.iter().map(|p| p.velocity.z).sum::<f64>() / snow.len() as f64 - 0.02;
    eprintln!(
        "{transfer:?} {preconditioner:?}, {steps} steps: water {:.2e} cells and {:.2e} of its fastest ({fastest:.4} \
         m/s) apart; snow velocities {:.2e} of its fastest ({snow_fastest:.4} m/s) apart, its mean vertical speed \
         {mean_rise:.4} m/s",
        dx / h,
        dv / fastest,
        snow_dv / snow_fastest,
    );
    assert!(mean_rise > 0.0, "the water holds the snow up: mean vertical speed gained {mean_rise}");
    (dx / h, dv / fastest, snow_dv / snow_fastest)
}

/// The pond's steps on the GPU follow the twin's, for both transfers, with the multigrid and with
/// the incomplete-Poisson preconditioner (the mixture scales only level 0's coefficients, so the
/// multigrid's coarse levels are those of the water alone: a weaker preconditioner, the same
/// answer). Measured on lavapipe: the water 9.1e-6 to 9.6e-6 cells and 3.7e-5 to 4.0e-5 of its
/// fastest speed apart, the snow's velocities 2.1e-5 to 2.6e-5 of its fastest (f32 against f64 and
/// fixed-point face sums): 1e-3 is twenty-five times that. Each of these breaks it by at least
/// 5e-3 cells: the coefficients without the snow's density ratio (`α_w + α_s`), the join turning
/// no cell, the volume correction not counting the snow's share of a cell.
#[test]
fn snow_in_the_projection_on_the_gpu_follows_the_twin() {
    for (transfer, preconditioner) in [
        (Transfer::Apic, Preconditioner::Multigrid),
        (Transfer::PicFlip { ratio: 0.0 }, Preconditioner::IncompletePoisson),
    ] {
        let (dx, dv, snow) = compare(transfer, preconditioner, 3);
        assert!(dx < 1e-3, "{transfer:?}: water positions {dx} cells apart");
        assert!(dv < 1e-3, "{transfer:?}: water velocities {dv} of the fastest apart");
        assert!(snow < 1e-3, "{transfer:?}: snow velocities {snow} of the fastest apart");
    }
}
