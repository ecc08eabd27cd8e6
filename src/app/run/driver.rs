//! The simulation side of the app: the scene, the solver, the stepping policy and the mouse tool.
//! It changes only through [`Driver::apply`] (events) and [`Driver::advance`] (one frame).

mod drop;

use glam::{DVec3, Vec3};

use powder::gpu::{Gpu, PendingRead};
use powder::render::RenderSettings;
use powder::runner::{RunError, build_solver};
use powder::scene::{PourSchedule, Scene, TimeStep};
use powder::sim::material::SnowMaterial;
use powder::sim::{Solver, SolverError};

use crate::app::events::{AppEvent, SceneSource, StepMode};
use crate::app::run::colliders::SceneColliders;
use crate::app::run::hot_reload::FileWatcher;
use crate::app::run::messages::Messages;
use crate::app::run::report::{Report, bounds, summarise};
use crate::app::run::scene_files::{self, Opened};
use crate::app::run::stepping::policy::{Prepare, SceneTime};
use crate::app::run::stepping::stepper::Stepper;
use crate::app::run::timeline::AppTimeline;
use crate::app::run::tool::Tool;
use crate::app::run::undo::EditedValues;

/// Scene, solver and stepping policy.
pub struct Driver {
    scene: Scene,
    scene_name: String,
    /// Where the scene came from, for reloading it.
    source: SceneSource,
    /// The scene file and the glTF files it refers to, for reloading on change.
    watcher: FileWatcher,
    loaded_material: SnowMaterial,
    solver: Solver,
    colliders: SceneColliders,
    /// Successful reloads of the scene's files since the app started.
    reloads: u32,
    spacing: f64,
    /// The mouse tool.
    pub tool: Tool,
    stepper: Stepper,
    /// Recent frames kept to go back to.
    timeline: AppTimeline,
    /// The pouring emitters' batches, and the scene time up to which the solver holds them.
    pour: (PourSchedule, f64),
}

impl Driver {
    /// Builds the solver and the colliders for `scene` (named `name` in messages), which came
    /// from `source`.
    pub fn new(gpu: &Gpu, scene: Scene, name: String, source: SceneSource, mode: StepMode) -> Result<Self, RunError> {
        let solver = build_solver(gpu, &scene, &name)?;
        let colliders = SceneColliders::new(&scene, &name)?;
        let pour = scene.pour_schedule(&name)?;
        let (auto_dt, fixed_dt) = match scene.time.dt {
            TimeStep::Auto => (true, solver.params().dt),
            TimeStep::Fixed(dt) => (false, dt),
        };
        Ok(Self {
            spacing: scene.particle_spacing(),
            loaded_material: scene.material,
            watcher: FileWatcher::new(scene_files::watched_files(&source, &scene)),
            source,
            scene,
            scene_name: name,
            solver,
            colliders,
            reloads: 0,
            tool: Tool::default(),
            stepper: Stepper::new(gpu, mode, auto_dt, fixed_dt),
            timeline: AppTimeline::new(),
            pour: (pour, 0.0),
        })
    }

    /// Applies a simulation event. Returns `true` if a new scene replaced the old one (the app
    /// then re-frames the camera; a reload keeps it). Refusals are posted to `messages`; the
    /// simulation carries on.
    pub fn apply(&mut self, gpu: &Gpu, event: AppEvent, messages: &mut Messages) -> bool {
        self.timeline.note(&event);
        match event {
            AppEvent::GoToFrame(frame) => {
                let Self { timeline, solver, stepper, tool, .. } = self;
                tool.forget();
                if let Err(e) = timeline.go_to(gpu, solver, stepper, frame) {
                    messages.error(e);
                }
                // The kept frame holds the batches born by its time, and pouring goes on from there.
                self.pour.1 = self.stepper.sim_time().0;
                return false;
            }
            AppEvent::SetTimelineBudget(mib) => {
                self.timeline.set_budget(mib);
                return false;
            }
            _ => {}
        }
        if self.stepper.apply(&event) {
            return false;
        }
        self.stepper.state_changed();
        match event {
            AppEvent::SetMaterial(material) => self.edit(gpu, messages, |s| s.material = material),
            AppEvent::ResetMaterial => {
                let material = self.loaded_material;
                self.edit(gpu, messages, |s| s.material = material);
            }
            AppEvent::SetEmitterMaterial(i, material) => self.edit(gpu, messages, |s| {
                if let Some(e) = s.emitters.get_mut(i) {
                    e.set_material(material);
                }
                // Emitter materials are format version 3.
                s.version = s.version.max(3);
            }),
            AppEvent::SetGravity(g) => self.edit(gpu, messages, |s| s.gravity = g),
            AppEvent::SetGridResolution(r) => self.set_resolution(gpu, r, messages),
            AppEvent::SetSolverPath(path) => {
                if let Err(e) = self.solver.set_path(gpu, path) {
                    messages.error(e.to_string());
                }
            }
            AppEvent::SetIntegrator(integrator) => {
                // The scene's rules for the integrator (water's: some liquid from the start) first.
                let mut next = self.scene.clone();
                next.integrator = integrator;
                if let Err(e) = next.validate("the panel") {
                    messages.error(format!("integrator refused: {e}"));
                    return false;
                }
                match self.solver.set_integrator(gpu, integrator) {
                    Ok(()) => self.scene.integrator = integrator,
                    Err(e) => messages.error(format!("integrator refused: {e}")),
                }
            }
            AppEvent::Reset => self.reset(gpu, messages),
            AppEvent::LoadScene(source) => return self.load(gpu, source, messages),
            AppEvent::ReloadScene => {
                let source = self.source.clone();
                if self.load(gpu, source, messages) {
                    self.reloads += 1;
                }
            }
            AppEvent::SetAnimationPlaying(on) => self.colliders.set_playing(on, self.stepper.sim_time().0),
            AppEvent::SetAnimationTime(t) => self.colliders.scrub(t, self.stepper.sim_time().0),
            AppEvent::SetTool(settings) => self.tool.settings = settings,
            AppEvent::ToolStart { ray, repel } => {
                let pick_radius = self.spacing as f32;
                match self.tool.start(gpu, &self.solver, ray, repel, pick_radius) {
                    Ok(true) => {}
                    Ok(false) => messages.info("no snow under the cursor to grab"),
                    Err(e) => messages.error(format!("picking failed: {e}")),
                }
            }
            AppEvent::DropBlob { ray, preset } => self.drop_blob(gpu, ray, preset, messages),
            AppEvent::ToolMove(ray) => self.tool.drag(ray),
            AppEvent::ToolEnd => self.tool.end(),
            AppEvent::ReloadShaders => {
                let dir = powder::sim::shaders::source_dir();
                match self.solver.reload_kernels(gpu, &dir) {
                    Ok(()) => messages.info(format!("MPM shaders reloaded from {}", dir.display())),
                    Err(e) => messages.error(format!("shader reload failed, the previous kernels keep running: {e}")),
                }
            }
            other => log::debug!("driver ignores {other:?}"),
        }
        false
    }

    /// Changes the scene with `change`, validates, and passes the new parameters to the solver
    /// (same grid; density changes particle masses only at the next reset).
    fn edit(&mut self, gpu: &Gpu, messages: &mut Messages, change: impl FnOnce(&mut Scene)) {
        let mut scene = self.scene.clone();
        change(&mut scene);
        if let Err(e) = scene.validate("the edited scene") {
            messages.error(format!("refused: {e}"));
            return;
        }
        let mut params = *self.solver.params();
        params.material = scene.material;
        params.emitter_materials = scene.solver_params().emitter_materials;
        params.gravity = scene.gravity;
        match self.solver.set_params(gpu, params) {
            Ok(()) => self.scene = scene,
            Err(e) => messages.error(format!("refused: {e}")),
        }
    }

    fn set_resolution(&mut self, gpu: &Gpu, resolution: u32, messages: &mut Messages) {
        let old = self.scene.grid.resolution;
        let mut scene = self.scene.clone();
        scene.grid.resolution = resolution;
        if let Err(e) = scene.validate("the edited scene") {
            messages.error(format!("grid resolution {resolution} refused: {e}; the {old}-cell grid keeps running"));
            return;
        }
        let mut params = scene.solver_params();
        params.dt = self.solver.params().dt;
        // The solver refuses a grid the scene's collider fields do not fit.
        match self.solver.rebuild_grid(gpu, params) {
            Ok(()) => {
                let cells = params.grid.cells;
                messages.info(format!(
                    "grid now {}×{}×{} cells of {:.4} m; its {} particles carry over (Reset respawns the scene \
                     at this grid's particle spacing)",
                    cells.x,
                    cells.y,
                    cells.z,
                    params.grid.cell_size,
                    self.solver.particle_count()
                ));
                // The new grid has no colliders yet: they are sampled onto it for the next frame.
                self.colliders.set_grid(params.grid);
                // The new state has a new substep clock: the frame in progress ends where it was.
                self.stepper.cut_frame();
                self.scene = scene;
            }
            Err(e) => {
                messages.error(format!("grid resolution {resolution} refused: {e}; the {old}-cell grid keeps running"));
            }
        }
    }

    fn reset(&mut self, gpu: &Gpu, messages: &mut Messages) {
        let particles = match self.scene.spawn_particles() {
            Ok(particles) => particles,
            Err(e) => {
                messages.error(format!("reset failed: {e}"));
                return;
            }
        };
        let mut params = self.scene.solver_params();
        params.dt = self.solver.params().dt;
        let result = self.solver.set_params(gpu, params).and_then(|()| self.solver.replace_particles(gpu, &particles));
        if let Err(e) = result {
            messages.error(format!("reset failed: {e}"));
            return;
        }
        let before = std::mem::replace(&mut self.spacing, self.scene.particle_spacing());
        if self.spacing != before {
            // The grid changed since the last spawn: say why the count changed.
            messages.info(format!(
                "reset: {} particles {:.4} m apart (the grid's particle spacing; {:.4} m before)",
                particles.len(),
                self.spacing,
                before
            ));
        }
        self.restart_clock(gpu);
    }

    fn restart_clock(&mut self, gpu: &Gpu) {
        self.pour.1 = 0.0;
        self.tool.forget();
        self.solver.set_interaction(gpu, Default::default());
        self.stepper.restart();
        // The new particles came with a new solver state, without colliders: they go again at t = 0.
        self.colliders.restart();
    }

    /// Loads `source` in place of the running scene; on failure the running one stays.
    fn load(&mut self, gpu: &Gpu, source: SceneSource, messages: &mut Messages) -> bool {
        let Opened { scene, name } = match scene_files::open(&source) {
            Ok(opened) => opened,
            Err(e) => {
                messages.error(format!("{e} (the current scene keeps running)"));
                return false;
            }
        };
        let mode = self.stepper.settings().0;
        match Driver::new(gpu, scene, name.clone(), source, mode) {
            Ok(mut fresh) => {
                // Keep the user's stepping choices, tool and animation play/hold; the scene brings
                // its own material and dt.
                fresh.stepper.keep_choices_of(&self.stepper);
                fresh.tool.settings = self.tool.settings;
                fresh.colliders.keep_choices_of(&self.colliders);
                fresh.reloads = self.reloads;
                if let Err(e) = fresh.solver.set_path(gpu, self.solver.path()) {
                    messages.error(format!("{name}: {e}"));
                }
                *self = fresh;
                let colliders = self.colliders.count();
                let with = if colliders > 0 { format!(", {colliders} colliders") } else { String::new() };
                messages.info(format!("loaded {name}: {} particles{with}", self.solver.particle_count()));
                true
            }
            Err(e) => {
                messages.error(format!("{e} (the current scene keeps running)"));
                false
            }
        }
    }

    /// Starts a UI frame's share of the simulation ([`Stepper::start_ui_frame`]): `wall_dt`
    /// seconds of wall clock passed since the last one.
    pub fn start_ui_frame(&mut self, wall_dt: f64) {
        self.stepper.start_ui_frame(wall_dt);
    }

    /// The simulation's work in a UI frame ([`Stepper::step`]): the batch in flight looked at,
    /// and unless `hold`, the next submitted (a new frame only once the UI frame is `drawn`, if
    /// one just finished). A frame's colliders go to the solver when it starts,
    /// the mouse tool before each batch; `copy` records into each batch's last submission.
    pub fn step(
        &mut self,
        gpu: &Gpu,
        hold: bool,
        drawn: bool,
        messages: &mut Messages,
        copy: &mut dyn FnMut(&Solver, &mut wgpu::CommandEncoder) -> Option<PendingRead>,
    ) {
        let time = SceneTime { cfl: self.scene.time.cfl, frame_duration: self.scene.frame_duration() };
        let Self { stepper, solver, tool, colliders, timeline, pour, .. } = self;
        let prepare = |solver: &mut Solver, what: Prepare| match what {
            Prepare::Batch { span } => {
                let max_speed = solver.params().max_speed;
                tool.apply(gpu, solver, span, max_speed);
                Ok(())
            }
            Prepare::Frame { sim_time, span } => {
                // Batches born since the last frame start join before the frame is kept, so that a
                // kept frame holds every batch born by its time.
                let (schedule, until) = pour;
                let born = schedule.born_between(*until, sim_time);
                *until = sim_time;
                let poured = solver.append_particles(gpu, &born).map_err(|e| format!("pouring stopped: {e}"));
                let kept = poured.and(timeline.frame_starts(gpu, solver, sim_time));
                let uploaded = colliders.upload(gpu, solver, sim_time, span).map_err(|e| {
                    format!("the colliders could not be given to the solver; the snow runs without them: {e}")
                });
                kept.and(uploaded)
            }
        };
        stepper.step(gpu, solver, time, hold, drawn, messages, prepare, copy);
    }

    /// The kept frames.
    pub fn timeline(&self) -> &AppTimeline {
        &self.timeline
    }

    /// Whether a batch of substeps is on the GPU ([`Stepper::busy`]).
    pub fn busy(&self) -> bool {
        self.stepper.busy()
    }

    /// Says that the simulation runs on a device of its own ([`Stepper::set_own_device`]).
    pub fn set_own_device(&mut self, own: bool) {
        self.stepper.set_own_device(own);
    }

    /// Whether the scene file or a glTF file it refers to changed on disk since the last call
    /// that said so (polled at most every half second).
    pub fn scene_changed_on_disk(&mut self) -> bool {
        self.watcher.changed()
    }

    /// Reads the particles back and summarises them.
    pub fn report(&self, gpu: &Gpu) -> Result<Report, SolverError> {
        let particles = self.solver.read_particles(gpu)?;
        let mut report = summarise(&particles);
        let (sim_time, substeps) = self.stepper.sim_time();
        report.scene = self.scene_name.clone();
        (report.simulated_time, report.substeps) = (sim_time, substeps);
        report.max_dt_ratio = self.stepper.max_dt_ratio();
        report.sim_frames = self.stepper.frames_finished();
        report.real_time_ratio = self.stepper.real_time_ratio();
        report.simulation_device = if self.stepper.own_device() { "own" } else { "shared" };
        report.youngs_modulus = self.scene.material.youngs_modulus;
        report.grid_resolution = self.scene.grid.resolution;
        report.collider_count = self.colliders.count();
        report.colliders_in_solver = self.solver.collider_count();
        report.animation_time = self.colliders.clock().time(sim_time);
        report.animation_playing = self.colliders.clock().playing();
        report.scene_reloads = self.reloads;
        Ok(report)
    }

    /// The particles' bounding box (one readback of the particles).
    pub fn particle_bounds(&self, gpu: &Gpu) -> Result<Option<(Vec3, Vec3)>, SolverError> {
        Ok(bounds(&self.solver.read_particles(gpu)?))
    }
}

/// Read-only views for the UI and the renderer.
impl Driver {
    /// The scene as edited.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }
    /// The scene's name.
    pub fn scene_name(&self) -> &str {
        &self.scene_name
    }
    /// The solver.
    pub fn solver(&self) -> &Solver {
        &self.solver
    }
    /// Distance between particles at spawn, metres.
    pub fn spacing(&self) -> f64 {
        self.spacing
    }
    /// Stepping policy and what it measured.
    pub fn stepper(&self) -> &Stepper {
        &self.stepper
    }
    /// The scene's colliders.
    pub fn colliders(&self) -> &SceneColliders {
        &self.colliders
    }
    /// The scene's colliders, to take the meshes to draw.
    pub fn colliders_mut(&mut self) -> &mut SceneColliders {
        &mut self.colliders
    }
    /// The files watched for automatic reload (empty for a built-in scene).
    pub fn watched_files(&self) -> impl Iterator<Item = &std::path::Path> {
        self.watcher.files()
    }

    /// The material of the scene as loaded (what "Reset to the scene's material" restores).
    pub fn loaded_material(&self) -> SnowMaterial {
        self.loaded_material
    }

    /// Where the running scene came from.
    pub fn source(&self) -> &SceneSource {
        &self.source
    }

    /// Gravity, m/s².
    pub fn gravity(&self) -> DVec3 {
        self.scene.gravity
    }

    /// The values panel edits change, with the view's `render` settings: what undo puts back.
    pub fn edited(&self, render: &RenderSettings) -> EditedValues {
        EditedValues {
            material: self.scene.material,
            emitter_materials: self.scene.emitters.iter().map(|e| e.material().copied()).collect(),
            gravity: self.scene.gravity,
            stepping: self.stepper.settings(),
            path: self.solver.path(),
            integrator: self.solver.integrator(),
            resolution: self.scene.grid.resolution,
            render: *render,
            tool: self.tool.settings,
        }
    }
}
