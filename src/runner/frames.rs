//! The pieces of a headless run: the solver made for a scene (its particles counted against the
//! GPU first), each frame split into substeps and advanced with the colliders moving, what a run
//! reports.

use super::error::RunError;
use crate::collider::set::ColliderSet;
use crate::fragments::{Fragments, LINK_FACTOR, find_fragments};
use crate::gpu::Gpu;
use crate::scene::{FillProgress, Scene, TimeStep, log_progress};
use crate::sim::capacity::DeviceLimits;
use crate::sim::explicit::clock::{FrameReport, FrameStep};
use crate::sim::page::StateError;
use crate::sim::params::GpuParticle;
use crate::sim::params::MAX_SUBSTEPS_PER_FRAME;
use crate::sim::solver::SolverOptions;
use crate::sim::{Solver, SolverError};

/// Most substeps of one collider frame where colliders move: their pose is sampled at each part's
/// start and end ([`advance`]).
const SUBSTEPS_PER_COLLIDER_FRAME: u32 = 64;

/// What a finished run reports.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// Frames written (the initial state included).
    pub frames_written: u32,
    /// Substeps simulated.
    pub substeps: u64,
    /// Simulated seconds.
    pub simulated_time: f64,
    /// Fixed-point contributions clamped because they did not fit an i32, summed over the run.
    pub overflow_count: u64,
    /// Particles reset for non-finite state, summed over the run.
    pub nonfinite_count: u64,
    /// Frames that hit [`MAX_SUBSTEPS_PER_FRAME`].
    pub capped_frames: u32,
    /// The pieces the snow is in at the last frame ([`crate::fragments`]: particles closer than
    /// 1.5 initial spacings linked).
    pub fragments: Option<Fragments>,
    /// The largest ratio of a substep's dt to the stable dt of the state it stepped, over the run
    /// ([`FrameReport::max_ratio`]); at most 1 under `"dt": "auto"` unless a frame was capped.
    pub max_dt_ratio: f64,
    /// Frames with a substep past the stable dt of the state it stepped (ratio above 1).
    pub frames_past_stable: u32,
    /// When PB-MPM's Newton–PCG solve ran: what its steps did since the run (or its resume) began.
    pub solve: Option<crate::sim::SolveTotals>,
}

/// Creates the solver for `scene`, naming the scene file in errors: its particles made once their
/// count is known to fit ([`spawn_checked`], progress logged), then the solver.
pub fn build_solver(gpu: &Gpu, scene: &Scene, source_name: &str) -> Result<Solver, RunError> {
    let limits = crate::sim::capacity::device_limits(&gpu.device);
    let particles = spawn_checked(scene, limits, source_name, &mut log_progress())?;
    build_solver_with(gpu, scene, &particles, source_name, SolverOptions::default())
}

/// The scene's particles, made only once their count is known to fit: the emitters are sampled
/// ([`Scene::sample_emitters`]; `progress` hears how far), the count is checked against the
/// device's `limits` ([`crate::sim::capacity::check_particle_count`]), and then exactly that many
/// particles are allocated ([`Scene::make_particles`], which refuses if the host cannot).
pub fn spawn_checked(
    scene: &Scene,
    limits: DeviceLimits,
    source_name: &str,
    progress: &mut dyn FnMut(FillProgress),
) -> Result<Vec<GpuParticle>, RunError> {
    let samples = scene.sample_emitters(source_name, progress)?;
    crate::sim::capacity::check_particle_count(&scene.solver_params(), samples.count(), limits)
        .map_err(|e| RunError::Solver { source_name: source_name.to_string(), source: SolverError::from(e) })?;
    Ok(scene.make_particles(&samples, source_name)?)
}

/// [`build_solver`] with the scene's grid and material but the given particles, stored as
/// `options` say ([`Solver::with_options`]): the one path by which the app, `run` and `bench` build
/// a solver.
pub fn build_solver_with(
    gpu: &Gpu,
    scene: &Scene,
    particles: &[GpuParticle],
    source_name: &str,
    options: SolverOptions,
) -> Result<Solver, RunError> {
    let options = SolverOptions { colliders: !scene.colliders.is_empty(), integrator: scene.integrator, ..options };
    Solver::with_options(gpu, scene.solver_params(), particles, options).map_err(|e| match e {
        SolverError::State(s @ (StateError::GridTooLarge { .. } | StateError::CollidersTooLarge { .. })) => {
            RunError::GridTooLarge {
                source_name: source_name.to_string(),
                resolution: scene.grid.resolution,
                source: s,
            }
        }
        other => RunError::Solver { source_name: source_name.to_string(), source: other },
    })
}

/// Simulates one frame of `duration` seconds from scene time `t0`, stepped as `step` says, and
/// reports its substeps. `stable` is the stable dt at the frame's start: it splits a fixed dt's
/// frame into whole substeps ([`plan_frame`]) and estimates an auto frame's substeps. Each
/// substep's dt is chosen on the GPU from the state it steps ([`Solver::step_frame`]).
///
/// Moving colliders are sampled at the start and end of each part of the frame of at most
/// `SUBSTEPS_PER_COLLIDER_FRAME` substeps (an auto frame is split into equal parts of time by its
/// estimated substeps), each a collider frame of its own whose substeps blend the two; static ones
/// are uploaded once (when the solver has none yet).
pub fn advance(
    gpu: &Gpu,
    solver: &mut Solver,
    colliders: &mut ColliderSet,
    t0: f64,
    duration: f64,
    step: TimeStep,
    stable: f64,
) -> Result<FrameReport, SolverError> {
    let (substeps, dt, _) = plan_frame(duration, step, stable);
    let parts = if colliders.is_animated() { substeps.div_ceil(SUBSTEPS_PER_COLLIDER_FRAME).max(1) } else { 1 };
    let mut report: Option<FrameReport> = None;
    for part in 0..parts {
        let (start, end, frame_step) = match step {
            // Whole substeps of dt: each part has its share, the last one the rest.
            TimeStep::Fixed(_) => {
                let (first, last) = (part * substeps / parts, (part + 1) * substeps / parts);
                let step = FrameStep::Fixed { dt, substeps: last - first };
                (t0 + first as f64 * dt, t0 + last as f64 * dt, step)
            }
            TimeStep::Auto => {
                let (start, end) =
                    (t0 + duration * part as f64 / parts as f64, t0 + duration * (part + 1) as f64 / parts as f64);
                (start, end, FrameStep::Auto { max_substeps: (MAX_SUBSTEPS_PER_FRAME / parts).max(1) })
            }
        };
        upload_colliders(gpu, solver, colliders, start, end)?;
        let done = solver.step_frame(gpu, end - start, frame_step, None)?;
        report = Some(report.map_or(done, |r| r.merged(done)));
    }
    Ok(report.unwrap_or_default())
}

/// Gives the solver the colliders of the frame `[t0, t1]`, unless they are static and already there.
pub fn upload_colliders(
    gpu: &Gpu,
    solver: &mut Solver,
    colliders: &mut ColliderSet,
    t0: f64,
    t1: f64,
) -> Result<(), SolverError> {
    if colliders.is_empty() || (!colliders.is_animated() && solver.collider_count() > 0) {
        return Ok(());
    }
    colliders.set_grid(solver.params().grid);
    solver.set_colliders(gpu, colliders.frames(t0, t1).as_ref())
}

/// The substeps of one frame of `frame_duration` seconds: `(count, length, capped)`.
///
/// With a fixed dt the frame is split into whole substeps no longer than dt; with auto the stable
/// dt takes its place. Past [`MAX_SUBSTEPS_PER_FRAME`] the frame is capped: an auto step runs that
/// many substeps stretched over the whole frame (past the stability limit, which the caller
/// reports), but a fixed dt is what was asked for and is never lengthened: its frame runs that many
/// substeps of dt and covers only `count · dt` seconds. (Scenes are refused at load where a fixed
/// dt cannot fill a frame, so this only happens to a dt set by hand in the app.)
pub fn plan_frame(frame_duration: f64, step: TimeStep, stable_dt: f64) -> (u32, f64, bool) {
    let limit = match step {
        TimeStep::Fixed(dt) => dt,
        TimeStep::Auto => stable_dt,
    };
    // A step of zero, a negative one or NaN covers no time: as if it needed endless substeps.
    let wanted = if limit > 0.0 { (frame_duration / limit).ceil().max(1.0) } else { f64::INFINITY };
    if wanted <= MAX_SUBSTEPS_PER_FRAME as f64 {
        let substeps = wanted as u32;
        return (substeps, frame_duration / substeps as f64, false);
    }
    match step {
        TimeStep::Fixed(dt) if dt > 0.0 => (MAX_SUBSTEPS_PER_FRAME, dt, true),
        TimeStep::Fixed(_) => (0, 0.0, true),
        TimeStep::Auto => (MAX_SUBSTEPS_PER_FRAME, frame_duration / MAX_SUBSTEPS_PER_FRAME as f64, true),
    }
}

/// The pieces of `particles`, made from `scene`: linked within [`LINK_FACTOR`] × its particle
/// spacing, weighted by mass. `None` only if the scene's spacing is not a positive length, which
/// validation rules out.
pub fn last_fragments(scene: &Scene, particles: &[GpuParticle]) -> Option<Fragments> {
    let positions: Vec<[f32; 3]> = particles.iter().map(|p| p.position).collect();
    let masses: Vec<f32> = particles.iter().map(|p| p.mass).collect();
    find_fragments(&positions, Some(&masses), LINK_FACTOR * scene.particle_spacing()).ok()
}

/// Logs what frame `frame`'s substeps did: their count and largest dt / stable dt (info), and a
/// warning where a substep went past the stable dt of the state it stepped or the frame hit the
/// substep cap (`fixed_capped`: a fixed dt that could not fill the frame).
pub(crate) fn log_frame(frame: u32, report: &FrameReport, fixed_capped: bool) {
    let FrameReport { substeps, time, max_ratio, min_stable_dt, last_dt, capped } = *report;
    log::info!(
        "frame {frame}: {substeps} substeps over {time:.4e} s, dt / stable dt at most {max_ratio:.3} \
         (smallest stable dt {min_stable_dt:.3e} s)"
    );
    if capped || fixed_capped {
        log::warn!(
            "frame {frame}: the frame needed more than {MAX_SUBSTEPS_PER_FRAME} substeps; it ran {substeps} \
             covering {time:.4e} s"
        );
    }
    if max_ratio > 1.0 {
        log::warn!(
            "frame {frame}: a substep ran {max_ratio:.2}× past the stable dt of the state it stepped \
             (dt {last_dt:.3e} s, smallest stable dt {min_stable_dt:.3e} s)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_split_into_whole_substeps_within_the_limit() {
        let (n, dt, capped) = plan_frame(1.0 / 30.0, TimeStep::Fixed(1e-3), 1.0);
        assert_eq!(n, 34);
        assert!((dt * 34.0 - 1.0 / 30.0).abs() < 1e-15 && dt <= 1e-3 && !capped);
        let (n, dt, _) = plan_frame(1.0 / 30.0, TimeStep::Auto, 4e-4);
        assert_eq!(n, 84);
        assert!(dt <= 4e-4);
        let (n, _, capped) = plan_frame(1.0, TimeStep::Auto, 1e-9);
        assert_eq!(n, MAX_SUBSTEPS_PER_FRAME);
        assert!(capped);
    }

    #[test]
    fn a_fixed_dt_is_never_lengthened() {
        // 1/30 s of 1e-9 s substeps would be 33 million: capped, the frame runs 20 000 substeps of
        // exactly 1e-9 s (2e-5 s of the frame), not 20 000 of 1.67e-6 s.
        assert_eq!(plan_frame(1.0 / 30.0, TimeStep::Fixed(1e-9), 1.0), (MAX_SUBSTEPS_PER_FRAME, 1e-9, true));
        // A frame of 1e9 s at dt = 0.1: never 5e4 s substeps.
        assert_eq!(plan_frame(1e9, TimeStep::Fixed(0.1), 1e-4), (MAX_SUBSTEPS_PER_FRAME, 0.1, true));
        // A step that covers no time runs nothing, whatever the stable dt.
        assert_eq!(plan_frame(1.0 / 30.0, TimeStep::Fixed(0.0), 1e-4), (0, 0.0, true));
        let (n, dt, capped) = plan_frame(1.0 / 30.0, TimeStep::Auto, f64::NAN);
        assert_eq!((n, capped), (MAX_SUBSTEPS_PER_FRAME, true));
        assert!(dt * n as f64 <= 1.0 / 30.0 + 1e-15);
    }
}
