//! Whole app frames of a scene, as the app runs them in real time: each frame simulates 1/60 s
//! (the frame's share of simulated time at 60 frames per second) with the scene's integrator, then
//! draws the particles offscreen, and waits for the GPU. Reports frames per second and simulated
//! seconds per wall second: at least 1.0 keeps real time.

use std::time::Instant;

use super::median;
use super::offscreen_view::OffscreenView;
use crate::collider::set::ColliderSet;
use crate::gpu::Gpu;
use crate::render::{RenderMode, RenderSettings};
use crate::runner::{RunError, advance, build_solver};
use crate::scene::{Scene, TimeStep};
use crate::sim::integrator::Integrator;
use crate::sim::pbmpm::PbmpmSettings;
use crate::sim::{PassTime, SolveTotals};

/// Simulated seconds per app frame: the app's real-time mode at 60 frames per second.
pub const FRAME_SPAN: f64 = 1.0 / 60.0;
/// Frames run before the timed ones (kernel compilation, first uploads).
const WARM_UP: u32 = 3;

/// What a run of app frames measured.
#[derive(Clone, Debug)]
pub struct RealtimeResult {
    /// The integrator's name.
    pub integrator: &'static str,
    /// Particles simulated.
    pub particles: u32,
    /// Grid cells per axis (the largest).
    pub cells: u32,
    /// Timed frames.
    pub frames: u32,
    /// Substeps (explicit) or steps (PB-MPM) over the timed frames.
    pub steps: u64,
    /// Median milliseconds of the simulation part of a frame, on the host: the explicit
    /// integrator's includes waiting for the GPU clock to end the frame, PB-MPM's only planning,
    /// recording and submitting its steps (the GPU runs on while the frame is drawn).
    pub sim_ms: f64,
    /// Median milliseconds of the rest of the frame: recording the drawing, submitting it and
    /// waiting for the GPU to finish everything.
    pub render_ms: f64,
    /// Wall seconds of all timed frames.
    pub wall_s: f64,
    /// PB-MPM only: the cost of one iteration after the timed frames ([`IterationCost`]).
    pub iteration: Option<IterationCost>,
    /// PB-MPM's Newton–PCG solve only: the most CG iterations a step, and what the steps of the
    /// timed frames did.
    pub solve: Option<(u32, SolveTotals)>,
    /// PB-MPM only, where the GPU has timestamps: each pass's cost in a step on the state the
    /// timed frames left ([`crate::sim::Solver::profile_pbmpm`], [`PROFILE_STEPS`] steps of the
    /// length the next frame would take).
    pub passes: Option<Vec<PassTime>>,
}

/// Steps timed pass by pass for [`RealtimeResult::passes`].
pub const PROFILE_STEPS: u32 = 10;

/// What one PB-MPM iteration costs on the state the timed frames left, against the memory floor.
#[derive(Clone, Copy, Debug)]
pub struct IterationCost {
    /// Milliseconds per iteration: the difference of two runs of [`ITERATION_STEPS`] steps at
    /// [`ITERATION_COUNTS`] iterations each (every one run: tolerance 0; times the Newton steps of
    /// a scene with a yielding kind), over the iterations that differ, so that what a step costs
    /// besides its iterations (the sort, `pb_begin`, the force passes, `g2p`, the submissions)
    /// cancels.
    pub ms: f64,
    /// Bytes an iteration must move at least ([`iteration_bytes`]).
    pub bytes: f64,
    /// Bandwidth of the streaming copy kernel on this GPU, bytes/s (read + write).
    pub copy_bandwidth: f64,
}

impl IterationCost {
    /// Milliseconds the copy kernel would take to move [`IterationCost::bytes`].
    pub fn floor_ms(&self) -> f64 {
        self.bytes / self.copy_bandwidth * 1e3
    }
}

/// Steps of each timed run of [`IterationCost`].
pub const ITERATION_STEPS: u32 = 40;
/// The iteration counts compared by [`IterationCost`].
pub const ITERATION_COUNTS: (u32, u32) = (1, 9);

/// The least an iteration moves: each particle's state read once (position and mass 16 bytes,
/// velocity 16, C 48, F 48, Jp and crack state 16, the impulse Λ 48) and what it writes once
/// (velocity 16, C 48, Λ 48): 304 bytes; and per grid node the iteration touches (27 per particle
/// at most, counted as the grid's nodes per particle for snow packed 8 to a cell, 1/8 each) its
/// fixed-point sums written and read (32 + 32) and zeroed (32), its velocity written and read
/// (16 + 16): 128 bytes. Workgroup-memory traffic and the stencil's re-reads from cache are not
/// counted: this is the floor, as the explicit passes' table counts it.
pub fn iteration_bytes(particles: u32) -> f64 {
    particles as f64 * (304.0 + 128.0 / 8.0)
}

impl RealtimeResult {
    /// Frames per second over the timed frames.
    pub fn fps(&self) -> f64 {
        self.frames as f64 / self.wall_s
    }

    /// Simulated seconds per wall second.
    pub fn realtime_ratio(&self) -> f64 {
        self.frames as f64 * FRAME_SPAN / self.wall_s
    }

    /// One line for the console (two for PB-MPM: then the iteration's cost).
    pub fn report(&self, width: u32, height: u32) -> String {
        let iteration = self.iteration.map_or(String::new(), |c| {
            format!(
                "\n  per iteration: {:.4} ms, {:.1} MB moved at least, copy-kernel floor {:.4} ms ({:.0} GB/s), {:.1}x floor",
                c.ms,
                c.bytes / 1e6,
                c.floor_ms(),
                c.copy_bandwidth / 1e9,
                c.ms / c.floor_ms()
            )
        });
        let passes = self.passes.as_ref().map_or(String::new(), |passes| {
            let total: f64 = passes.iter().map(|p| p.ms).sum();
            let mut text =
                format!("\n  a step pass by pass (each dispatch timed alone, {PROFILE_STEPS} steps): {total:.3} ms");
            for p in passes {
                text += &format!(
                    "\n    {:<24} {:5.1} a step {:8.4} ms {:5.1} %",
                    p.pass.name(),
                    p.dispatches,
                    p.ms,
                    100.0 * p.ms / total
                );
            }
            text
        });
        let solve = self.solve.map_or(String::new(), |(iterations, solve)| {
            let (mean, residual) = (solve.mean_iterations().unwrap_or(0.0), solve.max_residual);
            format!(
                "\n  Newton–PCG: {mean:.2} of at most {iterations} CG iterations a step, largest relative residual {residual:.2e}"
            )
        });
        format!(
            "realtime {}: {} particles, grid {}³, {} frames of {:.4} s at {width}x{height}: {:.1} steps/frame, simulation recorded in {:.2} ms + drawing and the wait for the GPU {:.2} ms (medians), {:.1} fps, {:.3} simulated s per wall s",
            self.integrator,
            self.particles,
            self.cells,
            self.frames,
            FRAME_SPAN,
            self.steps as f64 / self.frames as f64,
            self.sim_ms,
            self.render_ms,
            self.fps(),
            self.realtime_ratio()
        ) + &solve
            + &iteration
            + &passes
    }
}

/// Runs `frames` app frames of `scene` (after a short warm-up) at `width`×`height`, drawn in `mode`.
pub fn run_realtime(
    gpu: &Gpu,
    scene: &Scene,
    frames: u32,
    (width, height): (u32, u32),
    mode: RenderMode,
) -> Result<RealtimeResult, RunError> {
    let mut solver = build_solver(gpu, scene, "bench")?;
    let mut colliders = ColliderSet::from_scene(scene, "bench")?;
    let mut view = OffscreenView::new(gpu, &solver, scene.particle_spacing(), (width, height));
    let grid = solver.params().grid;
    let settings = RenderSettings { mode, ..RenderSettings::default() };
    let (mut sim, mut render, mut steps, mut t) = (Vec::new(), Vec::new(), 0u64, 0.0);
    let solver_error = |source| RunError::Solver { source_name: "bench".into(), source };
    let mut started = Instant::now();
    for i in 0..frames + WARM_UP {
        if i == WARM_UP {
            started = Instant::now();
            solver.take_solve_totals();
        }
        let start = Instant::now();
        // PB-MPM and water plan their steps from the state itself; the stable dt is the explicit
        // one's.
        let stable = match scene.integrator {
            Integrator::Explicit => solver.stable_dt(gpu, scene.time.cfl).map_err(solver_error)?.0,
            Integrator::Pbmpm(_) | Integrator::Flip(_) => f64::INFINITY,
        };
        let report =
            advance(gpu, &mut solver, &mut colliders, t, FRAME_SPAN, TimeStep::Auto, stable).map_err(solver_error)?;
        t += FRAME_SPAN;
        let simulated = Instant::now();
        view.draw(gpu, &solver, &settings, None);
        if i >= WARM_UP {
            sim.push((simulated - start).as_secs_f64() * 1e3);
            render.push(simulated.elapsed().as_secs_f64() * 1e3);
            steps += report.substeps as u64;
        }
    }
    let wall_s = started.elapsed().as_secs_f64();
    // One readback after the frames: it brings their solve totals in and the fastest speed.
    let stats = match scene.integrator {
        Integrator::Pbmpm(_) => Some(solver.stats(gpu).map_err(solver_error)?),
        Integrator::Explicit | Integrator::Flip(_) => None,
    };
    let solve = match (solver.pbmpm_solve(), scene.integrator) {
        (Some(crate::sim::pbmpm::PbSolver::Newton), Integrator::Pbmpm(settings)) => {
            Some((settings.iterations * settings.newton_steps_for(solver.params()), solver.take_solve_totals()))
        }
        _ => None,
    };
    // The iteration cost and the profile step on at the step the app would take next (the motion
    // limit at the fastest particle's speed), not at the longest step: at 1/240 s a ball thrown at
    // several m/s moved several cells a step, and a stiff kind's stresses then overflowed the
    // force sums' fixed point, whose clamps, counted on one global atomic, made the operator's
    // particle pass tens of times slower than in the frames.
    let step_dt = match (scene.integrator, &stats) {
        (Integrator::Pbmpm(settings), Some(stats)) => {
            settings.plan_frame(FRAME_SPAN, stats.max_speed, solver.params().max_speed, grid.cell_size).1
        }
        _ => 0.0,
    };
    Ok(RealtimeResult {
        integrator: scene.integrator.name(),
        particles: solver.particle_count(),
        cells: grid.cells.max_element(),
        frames,
        steps,
        sim_ms: median(sim),
        render_ms: median(render),
        wall_s,
        solve,
        iteration: match scene.integrator {
            Integrator::Pbmpm(settings) => {
                Some(iteration_cost(gpu, &mut solver, settings, step_dt).map_err(solver_error)?)
            }
            Integrator::Explicit | Integrator::Flip(_) => None,
        },
        passes: match scene.integrator {
            Integrator::Pbmpm(_) => solver.profile_pbmpm(gpu, PROFILE_STEPS, step_dt).map_err(solver_error)?,
            Integrator::Explicit | Integrator::Flip(_) => None,
        },
    })
}

/// [`IterationCost`] on `solver` as it stands, in steps of `dt` seconds (it steps the snow on).
fn iteration_cost(
    gpu: &Gpu,
    solver: &mut crate::sim::Solver,
    settings: PbmpmSettings,
    dt: f64,
) -> Result<IterationCost, crate::sim::SolverError> {
    let mut time = |iterations| -> Result<f64, crate::sim::SolverError> {
        // Tolerance 0: every iteration runs, so that the difference counts the iterations it says.
        solver.set_integrator(gpu, Integrator::Pbmpm(PbmpmSettings { iterations, tolerance: 0.0, ..settings }))?;
        // One untimed run: the first dispatches of a pipeline pay for its first use.
        solver.step_pbmpm(gpu, ITERATION_STEPS, dt);
        gpu.wait_idle();
        let start = Instant::now();
        solver.step_pbmpm(gpu, ITERATION_STEPS, dt);
        gpu.wait_idle();
        Ok(start.elapsed().as_secs_f64() * 1e3)
    };
    let (few, many) = ITERATION_COUNTS;
    let (t_few, t_many) = (time(few)?, time(many)?);
    solver.set_integrator(gpu, Integrator::Pbmpm(settings))?;
    Ok(IterationCost {
        // A step of several Newton steps runs its iterations that many times.
        ms: (t_many - t_few) / ((many - few) * ITERATION_STEPS * settings.newton_steps_for(solver.params())) as f64,
        bytes: iteration_bytes(solver.particle_count()),
        copy_bandwidth: super::memory_bandwidth(gpu),
    })
}
