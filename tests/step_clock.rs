//! The substep clock on the GPU (lavapipe): each substep's dt is chosen on the GPU from the state
//! it steps, so an impact that stiffens the snow within a frame keeps its momentum; a fixed dt past
//! the stable dt still runs and reports by how much.

mod common;

use glam::{DVec3, Vec3};
use nalgebra::Vector3;
use powder::gpu::Gpu;
use powder::runner::plan_frame;
use powder::scene::TimeStep;
use powder::sim::Solver;
use powder::sim::explicit::clock::{FrameReport, FrameStep};
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::record;

/// Output frames per second of the collision tests.
const FPS: f64 = 60.0;
/// Cell size of the collision scene: 32 cells over the 1 m domain.
const H: f64 = 1.0 / 32.0;
/// Snowball radius, m.
const RADIUS: f32 = 0.15;

/// Particles on a lattice of spacing h/1.5 (3.4 per cell, fewer than the scenes' 8 so that lavapipe
/// runs the impact in seconds) inside the ball of `RADIUS` around `center`, moving at `velocity`,
/// reference snow (400 kg/m³).
fn snowball(center: Vec3, velocity: Vec3) -> Vec<GpuParticle> {
    let s = H as f32 / 1.5;
    let n = (2.0 * RADIUS / s).ceil() as i32;
    let mut ball = Vec::new();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let x = center - Vec3::splat(RADIUS) + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s;
                if (x - center).length() <= RADIUS {
                    ball.push(GpuParticle::new(x, velocity, 400.0 * s * s * s, s * s * s, 0));
                }
            }
        }
    }
    ball
}

/// Two snowballs of radius 0.15 m at ±4 m/s along x, their centres 0.12 m (0.8 r) apart in y and
/// their surfaces one cell apart in x, in the middle of a 1 m box without gravity: they meet within
/// the first frame, and the snow stays more than 4 cells from every wall through the frames run.
fn collision() -> (SolverParams, Vec<GpuParticle>) {
    let mut params = common::params(32, H, 1e-4);
    params.gravity = DVec3::ZERO;
    let gap = RADIUS + 0.5 * H as f32;
    let mut particles = snowball(Vec3::new(0.5 - gap, 0.44, 0.5), Vec3::new(4.0, 0.0, 0.0));
    particles.extend(snowball(Vec3::new(0.5 + gap, 0.56, 0.5), Vec3::new(-4.0, 0.0, 0.0)));
    (params, particles)
}

/// How a run chose its substeps.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    /// Each substep's dt from the state it steps, on the GPU.
    Clock,
    /// The scheme before the clock: the stable dt of the state at the frame's start, measured on
    /// the host, for every substep of the frame (`plan_frame`).
    FrameStart,
}

/// What a run of the collision measured, frame by frame.
struct Run {
    /// Largest |P − P₀| over the frames, relative to Σ m|v₀| (P₀ is zero by symmetry).
    linear: f64,
    /// Largest |L − L₀| over the frames, relative to |L₀| (about the domain's centre).
    angular: f64,
    /// Each frame's report.
    frames: Vec<FrameReport>,
    /// Smallest Jp reached.
    min_jp: f64,
}

fn run(gpu: &Gpu, scheme: Scheme, frames: u32) -> Run {
    let (params, particles) = collision();
    let mut solver = Solver::new(gpu, params, &particles).expect("solver");
    let c = Vector3::new(0.5, 0.5, 0.5);
    let (p0, l0) = (common::momentum(&particles), common::angular_momentum(&particles, H, c));
    let scale = particles.iter().map(|p| p.mass as f64 * common::vec3d(p.velocity).norm()).sum::<f64>();
    let mut out = Run { linear: 0.0, angular: 0.0, frames: Vec::new(), min_jp: 1.0 };
    for frame in 1..=frames {
        let span = 1.0 / FPS;
        let report = match scheme {
            Scheme::Clock => solver.step_frame(gpu, span, FrameStep::Auto { max_substeps: 20_000 }, None),
            Scheme::FrameStart => {
                let (stable, _) = solver.stable_dt(gpu, params.cfl).expect("stats");
                let (substeps, dt, _) = plan_frame(span, TimeStep::Auto, stable);
                solver.step_frame(gpu, span, FrameStep::Fixed { dt, substeps }, None)
            }
        }
        .expect("frame");
        let ps = solver.read_particles(gpu).expect("particles");
        let stats = solver.stats(gpu).expect("stats");
        let (dp, dl) = (
            (common::momentum(&ps) - p0).norm() / scale,
            (common::angular_momentum(&ps, H, c) - l0).norm() / l0.norm(),
        );
        let jp = ps.iter().map(|p| p.plastic_jacobian as f64).fold(1.0, f64::min);
        let wall = ps.iter().flat_map(|p| p.position).map(|x| x.min(1.0 - x) as f64).fold(1.0, f64::min);
        eprintln!(
            "{scheme:?} frame {frame}: {} substeps, dt/stable ≤ {:.3}, stable ≥ {:.2e} s, min Jp {jp:.3}, \
             max hardening {:.1}, max speed {:.2} m/s, nearest wall {:.1} cells: |ΔP|/Σm|v| = {dp:.2e}, |ΔL|/|L| = {dl:.2e}",
            report.substeps,
            report.max_ratio,
            report.min_stable_dt,
            stats.max_hardening,
            stats.max_speed,
            wall / H
        );
        // What the bounds below mean to check: nothing touched a wall, no particle was reset or
        // clamped (the speed clamp is at 50 m/s), so only the time step can move the momentum.
        assert!(wall > 4.0 * H, "the snow came within {:.1} cells of a wall", wall / H);
        if scheme == Scheme::Clock {
            assert_eq!((stats.nonfinite_count, stats.overflow_count), (0, 0));
            assert!(stats.max_speed < 0.5 * params.max_speed);
        }
        out.linear = out.linear.max(dp);
        out.angular = out.angular.max(dl);
        out.min_jp = out.min_jp.min(jp);
        out.frames.push(report);
    }
    out
}

/// Frames of the collision run: the impact (the first frame, where Jp falls from 1 to about 0.57
/// and the stable dt from 5.3e-4 to 7e-5 s) and one frame of the hardened snow.
const FRAMES: u32 = 2;

#[test]
fn colliding_snowballs_keep_their_momentum_when_each_substep_takes_its_stable_dt() {
    let gpu = common::gpu();
    let run = run(&gpu, Scheme::Clock, FRAMES);
    // The impact did what makes it hard: the snow compacted and hardened, and the stable dt fell
    // within a frame.
    assert!(run.min_jp < 0.8, "min Jp {}", run.min_jp);
    assert!(run.frames.iter().all(|f| f.max_ratio <= 1.0), "a substep past its stable dt");
    // Linear momentum: P2G's fixed point sums exactly and the grid update adds nothing without
    // gravity, walls or colliders, so only f32 rounding of P/M and of G2P's sums moves it; the bound
    // is the one asked of the solver, 1e-6 of Σ m|v|.
    assert!(run.linear <= 1e-6, "linear momentum drifted by {:.2e} of Σ m|v|", run.linear);
    // Angular momentum, APIC term included: the same roundings at lever arms up to 0.35 m, and the
    // f32 error of C in the spin term; 1e-4 of |L|.
    assert!(run.angular <= 1e-4, "angular momentum drifted by {:.2e} of |L|", run.angular);
}

#[test]
fn the_stable_dt_of_a_frames_start_is_not_enough_through_an_impact() {
    // The same collision stepped as before the clock: every substep of a frame at the stable dt of
    // its start. The clock reports those substeps past the stable dt of the state they stepped, and
    // the momentum bound of the test above fails: it can tell the two apart.
    let gpu = common::gpu();
    let run = run(&gpu, Scheme::FrameStart, 1);
    let worst = run.frames.iter().map(|f| f.max_ratio).fold(0.0, f64::max);
    assert!(worst > 1.5, "largest dt / stable dt {worst}");
    assert!(run.linear > 1e-6, "linear momentum drifted by only {:.2e}", run.linear);
}

/// A block of 512 particles in the middle of a 16³ grid without gravity, moving uniformly at 2 m/s
/// with F = I: no stress, so every substep's state is its start's up to rounding, and so is its
/// stable dt.
fn gliding_block(gpu: &Gpu) -> Solver {
    let mut params = common::params(16, 1.0 / 16.0, 1e-4);
    params.gravity = DVec3::ZERO;
    let particles = common::block(Vec3::splat(0.375), Vec3::splat(0.625), 1.0 / 16.0, 400.0, |_| Vec3::X * 2.0);
    Solver::new(gpu, params, &particles).expect("solver")
}

#[test]
fn auto_substeps_stay_within_the_stable_dt_and_a_fixed_dt_past_it_says_by_how_much() {
    let gpu = common::gpu();
    let mut solver = gliding_block(&gpu);
    // Auto: the frame of 1/60 s in equal substeps no longer than the stable dt (about 1e-3 s: 2 m/s
    // plus the P-wave speed of 19.7 m/s, over 0.4 h), so each is more than half of it.
    let (stable, _) = solver.stable_dt(&gpu, solver.params().cfl).expect("stats");
    let auto = solver.step_frame(&gpu, 1.0 / 60.0, FrameStep::Auto { max_substeps: 1000 }, None).expect("frame");
    eprintln!("stable dt {stable:.4e} s; auto frame {auto:?}");
    assert_eq!(auto.substeps as f64, (1.0 / 60.0 / stable).ceil());
    assert!(auto.max_ratio <= 1.0 && auto.max_ratio > 0.5, "auto: dt / stable dt {}", auto.max_ratio);
    // The host recorded more substeps than the frame took (a quarter more, plus one): those past its
    // end had every dispatch emptied, the gated ones by clock_gate and the sort-sized ones by
    // bin_dispatch, while the template stays for the next frame.
    let args: Vec<[u32; 4]> =
        bytemuck::pod_collect_to_vec(&gpu.read_buffer(&solver.pages()[0].indirect_args).expect("args"));
    let (live, template) = args.split_at(3 + record::GATED_ENTRIES as usize);
    assert!(live.iter().all(|a| a[0] * a[1] * a[2] == 0), "dispatches left on past the frame's end: {live:?}");
    assert!(template.iter().all(|a| a[0] * a[1] * a[2] > 0), "template {template:?}");
    // Fixed, three times the stable dt: it runs all four substeps as given, and the clock measures
    // each against the stable dt of the state it stepped. The GPU evaluates cfl·h/(|v| + c) in f32
    // (about six roundings, 4e-7) and the state drifts only by rounding (the velocity by ~1e-7 over
    // the four substeps, weighed by |v|/(|v| + c) = 0.09), against the host's f64 stable dt of the
    // same state: 1e-5 relative is ten times that.
    let (stable, _) = solver.stable_dt(&gpu, solver.params().cfl).expect("stats");
    let dt = 3.0 * stable;
    let fixed = solver.step_frame(&gpu, 4.0 * dt, FrameStep::Fixed { dt, substeps: 4 }, None).expect("frame");
    eprintln!("fixed frame {fixed:?}");
    assert_eq!(fixed.substeps, 4);
    assert!((fixed.time / (4.0 * dt) - 1.0).abs() < 1e-6, "covered {} s", fixed.time);
    assert!((fixed.max_ratio / 3.0 - 1.0).abs() <= 1e-5, "fixed 3× the stable dt: ratio {}", fixed.max_ratio);
    assert!(!fixed.capped);
}
