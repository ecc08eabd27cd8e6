//! [`Model`]: everything the panels show in one frame, read from the driver and the window once
//! per frame. Panels borrow it read-only and send events; they never see the driver.

use std::path::{Path, PathBuf};

use powder::render::RenderSettings;
use powder::scene::Scene;
use powder::sim::integrator::Integrator;
use powder::sim::material::SnowMaterial;
use powder::sim::params::GridSpec;
use powder::sim::sort::bins::SolverPath;
use powder::sim::timeline::Timeline;

use crate::app::events::{GridViewSettings, SceneSource, StepMode, ToolSettings};
use crate::app::model::stats::StatsText;
use crate::app::run::driver::Driver;
use crate::app::run::messages::Messages;

/// How simulated time advances, as the Simulation section shows it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stepping {
    /// The stepping mode.
    pub mode: StepMode,
    /// Substeps per frame in [`StepMode::FixedSubsteps`].
    pub substeps: u32,
    /// Whether dt follows the stable dt.
    pub auto_dt: bool,
    /// The fixed dt, seconds.
    pub fixed_dt: f64,
    /// Milliseconds of each UI frame the simulation may take.
    pub budget_ms: f64,
    /// Paused.
    pub paused: bool,
    /// The simulation runs on a device of its own.
    pub own_device: bool,
}

/// The scene's colliders and their animation clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CollidersShown {
    /// How many.
    pub count: usize,
    /// Whether any moves.
    pub animated: bool,
    /// The animation plays (rather than holds).
    pub playing: bool,
    /// Animation time now, seconds.
    pub time: f64,
    /// The animation's length, seconds.
    pub range: f64,
}

/// What the window adds to the model: its settings and what its commands left behind.
pub struct WindowShown<'a> {
    /// Current render settings.
    pub render: RenderSettings,
    /// The grid view's settings.
    pub grid_view: GridViewSettings,
    /// The adapter, in words.
    pub gpu_name: &'a str,
    /// What the next undo and redo would change.
    pub next_undo: Option<&'static str>,
    /// See `next_undo`.
    pub next_redo: Option<&'static str>,
    /// A recording is under way.
    pub recording: bool,
    /// The folder of the recording under way or last made, and its frames.
    pub recorded: Option<(&'a Path, u32)>,
    /// Where the last screenshot went.
    pub last_screenshot: Option<&'a Path>,
    /// Where screenshots go.
    pub screenshot_folder: PathBuf,
}

/// What the panels show this frame.
pub struct Model<'a> {
    /// The scene as edited.
    pub scene: &'a Scene,
    /// Its name in messages and the title.
    pub scene_name: &'a str,
    /// Where it came from.
    pub source: &'a SceneSource,
    /// The material as loaded (what "Reset to the scene's material" restores).
    pub loaded_material: SnowMaterial,
    /// The files watched for automatic reload.
    pub watched_files: Vec<&'a Path>,
    /// The colliders.
    pub colliders: CollidersShown,
    /// Stepping settings.
    pub stepping: Stepping,
    /// The substep path.
    pub solver_path: SolverPath,
    /// The integrator and its settings.
    pub integrator: Integrator,
    /// The grid the solver runs on (may differ from the scene's resolution only while an edit is
    /// refused: the scene keeps the grid the solver has).
    pub grid: GridSpec,
    /// The Stats numbers as last refreshed.
    pub stats: &'a StatsText,
    /// The kept frames.
    pub timeline: &'a Timeline,
    /// The frame the simulation last started from.
    pub timeline_frame: u64,
    /// The mouse tool's settings.
    pub tool: ToolSettings,
    /// Recent messages.
    pub messages: &'a Messages,
    /// The window's part.
    pub window: WindowShown<'a>,
}

impl<'a> Model<'a> {
    /// Reads what the panels show from `driver`, with the Stats numbers `stats`, the messages and
    /// the window's part.
    pub fn build(driver: &'a Driver, stats: &'a StatsText, messages: &'a Messages, window: WindowShown<'a>) -> Self {
        let stepper = driver.stepper();
        let (mode, substeps, auto_dt, fixed_dt, budget_ms) = stepper.settings();
        let c = driver.colliders();
        let sim_time = stepper.sim_time().0;
        Model {
            scene: driver.scene(),
            scene_name: driver.scene_name(),
            source: driver.source(),
            loaded_material: driver.loaded_material(),
            watched_files: driver.watched_files().collect(),
            colliders: CollidersShown {
                count: c.count(),
                animated: c.is_animated(),
                playing: c.clock().playing(),
                time: c.clock().time(sim_time),
                range: c.range(),
            },
            stepping: Stepping {
                mode,
                substeps,
                auto_dt,
                fixed_dt,
                budget_ms,
                paused: stepper.paused(),
                own_device: stepper.own_device(),
            },
            solver_path: driver.solver().path(),
            integrator: driver.solver().integrator(),
            grid: driver.solver().params().grid,
            stats,
            timeline: driver.timeline().timeline(),
            timeline_frame: driver.timeline().frame(),
            tool: driver.tool.settings,
            messages,
            window,
        }
    }
}
