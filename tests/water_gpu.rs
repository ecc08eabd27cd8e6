//! The water step on the GPU (`powder::sim::water::gpu`, lavapipe on machines without a GPU)
//! against its f64 twin (`powder::sim::water::cpu`): the same steps from the same particles, and
//! water at rest staying at rest with hydrostatic pressure.
//!
//! Run with `--nocapture` to see the measured numbers.

mod common;

use nalgebra::Vector3;
use powder::sim::pressure::Preconditioner;
use powder::sim::water::cpu::{WaterCpu, WaterParticle};
use powder::sim::water::gpu::WaterGpu;
use powder::sim::water::{Transfer, WaterSettings};

use common::water::{G, fill};

/// The largest distance between the GPU's particles and the twin's, and the largest velocity
/// difference.
fn apart(gpu: &[WaterParticle], twin: &[WaterParticle]) -> (f64, f64) {
    gpu.iter().zip(twin).fold((0.0, 0.0), |(x, v), (g, t)| {
        (f64::max(x, (g.position - t.position).norm()), f64::max(v, (g.velocity - t.velocity).norm()))
    })
}

/// A dam of 6 by 12 cells breaking in a tank 16 cells long, 2 wide and 16 high (cells of
/// 1/32 m), 12 steps of 1/120 s on both, for each transfer and with every preconditioner.
#[test]
fn the_gpu_step_follows_the_twin() {
    let gpu = common::gpu();
    let (cells, h) = ([16, 2, 16], 1.0 / 32.0);
    let particles = fill(cells, h, |x, z| x < 6.0 * h && z < 12.0 * h);
    let cases = [
        (Transfer::Apic, Preconditioner::Multigrid),
        (Transfer::PicFlip { ratio: 0.95 }, Preconditioner::Multigrid),
        (Transfer::Apic, Preconditioner::None),
        (Transfer::Apic, Preconditioner::Jacobi),
        (Transfer::Apic, Preconditioner::IncompletePoisson),
        (Transfer::Apic, Preconditioner::Mic0),
    ];
    for (transfer, preconditioner) in cases {
        let mut settings = WaterSettings { transfer, ..Default::default() };
        settings.pressure.preconditioner = preconditioner;
        // Every pass of the cap's iterations is recorded (those after convergence return at once,
        // but lavapipe still pays each dispatch): 60 covers the slowest here (39, no
        // preconditioner).
        settings.pressure.max_iterations = 60;
        let gravity = Vector3::new(0.0, 0.0, -G);
        let mut twin = WaterCpu::new(cells, h, gravity, settings, particles.clone());
        let mut water = WaterGpu::new(&gpu, cells, h, gravity, settings, &particles);
        let (steps, dt) = (12, 1.0 / 120.0);
        for _ in 0..steps {
            twin.step(dt);
        }
        water.advance_steps(&gpu, steps, dt);
        let moved = water.read_particles(&gpu).expect("read back");
        let (dx, dv) = apart(&moved, &twin.particles);
        let fastest = twin.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
        let solve = water.last_solve(&gpu).expect("read back");
        let report = twin.last_solve.as_ref().expect("a solve");
        eprintln!(
            "{transfer:?}, {preconditioner:?}: after {steps} steps particles {:.2e} cells and {:.2e} of the \
             fastest speed ({fastest:.3} m/s) apart; last solve GPU {} iterations, twin {}; GPU fastest {:.4}",
            dx / h,
            dv / fastest,
            solve.iterations,
            report.iterations,
            water.fastest(&gpu).expect("read back"),
        );
        // Measured 6.6e-6 to 8.3e-6 cells and 3.9e-6 to 6.2e-6 of the speed (f32 against f64,
        // and fixed-point face sums of 2⁻²⁰): 1e-4 is ten times that.
        assert!(dx < 1e-4 * h, "{transfer:?} {preconditioner:?}: positions {dx} m apart");
        assert!(dv < 1e-4 * fastest, "{transfer:?} {preconditioner:?}: velocities {dv} m/s apart");
        assert!(solve.iterations.abs_diff(report.iterations) <= 1, "{solve:?} against {report:?}");
        let gpu_fastest = water.fastest(&gpu).expect("read back");
        assert!((gpu_fastest - fastest).abs() < 1e-4 * fastest, "fastest {gpu_fastest} against {fastest}");
    }
}

/// The twin's still tank (`tests/water.rs`) on the GPU: 16 × 2 cells of 1/64 m, water 0.5 m deep
/// at rest for 2 s in steps of 1/60 s (the CFL limit never binds at rest), the default settings
/// (APIC, multigrid to 1e-6, the volume correction) but for the iteration cap.
#[test]
fn water_at_rest_on_the_gpu_stays_at_rest_with_hydrostatic_pressure() {
    let gpu = common::gpu();
    let (cells, h, depth) = ([16, 2, 48], 1.0 / 64.0, 0.5);
    let particles = fill(cells, h, |_, z| z < depth);
    let gravity = Vector3::new(0.0, 0.0, -G);
    let mut settings = WaterSettings::default();
    // The multigrid takes about 12 iterations here; a cap of 40 records fewer idle passes.
    settings.pressure.max_iterations = 40;
    let mut water = WaterGpu::new(&gpu, cells, h, gravity, settings, &particles);
    water.advance_steps(&gpu, 120, 1.0 / 60.0);
    let moved = water.read_particles(&gpu).expect("read back");
    let fastest = moved.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
    let (low, high) = (0..cells[0])
        .map(|i| {
            let column = moved.iter().filter(|p| ((p.position.x / h) as usize).min(cells[0] - 1) == i);
            column.map(|p| p.position.z).fold(f64::MIN, f64::max)
        })
        .fold((f64::MAX, f64::MIN), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let pressure = water.read_pressure(&gpu).expect("read back");
    let dims = cells.map(|c| c + 2);
    let expected = 1000.0 * G * (depth - 0.5 * h);
    let worst = (1..=cells[0])
        .flat_map(|i| (1..=cells[1]).map(move |j| i + dims[0] * (j + dims[1])))
        .map(|c| (pressure[c] as f64 - expected).abs() / expected)
        .fold(0.0, f64::max);
    let solve = water.last_solve(&gpu).expect("read back");
    eprintln!(
        "after 2 s on the GPU: fastest particle {fastest:.2e} m/s, surface between {low:.4} and {high:.4} m, bottom \
         pressure worst {:.2} % off ρgh, last solve {} iterations to {:.1e}",
        100.0 * worst,
        solve.iterations,
        (solve.rr / solve.bb).sqrt()
    );
    // The targets, as on the twin: 1 mm/s, flat within a cell, ρgh within 2 % (the twin
    // measures 1.6 %: the free surface's zero sits half a cell above the water).
    assert!(fastest < 1e-3, "fastest particle {fastest} m/s");
    assert!(high - low < h, "surface between {low} and {high} m");
    assert!(worst < 0.02, "bottom pressure off by {worst}");
    // Each projection starts from the last one's pressure: still water needs 3 iterations where a
    // solve from zero takes 12 (a warm start not taken fails this).
    assert!(solve.iterations <= 6, "{solve:?}");
}

/// The solver stepping a water scene (`Integrator::Flip`: the water step over the solver's own
/// particle streams and grid) as the twin does, with the domain's corner away from the origin:
/// a dam of 4 by 8 cells in a box of 12³ cells of 1/24 m whose corner is at (0.3, −0.2, 0.1) m,
/// 10 steps of 1/120 s, each particle's mass and volume (the streams' w words) untouched.
#[test]
fn the_solver_steps_water_as_the_twin_does() {
    use powder::sim::integrator::Integrator;
    use powder::sim::params::GpuParticle;
    use powder::sim::solver::SolverOptions;
    let gpu = common::gpu();
    let (n, h, dt, steps) = (12usize, 1.0 / 24.0, 1.0 / 120.0, 10);
    let corner = Vector3::new(0.3, -0.2, 0.1);
    let mut params = common::params(n as u32, h, dt);
    params.grid.domain_min = glam::DVec3::new(corner.x, corner.y, corner.z);
    let settings = WaterSettings::default();
    let particles = fill([n, n, n], h, |x, z| x < 4.0 * h && z < 8.0 * h);
    let uploaded: Vec<GpuParticle> = particles
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let x = p.position + corner;
            let at = glam::Vec3::new(x.x as f32, x.y as f32, x.z as f32);
            GpuParticle::new(at, glam::Vec3::ZERO, 1.0 + i as f32, 2.0 + i as f32, 0)
        })
        .collect();
    let options = SolverOptions { integrator: Integrator::Flip(settings), ..Default::default() };
    let solver = powder::sim::Solver::with_options(&gpu, params, &uploaded, options).expect("a solver");
    solver.step(&gpu, steps);
    let moved = solver.read_particles(&gpu).expect("read back");
    let mut twin = WaterCpu::new([n, n, n], h, Vector3::new(0.0, 0.0, -G), settings, particles);
    for _ in 0..steps {
        twin.step(dt);
    }
    let (mut dx, mut dv, mut kept) = (0.0f64, 0.0f64, true);
    for (i, (g, t)) in moved.iter().zip(&twin.particles).enumerate() {
        let x = Vector3::new(g.position[0] as f64, g.position[1] as f64, g.position[2] as f64) - corner;
        let v = Vector3::new(g.velocity[0] as f64, g.velocity[1] as f64, g.velocity[2] as f64);
        dx = dx.max((x - t.position).norm());
        dv = dv.max((v - t.velocity).norm());
        kept &= g.mass == 1.0 + i as f32 && g.volume == 2.0 + i as f32;
    }
    let fastest = twin.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
    eprintln!(
        "the solver's water after {steps} steps: {:.2e} cells and {:.2e} of the fastest speed ({fastest:.3} m/s) from \
         the twin; last frame's solves {:?}",
        dx / h,
        dv / fastest,
        solver.water_status()
    );
    assert_eq!(moved.len(), twin.particles.len());
    assert!(kept, "a particle's mass or volume changed");
    // As the standalone step (measured below 1e-5 cells there); positions far from the origin
    // carry f32's rounding of the corner's offset, about 3e-8 m.
    assert!(dx < 1e-4 * h, "positions {dx} m apart");
    assert!(dv < 1e-4 * fastest, "velocities {dv} m/s apart");
}

/// A ball of radius 0.1 m centred at `centre` in a tank of n³ cells of `h` m, as a collider's
/// signed distance at the grid's corners (corner n at (n − 1) h).
fn ball(n: usize, h: f64, centre: Vector3<f64>) -> powder::sim::pressure::cells::PressureCells {
    let distance = move |c: [usize; 3]| {
        let p = Vector3::new(c[0] as f64 - 1.0, c[1] as f64 - 1.0, c[2] as f64 - 1.0) * h;
        (p - centre).norm() - 0.1
    };
    powder::sim::water::solids::cells_with_solids([n, n, n], Some(&distance))
}

/// Water around a collider on the GPU as on the twin: a dam of 4 by 8 cells breaking against
/// the ball above (its cells solid, the faces it cuts partly open), 12 steps of 1/120 s.
#[test]
fn water_meets_a_collider_on_the_gpu_as_on_the_twin() {
    let gpu = common::gpu();
    let (n, h, dt, steps) = (12usize, 1.0 / 24.0, 1.0 / 120.0, 12);
    let solids = ball(n, h, Vector3::new(0.3, 0.25, 0.0));
    let solid_cells = solids.kind.iter().filter(|k| **k == powder::sim::pressure::cells::CellKind::Solid).count();
    let cut = solids.open.iter().flatten().filter(|f| **f > 0.0 && **f < 1.0).count();
    let particles = fill([n, n, n], h, |x, z| x < 4.0 * h && z < 8.0 * h);
    let mut settings = WaterSettings::default();
    settings.pressure.max_iterations = 40;
    let gravity = Vector3::new(0.0, 0.0, -G);
    let mut twin = WaterCpu::new([n, n, n], h, gravity, settings, particles.clone()).with_solids(solids.clone());
    let mut water = WaterGpu::with_solids(&gpu, [n, n, n], h, gravity, settings, &particles, &solids);
    for _ in 0..steps {
        twin.step(dt);
    }
    water.advance_steps(&gpu, steps, dt);
    let moved = water.read_particles(&gpu).expect("read back");
    let (dx, dv) = apart(&moved, &twin.particles);
    let fastest = twin.particles.iter().map(|p| p.velocity.norm()).fold(0.0, f64::max);
    // Inside the ball's cells no particle should be.
    let inside = twin.particles.iter().filter(|p| (p.position - Vector3::new(0.3, 0.25, 0.0)).norm() < 0.07).count();
    eprintln!(
        "a dam against a ball ({} solid cells with the box's walls, {cut} faces cut): after {steps} steps GPU and \
         twin {:.2e} cells and {:.2e} of the fastest speed ({fastest:.3} m/s) apart; {inside} particles deep in \
         the ball",
        solid_cells,
        dx / h,
        dv / fastest
    );
    assert!(cut > 0, "the ball cuts faces");
    assert!(dx < 1e-4 * h, "positions {dx} m apart");
    assert!(dv < 1e-4 * fastest, "velocities {dv} m/s apart");
}

/// The projection leaves the liquid without divergence, to the solve's tolerance: water 0.4 m
/// deep at rest around a submerged ball (0.1 m radius, its centre 0.2 m up, in the tank of 12³
/// cells of 1/24 m), one step of 1/60 s. Gravity's velocity is uniform, so the divergence before
/// the projection comes from the walls and from the faces the ball cuts, whose fluxes count by
/// their open share. After it the divergence over the unknowns has fallen by at least the
/// tolerance asked (1e-4: in f32 the solve's own residual estimate and the true one part below
/// about 1e-6), as a whole and cell by cell.
#[test]
fn the_projection_leaves_the_liquid_divergence_free_to_the_tolerance() {
    let gpu = common::gpu();
    let (n, h) = (12usize, 1.0 / 24.0);
    let centre = Vector3::new(0.25, 0.25, 0.2);
    let solids = ball(n, h, centre);
    let particles: Vec<WaterParticle> =
        fill([n, n, n], h, |_, z| z < 0.4).into_iter().filter(|p| (p.position - centre).norm() > 0.1).collect();
    let mut settings = WaterSettings::default();
    settings.pressure.tolerance = 1e-4;
    let gravity = Vector3::new(0.0, 0.0, -G);
    let mut water = WaterGpu::with_solids(&gpu, [n, n, n], h, gravity, settings, &particles, &solids);
    water.advance_steps(&gpu, 1, 1.0 / 60.0);
    let d = water.read_diagnostics(&gpu).expect("read back");
    let unknowns: Vec<&[f32; 4]> = d.cells.iter().filter(|c| c[1] != 0.0 || c[3] != 0.0).collect();
    let norm = |i: usize| unknowns.iter().map(|c| (c[i] as f64).powi(2)).sum::<f64>().sqrt();
    let largest = |i: usize| unknowns.iter().map(|c| (c[i] as f64).abs()).fold(0.0, f64::max);
    let (before, after) = (norm(0), norm(1));
    let liquid = d.kinds.iter().filter(|k| **k == 1).count();
    let solve = water.last_solve(&gpu).expect("read back");
    eprintln!(
        "{liquid} liquid cells, {} unknowns: divergence {before:.3e} → {after:.3e} (ratio {:.2e}), largest {:.3e} → \
         {:.3e} 1/s; the solve: {} iterations, its residual estimate {:.2e}",
        unknowns.len(),
        after / before,
        largest(0),
        largest(1),
        solve.iterations,
        (solve.rr / solve.bb).sqrt()
    );
    // The solve's residual curve (what the Stats panel plots): 1 at the start (the first step's
    // projection starts from zero), one entry per iteration, ending at the residual the solve
    // stopped at, below the tolerance.
    let history = water.last_history(&gpu).expect("read back");
    let last = *history.last().expect("a curve");
    eprintln!("residual curve: {history:?}");
    assert_eq!((history[0], history.len()), (1.0, solve.iterations as usize + 1));
    assert!((last - (solve.rr / solve.bb).sqrt()).abs() <= 1e-6 * last && last <= 1e-4, "{history:?}");
    assert!(unknowns.len() > 1000, "the tank is liquid");
    assert!(after <= 1e-4 * before, "divergence {before} → {after}");
    assert!(largest(1) <= 1e-4 * largest(0), "a cell keeps {} of the largest {}", largest(1), largest(0));
}

/// A frame records the iterations the last one's solves needed plus a margin (idle iterations
/// still cost their dispatches): still water, two frames of two steps. The first records the cap
/// (100); after it the budget is its most iterations plus 4, and the second frame's solves all
/// converge within that budget. With a cap below what the projection needs, its solves stop short
/// and are counted.
#[test]
fn a_frame_records_the_iterations_the_last_one_needed() {
    let gpu = common::gpu();
    let (cells, h) = ([8, 2, 12], 1.0 / 32.0);
    let particles = fill(cells, h, |_, z| z < 0.25);
    let gravity = Vector3::new(0.0, 0.0, -G);
    let mut water = WaterGpu::new(&gpu, cells, h, gravity, WaterSettings::default(), &particles);
    water.advance_steps(&gpu, 2, 1.0 / 60.0);
    let first = water.finish_frame(&gpu).expect("read back");
    water.advance_steps(&gpu, 2, 1.0 / 60.0);
    let second = water.finish_frame(&gpu).expect("read back");
    eprintln!("first frame {first:?}, second {second:?}");
    assert_eq!((first.unconverged, first.budget), (0, first.iterations + 4));
    assert!(second.unconverged == 0 && second.iterations <= first.budget, "{second:?}");
    let mut settings = WaterSettings::default();
    settings.pressure.max_iterations = 2;
    let mut capped = WaterGpu::new(&gpu, cells, h, gravity, settings, &particles);
    capped.advance_steps(&gpu, 2, 1.0 / 60.0);
    let status = capped.finish_frame(&gpu).expect("read back");
    assert!(status.unconverged >= 2 && status.budget == 2, "{status:?}");
}
