//! Shared helpers of the GPU tests: a Vulkan device (lavapipe on machines without a GPU) and small
//! scenes built by hand.

#![allow(dead_code)] // Each test binary uses a different subset of these helpers.

pub mod incline;
pub mod layout;
pub mod offscreen;
pub mod water;
pub mod xvfb;

/// A small scene: a 0.2 m snowball thrown at 3 m/s in a 0.5 m box at resolution 16.
pub const SMALL_SCENE: &str = r#"{
  "version": 1,
  "domain": { "size": [0.5, 0.5, 0.5] },
  "grid": { "resolution": 16 },
  "time": { "fps": 60 },
  "emitters": [ { "shape": "sphere", "center": [0.25, 0.25, 0.2], "radius": 0.1, "velocity": [3, 0, 0] } ]
}"#;

use glam::{DVec3, UVec3, Vec3};
use powder::gpu::Gpu;
use powder::sim::fixed_point::FixedPoint;
use powder::sim::interaction::Interaction;
use powder::sim::material::SnowMaterial;
use powder::sim::params::{Boundary, BoundaryKind, GpuParticle, GridSpec, PageUniforms, SolverParams};

/// A device on the Vulkan backend. Fails loudly if wgpu picked anything else, so a silent fallback
/// (e.g. to GL) cannot make the GPU tests pass on the wrong driver.
pub fn gpu() -> Gpu {
    let gpu = Gpu::new_headless().expect("a Vulkan adapter (lavapipe on CI)");
    assert_eq!(gpu.info.backend, wgpu::Backend::Vulkan, "tests must run on Vulkan, got {}", gpu.describe());
    gpu
}

/// Solver parameters for a cube domain of `cells`³ cells of edge `h` starting at the origin.
pub fn params(cells: u32, h: f64, dt: f64) -> SolverParams {
    let material = SnowMaterial::default();
    let max_speed = 50.0;
    SolverParams {
        grid: GridSpec { domain_min: DVec3::ZERO, cell_size: h, cells: UVec3::splat(cells) },
        material,
        emitter_materials: Default::default(),
        gravity: DVec3::new(0.0, 0.0, -9.81),
        dt,
        cfl: 0.4,
        boundary: Boundary { kind: BoundaryKind::Separate, friction: 0.0 },
        max_speed,
        fixed_point: FixedPoint::for_scene(material.density, h, max_speed),
    }
}

/// Particles on a lattice of spacing `h/2` (8 per cell) filling the box `[lo, hi)`, each with the
/// mass and volume of its lattice cell at `density`.
pub fn block(lo: Vec3, hi: Vec3, h: f32, density: f32, velocity: impl Fn(Vec3) -> Vec3) -> Vec<GpuParticle> {
    lattice(lo, hi, h, density, |x| Some(velocity(x)))
}

/// [`block`]'s lattice, keeping the lattice points `keep` gives a velocity.
pub fn lattice(lo: Vec3, hi: Vec3, h: f32, density: f32, keep: impl Fn(Vec3) -> Option<Vec3>) -> Vec<GpuParticle> {
    let s = 0.5 * h;
    let volume = s * s * s;
    let n = ((hi - lo) / s).round().as_uvec3();
    let mut out = Vec::new();
    for k in 0..n.z {
        for j in 0..n.y {
            for i in 0..n.x {
                let x = lo + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s;
                if let Some(v) = keep(x) {
                    out.push(GpuParticle::new(x, v, density * volume, volume, 0));
                }
            }
        }
    }
    out
}

/// Column `c` of a particle matrix as a Vec3.
pub fn column(m: &[[f32; 4]; 3], c: usize) -> Vec3 {
    Vec3::new(m[c][0], m[c][1], m[c][2])
}

/// The matrix as glam's Mat3.
pub fn mat3(m: &[[f32; 4]; 3]) -> glam::Mat3 {
    glam::Mat3::from_cols(column(m, 0), column(m, 1), column(m, 2))
}

/// Writes a glam Mat3 into the padded GPU layout.
pub fn padded(m: glam::Mat3) -> [[f32; 4]; 3] {
    let c = m.to_cols_array_2d();
    [[c[0][0], c[0][1], c[0][2], 0.0], [c[1][0], c[1][1], c[1][2], 0.0], [c[2][0], c[2][1], c[2][2], 0.0]]
}

// ---- Helpers of the GPU-vs-CPU, conservation, plasticity and robustness tests. ----

/// The fixed-point scales exactly as the GPU uses them (the f64 scales rounded to f32), widened:
/// (mass units per kg, momentum units per kg·m/s).
pub fn gpu_scales(params: &SolverParams) -> (f64, f64) {
    let g = params.to_gpu(&PageUniforms { particle_count: 1, ..Default::default() }, &Interaction::default());
    (g.mass_scale as f64, g.momentum_scale as f64)
}

/// The fixed-point grid converted to SI with the GPU's scales: (node mass kg, node momentum kg·m/s).
pub fn grid_from_fixed(params: &SolverParams, fixed: &[[i64; 4]]) -> (Vec<f64>, Vec<nalgebra::Vector3<f64>>) {
    let (ms, ps) = gpu_scales(params);
    let mass = fixed.iter().map(|n| n[0] as f64 / ms).collect();
    let momentum = fixed.iter().map(|n| nalgebra::Vector3::new(n[1] as f64, n[2] as f64, n[3] as f64) / ps).collect();
    (mass, momentum)
}

/// An f32 triple as an f64 nalgebra vector.
pub fn vec3d(a: [f32; 3]) -> nalgebra::Vector3<f64> {
    nalgebra::Vector3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

/// A padded GPU matrix as an f64 nalgebra matrix.
pub fn mat3d(m: &[[f32; 4]; 3]) -> nalgebra::Matrix3<f64> {
    nalgebra::Matrix3::from_fn(|r, c| m[c][r] as f64)
}

/// An f64 nalgebra matrix in the padded GPU layout.
pub fn padded_d(m: &nalgebra::Matrix3<f64>) -> [[f32; 4]; 3] {
    let col = |c: usize| [m[(0, c)] as f32, m[(1, c)] as f32, m[(2, c)] as f32, 0.0];
    [col(0), col(1), col(2)]
}

/// Whether position, velocity, C, F and Jp of a particle are all finite.
pub fn particle_is_finite(p: &GpuParticle) -> bool {
    let m = |m: &[[f32; 4]; 3]| m.iter().flatten().all(|x| x.is_finite());
    p.position.iter().chain(&p.velocity).all(|x| x.is_finite())
        && m(&p.affine)
        && m(&p.deformation)
        && p.plastic_jacobian.is_finite()
}

/// Whether a particle lies in the closed domain box.
pub fn inside_domain(params: &SolverParams, p: &GpuParticle) -> bool {
    let (lo, hi) = (params.grid.domain_min.as_vec3(), params.grid.domain_max().as_vec3());
    (0..3).all(|a| p.position[a] >= lo[a] && p.position[a] <= hi[a])
}

/// Total linear momentum `Σ m v`.
pub fn momentum(ps: &[GpuParticle]) -> nalgebra::Vector3<f64> {
    ps.iter().map(|p| p.mass as f64 * vec3d(p.velocity)).sum()
}

/// Angular momentum about `c`, APIC spin included (`CpuSolver::total_angular_momentum` explains
/// it): `Σ (x − c) × m v + m h²/4 (C_zy − C_yz, C_xz − C_zx, C_yx − C_xy)`, `h` the cell size.
pub fn angular_momentum(ps: &[GpuParticle], h: f64, c: nalgebra::Vector3<f64>) -> nalgebra::Vector3<f64> {
    ps.iter()
        .map(|p| {
            let m = p.mass as f64;
            let a = mat3d(&p.affine);
            let spin = nalgebra::Vector3::new(a[(2, 1)] - a[(1, 2)], a[(0, 2)] - a[(2, 0)], a[(1, 0)] - a[(0, 1)]);
            (vec3d(p.position) - c).cross(&(m * vec3d(p.velocity))) + m * h * h / 4.0 * spin
        })
        .sum()
}

/// Total kinetic energy ½ Σ m |v|², J.
pub fn kinetic_energy(particles: &[GpuParticle]) -> f64 {
    particles.iter().map(|p| 0.5 * p.mass as f64 * vec3d(p.velocity).norm_squared()).sum()
}

/// Mean of `f` over the particles.
pub fn mean(particles: &[GpuParticle], f: impl Fn(&GpuParticle) -> f64) -> f64 {
    particles.iter().map(f).sum::<f64>() / particles.len() as f64
}

/// The quadratic B-spline stencil of a particle at `x`, in f64 on the host (docs/algorithm.md, p2g
/// steps 1–2): `(flat node index, weight w, offset d = node − particle in metres)` for the 27 nodes.
pub fn stencil(params: &SolverParams, x: nalgebra::Vector3<f64>) -> Vec<(usize, f64, nalgebra::Vector3<f64>)> {
    let spec = &params.grid;
    let h = spec.cell_size;
    let o = spec.grid_origin();
    let xg = (x - nalgebra::Vector3::new(o.x, o.y, o.z)) / h;
    let base = xg.map(|c| (c - 0.5).floor());
    let f = xg - base;
    let w = |a: usize| [0.5 * (1.5 - f[a]).powi(2), 0.75 - (f[a] - 1.0).powi(2), 0.5 * (f[a] - 0.5).powi(2)];
    let weights = [w(0), w(1), w(2)];
    (0..27usize)
        .map(|n| {
            let o = [n % 3, n / 3 % 3, n / 9];
            let node = [0, 1, 2].map(|a| base[a] as u32 + o[a] as u32);
            let d = (nalgebra::Vector3::new(o[0] as f64, o[1] as f64, o[2] as f64) - f) * h;
            let weight = weights[0][o[0]] * weights[1][o[1]] * weights[2][o[2]];
            (spec.node_index(node[0], node[1], node[2]), weight, d)
        })
        .collect()
}

/// Checks that `solver`'s substeps so far ran on `path`, from a trace only that path leaves: the
/// sort's placed-particle count is every particle after a sorted stage and stays 0 (the buffer's
/// initial zeros) while only naive stages ran. So a `set_path` that did nothing fails the tests
/// that compare or parametrise the paths.
pub fn assert_ran_on(gpu: &Gpu, solver: &powder::sim::Solver, path: powder::sim::sort::bins::SolverPath) {
    let headers = solver.read_bin_headers(gpu).expect("bin headers");
    let placed: u32 = headers.iter().map(|h| h.particle_total).sum();
    let expected = match path {
        powder::sim::sort::bins::SolverPath::Naive => 0,
        powder::sim::sort::bins::SolverPath::Sorted | powder::sim::sort::bins::SolverPath::Fused => {
            solver.particle_count()
        }
    };
    assert_eq!(placed, expected, "the solver did not run on the {} path", path.name());
}

/// What the renderer needs for a frame of `solver`'s first `count` particles drawn at `radius`
/// (metres) over its domain; the volume is splatted afresh (`moved: None`).
pub fn frame_inputs<'a>(
    solver: &'a powder::sim::Solver,
    camera: &'a powder::render::Camera,
    settings: &'a powder::render::RenderSettings,
    count: u32,
    radius: f32,
) -> powder::render::FrameInputs<'a> {
    let grid = &solver.params().grid;
    powder::render::FrameInputs {
        camera,
        settings,
        particles: solver.particle_pages(),
        particle_count: count,
        particle_radius: radius,
        domain_min: grid.domain_min.as_vec3(),
        domain_max: grid.domain_max().as_vec3(),
        moved: None,
    }
}

/// Two blocks of snow on the 32-cell unit grid (cell edge 1/32, 8 particles per cell), in lattice
/// order (z slowest), with C and F drawn from `seed` past the yield limits: first a cube of 10³ =
/// 1,000 particles falling at x ≈ 0.7, then, far from it, a slab of 14 × 14 × 9 = 1,764 moving and
/// spinning toward the floor and the x = 0 wall. Their grid blocks differ (the paged and sparse
/// grid tests rely on it): a pass that visited one block's nodes only would leave the other's out.
pub fn two_blocks(seed: u64) -> Vec<GpuParticle> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let h = 1.0 / 32.0;
    let s = 0.5 * h;
    let cube = Vec3::new(0.6, 0.1, 0.05);
    let mut ps = block(cube, cube + 10.0 * s, h, 400.0, |_| Vec3::new(0.5, 1.0, -1.0));
    let slab = Vec3::new(0.05, 0.3, 0.05);
    ps.extend(block(slab, slab + Vec3::new(14.0, 14.0, 9.0) * s, h, 400.0, |x| {
        Vec3::new(-1.0, 0.5, -2.0) + Vec3::new(0.0, 6.0, 0.0).cross(x - Vec3::splat(0.15))
    }));
    assert_eq!(ps.len(), 2764);
    for p in &mut ps {
        let mut noise = |s: f32| glam::Mat3::from_cols_array(&std::array::from_fn(|_| rng.random_range(-s..s)));
        p.affine = padded(noise(5.0));
        p.deformation = padded(glam::Mat3::IDENTITY + noise(0.03));
    }
    ps
}

/// A slip floor (μ 0.3) tilted 20° about x through (0.5, 0.5, 0.1), at rest, as collider frames on
/// `params`' grid: it cuts through the bottom of [`two_blocks`]' slab.
pub fn ramp(params: &SolverParams) -> powder::collider::field::ColliderFrames {
    use powder::collider::field::{ColliderField, ColliderFrames};
    use powder::collider::shapes::{AnalyticShape, RigidPose, analytic_sdf};
    let pose = RigidPose::at_rest(Vec3::new(0.5, 0.5, 0.1), glam::Quat::from_rotation_x(20f32.to_radians()));
    let sdf = analytic_sdf(AnalyticShape::HalfSpace, &pose, &params.grid);
    let mut field = ColliderField::empty(params.grid.node_count() as usize);
    field.add(0, &sdf.distance, &sdf.normal, &sdf.velocity);
    ColliderFrames {
        from: field.clone(),
        to: field,
        surfaces: vec![Boundary { kind: BoundaryKind::Slip, friction: 0.3 }],
    }
}

/// Angular momentum of the PB-MPM twin's particles about `c`, APIC spin included, in f64:
/// `Σ (x − c) × m v + m h²/4 (C_zy − C_yz, C_xz − C_zx, C_yx − C_xy)` ([`angular_momentum`] explains
/// the spin term).
pub fn pbmpm_angular_momentum(
    s: &powder::sim::pbmpm::cpu::PbmpmCpu,
    c: nalgebra::Vector3<f64>,
) -> nalgebra::Vector3<f64> {
    let h = s.params.grid.cell_size;
    s.particles
        .iter()
        .map(|p| {
            let a = &p.affine;
            let spin = nalgebra::Vector3::new(a[(2, 1)] - a[(1, 2)], a[(0, 2)] - a[(2, 0)], a[(1, 0)] - a[(0, 1)]);
            (p.position - c).cross(&(p.mass * p.velocity)) + p.mass * h * h / 4.0 * spin
        })
        .sum()
}

/// Two blocks of reference snow thrown at each other at 2 m/s, 2 cm off-centre, in zero gravity
/// on a 16-cell box of `h` = 1/16 m, never reaching a wall: `(params, particles, h)`. The PB-MPM
/// GPU tests check momentum through this collision under both solves.
pub fn colliding_blocks() -> (SolverParams, Vec<GpuParticle>, f64) {
    let h = 1.0 / 16.0;
    let mut params = params(16, h, 1e-3);
    params.gravity = DVec3::ZERO;
    let mut particles =
        block(Vec3::new(0.25, 0.4, 0.4), Vec3::new(0.45, 0.6, 0.6), h as f32, 400.0, |_| Vec3::new(2.0, 0.0, 0.0));
    particles.extend(block(Vec3::new(0.55, 0.42, 0.4), Vec3::new(0.75, 0.62, 0.6), h as f32, 400.0, |_| {
        Vec3::new(-2.0, 0.3, 0.0)
    }));
    (params, particles, h)
}

/// How far `after` drifted from [`colliding_blocks`]' `before`: linear momentum relative to
/// Σ m|v| and angular momentum (APIC spin included) about the box's middle relative to
/// Σ m |x − c| |v|, both with the blocks' 2 m/s.
pub fn collision_drifts(before: &[GpuParticle], after: &[GpuParticle], h: f64) -> (f64, f64) {
    let c = nalgebra::Vector3::new(0.5, 0.5, 0.5);
    let scale: f64 = before.iter().map(|p| p.mass as f64 * 2.0).sum();
    let spin_scale: f64 = before.iter().map(|p| p.mass as f64 * (vec3d(p.position) - c).norm() * 2.0).sum();
    let linear = (momentum(after) - momentum(before)).norm() / scale;
    let spin = (angular_momentum(after, h, c) - angular_momentum(before, h, c)).norm() / spin_scale;
    (linear, spin)
}

/// The largest distance between the particles of `a` and `b` in order, metres.
pub fn worst_distance(a: &[GpuParticle], b: &[GpuParticle]) -> f64 {
    a.iter().zip(b).map(|(p, q)| (Vec3::from(p.position) - Vec3::from(q.position)).length() as f64).fold(0.0, f64::max)
}

/// A block of `material` (at its density) falling at 1 m/s onto the floor of the 16-cell box of
/// cell edge 1/16 m, each particle's F = I ± 0.03 from a fixed pattern of its index (not a random
/// generator), with substeps of `dt`: the scene on which the material tests hold a return
/// mapping on the GPU to its twin.
pub fn perturbed_drop(material: SnowMaterial, dt: f64) -> (SolverParams, Vec<GpuParticle>) {
    let h = 1.0 / 16.0;
    let mut params = params(16, h, dt);
    params.material = material;
    params.fixed_point = FixedPoint::for_scene(material.density, h, params.max_speed);
    let (lo, hi) = (Vec3::new(0.3, 0.3, 0.02), Vec3::new(0.55, 0.55, 0.27));
    let mut particles = block(lo, hi, h as f32, material.density as f32, |_| Vec3::new(0.0, 0.0, -1.0));
    for (i, p) in particles.iter_mut().enumerate() {
        let n = |k: usize| ((((i * 7 + k * 13) % 17) as f32) / 16.0 - 0.5) * 0.06;
        p.deformation = padded(glam::Mat3::from_cols_array(&std::array::from_fn(n)) + glam::Mat3::IDENTITY);
    }
    (params, particles)
}

/// `steps` explicit substeps of `particles` on the GPU and on the f64 twin: the GPU's particles
/// read back, and the twin.
pub fn gpu_and_twin(
    gpu: &Gpu,
    params: SolverParams,
    particles: &[GpuParticle],
    steps: u32,
) -> (Vec<GpuParticle>, powder::sim::cpu::CpuSolver) {
    let solver = powder::sim::Solver::new(gpu, params, particles).expect("solver");
    solver.step(gpu, steps);
    let out = solver.read_particles(gpu).expect("particles");
    let mut cpu = powder::sim::cpu::CpuSolver::new(params, particles);
    for _ in 0..steps {
        cpu.substep();
    }
    (out, cpu)
}

/// The period of a ringing signal sampled every `dt` seconds: the mean spacing of its downward
/// crossings of its own mean, each placed between its two samples by linear interpolation.
/// Panics unless it swings back at least once.
pub fn crossing_period(series: &[f64], dt: f64) -> f64 {
    let mean = series.iter().sum::<f64>() / series.len() as f64;
    let crossings: Vec<f64> = (1..series.len())
        .filter_map(|i| {
            let (a, b) = (series[i - 1] - mean, series[i] - mean);
            (a > 0.0 && b <= 0.0).then(|| (i as f64 + a / (a - b)) * dt)
        })
        .collect();
    assert!(crossings.len() >= 2, "it did not swing back: {crossings:?}");
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

/// A sticky half-space below z = `height`, as collider frames on `params`' grid: a floor that
/// holds what rests on it (no slip), for tests whose domain walls must slip without friction.
pub fn sticky_floor(params: &SolverParams, height: f64) -> powder::collider::field::ColliderFrames {
    use powder::collider::field::{ColliderField, ColliderFrames};
    use powder::collider::shapes::{AnalyticShape, RigidPose, analytic_sdf};
    let pose = RigidPose::at_rest(Vec3::new(0.0, 0.0, height as f32), glam::Quat::IDENTITY);
    let sdf = analytic_sdf(AnalyticShape::HalfSpace, &pose, &params.grid);
    let mut field = ColliderField::empty(params.grid.node_count() as usize);
    field.add(0, &sdf.distance, &sdf.normal, &sdf.velocity);
    let sticky = Boundary { kind: BoundaryKind::Sticky, friction: 0.0 };
    ColliderFrames { from: field.clone(), to: field, surfaces: vec![sticky] }
}

/// Runs the `powder` binary with `args`.
pub fn powder_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_powder")).args(args).output().expect("the powder binary runs")
}

/// `out`, once it is known to have succeeded (its stderr shown if not).
pub fn succeeded(out: std::process::Output) -> std::process::Output {
    assert!(out.status.success(), "powder failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The explicit twin of scene `json` (named `name`) at a fixed step `dt`, inside walls that slip
/// without friction, and the schedule of its pouring emitters.
pub fn pouring_twin(json: &str, name: &str, dt: f64) -> (powder::sim::cpu::CpuSolver, powder::scene::PourSchedule) {
    let scene = powder::scene::Scene::from_json(json, name).expect("scene");
    let schedule = scene.pour_schedule(name).expect("schedule");
    let mut params = scene.solver_params();
    params.dt = dt;
    params.boundary = Boundary { kind: BoundaryKind::Slip, friction: 0.0 };
    (powder::sim::cpu::CpuSolver::new(params, &scene.spawn_particles().expect("particles")), schedule)
}

/// Steps `frames` frames of 0.02 s at the twin's dt, each frame's poured batches joining at its
/// end, as a bake adds them.
pub fn pour_frames(s: &mut powder::sim::cpu::CpuSolver, schedule: &powder::scene::PourSchedule, frames: u32) {
    let frame = 0.02;
    let substeps = (frame / s.params.dt).round() as u32;
    for f in 0..frames {
        let (t0, t1) = (f as f64 * frame, (f + 1) as f64 * frame);
        s.step_frame(substeps);
        s.particles.extend(schedule.born_between(t0, t1).iter().map(powder::sim::cpu::particle::CpuParticle::from_gpu));
    }
}

/// `steps` PB-MPM steps of `dt` seconds under `settings` on the f64 twin (step k seeing the
/// colliders `(k + 1)/steps` of the way): its particles in the GPU's layout.
pub fn pbmpm_twin(
    params: SolverParams,
    particles: &[GpuParticle],
    settings: powder::sim::pbmpm::PbmpmSettings,
    steps: u32,
    dt: f64,
) -> Vec<GpuParticle> {
    let mut twin = powder::sim::pbmpm::cpu::PbmpmCpu::new(params, settings, particles).expect("twin");
    for k in 0..steps {
        twin.collider_blend = (k + 1) as f64 / steps as f64;
        twin.step(dt);
    }
    twin.gpu_particles()
}

/// The same steps on the GPU and on the twin ([`pbmpm_twin`]): the GPU's particles read back, and
/// the twin's.
pub fn pbmpm_gpu_and_twin(
    gpu: &Gpu,
    params: SolverParams,
    particles: &[GpuParticle],
    settings: powder::sim::pbmpm::PbmpmSettings,
    steps: u32,
    dt: f64,
) -> (Vec<GpuParticle>, Vec<GpuParticle>) {
    use powder::sim::integrator::Integrator;
    use powder::sim::solver::SolverOptions;
    let options = SolverOptions { integrator: Integrator::Pbmpm(settings), ..Default::default() };
    let solver = powder::sim::Solver::with_options(gpu, params, particles, options).expect("solver");
    solver.step_pbmpm(gpu, steps, dt);
    (solver.read_particles(gpu).expect("particles"), pbmpm_twin(params, particles, settings, steps, dt))
}
