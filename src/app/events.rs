//! What the UI, the keyboard and the script ask the app loop to do.
//!
//! Nothing outside the loop mutates the simulation: panels and keys push [`AppEvent`]s, and the loop
//! applies them between frames (in `run::driver::Driver::apply` for the simulation, in the app
//! for the window, camera and screenshots). A refused event (a grid that does not fit, a scene file
//! that does not parse) leaves the running simulation as it was and shows a message.

use std::path::PathBuf;

use glam::{DVec3, Vec3};

use powder::render::RenderSettings;
use powder::render::grid_view::GridSlice;
use powder::sim::material::SnowMaterial;

/// How much simulated time each displayed frame advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepMode {
    /// Simulated time follows the wall clock; each frame runs the substeps that catch up, as many
    /// as fit the time budget. When they do not fit, the UI says how far behind real time it runs.
    RealTime,
    /// A fixed number of substeps per frame, however long they take.
    FixedSubsteps,
    /// One scene frame (`1 / time.fps` seconds) per displayed frame, as `powder run` writes them:
    /// deterministic simulated time per frame, used by scripted runs.
    SceneFrames,
}

impl AppEvent {
    /// Whether applying it reads the simulation's state back from the GPU (or replaces the
    /// solver): it waits, without blocking the UI, until no batch of substeps is on the GPU, and
    /// the simulation events after it wait with it.
    pub fn reads_simulation(&self) -> bool {
        matches!(
            self,
            AppEvent::SetGridResolution(_)
                | AppEvent::ToolStart { .. }
                | AppEvent::DropBlob { .. }
                | AppEvent::FrameSnow
                | AppEvent::LoadScene(_)
                | AppEvent::ReloadScene
                | AppEvent::GoToFrame(_)
                // Opening the grid view places its plane through the snow (read back).
                | AppEvent::SetGridView(GridViewSettings { on: true, focus: None, .. })
                // What they become may read the simulation back (a grid resolution undone).
                | AppEvent::Undo
                | AppEvent::Redo
        )
    }

    /// Whether it is about stepping alone (applied at once, even while others wait).
    pub fn is_stepping(&self) -> bool {
        matches!(
            self,
            AppEvent::SetStepMode(_)
                | AppEvent::SetSubsteps(_)
                | AppEvent::SetDt(_)
                | AppEvent::SetAutoDt(_)
                | AppEvent::SetRealTimeBudget(_)
                | AppEvent::TogglePause
                | AppEvent::Step
        )
    }
}

impl StepMode {
    /// Every mode, in the order the UI lists them.
    pub const ALL: [StepMode; 3] = [StepMode::RealTime, StepMode::FixedSubsteps, StepMode::SceneFrames];

    /// The name shown in the UI and accepted by `--stepping`.
    pub fn label(self) -> &'static str {
        match self {
            StepMode::RealTime => "real time",
            StepMode::FixedSubsteps => "fixed substeps per frame",
            StepMode::SceneFrames => "one scene frame per frame",
        }
    }
}

/// Where a scene comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneSource {
    /// One of the scenes compiled into the binary, by name (see `run::presets::BUILTIN_SCENES`).
    Builtin(&'static str),
    /// A scene file.
    File(PathBuf),
}

/// Settings of the mouse tool (right drag).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToolSettings {
    /// Radius of the sphere of grid nodes the tool acts on, metres.
    pub radius: f32,
    /// How fast node velocities approach the tool's target, 1/s (the tool's strength).
    pub rate: f32,
    /// Outward speed of repelled snow, m/s.
    pub repel_speed: f32,
    /// Right drag repels instead of grabbing (Ctrl + right drag always repels).
    pub repel: bool,
    /// A right click drops a ball of this material preset (its id), of the tool's radius, where it
    /// points, instead of grabbing (`None`: grab).
    pub drop: Option<&'static str>,
}

impl Default for ToolSettings {
    fn default() -> Self {
        Self { radius: 0.1, rate: 300.0, repel_speed: 3.0, repel: false, drop: None }
    }
}

/// What the grid view shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GridViewSettings {
    /// The view is shown.
    pub on: bool,
    /// Which plane and quantity.
    pub slice: GridSlice,
    /// Arrows of the grid velocity's in-plane part are drawn over the plane.
    pub arrows: bool,
    /// The node (x, y, z indices) the plane goes through whatever its normal: a new normal keeps
    /// the plane through the same point. `None` until placed: the app places it at the node
    /// nearest the snow's centre when the view opens.
    pub focus: Option<[u32; 3]>,
}

impl GridViewSettings {
    /// Turns the plane to normal `axis` (0 x, 1 y, 2 z), through the same node as before.
    pub fn set_axis(&mut self, axis: u32) {
        self.slice.axis = axis;
        if let Some(focus) = self.focus {
            self.slice.index = focus[axis as usize];
        }
    }

    /// Moves the plane to node `index` along its normal; the point it goes through follows.
    pub fn set_index(&mut self, index: u32) {
        self.slice.index = index;
        if let Some(focus) = &mut self.focus {
            focus[self.slice.axis as usize] = index;
        }
    }

    /// Places the plane through `node`.
    pub fn place(&mut self, node: [u32; 3]) {
        self.focus = Some(node);
        self.slice.index = node[self.slice.axis as usize];
    }
}

/// A ray through the view, world space, for picking and dragging.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewRay {
    /// Where the ray starts (on the near plane), metres.
    pub origin: Vec3,
    /// Unit direction.
    pub direction: Vec3,
    /// The camera's unit forward vector: the normal of the plane a grab moves in.
    pub forward: Vec3,
}

/// A request to the app loop, applied between frames.
#[derive(Clone, Debug, PartialEq)]
pub enum AppEvent {
    /// Replace the snow parameters (live; density affects particle masses only from the next reset).
    SetMaterial(SnowMaterial),
    /// Restore the material of the scene as loaded.
    ResetMaterial,
    /// Give emitter `i` a material of its own (`None`: the scene's); live, as
    /// [`AppEvent::SetMaterial`].
    SetEmitterMaterial(usize, Option<SnowMaterial>),
    /// Gravitational acceleration, m/s².
    SetGravity(DVec3),
    /// How simulated time advances per frame.
    SetStepMode(StepMode),
    /// Substeps per frame in [`StepMode::FixedSubsteps`].
    SetSubsteps(u32),
    /// Which passes a substep runs (same results, different speed).
    SetSolverPath(powder::sim::sort::bins::SolverPath),
    /// Step with this integrator (and its settings) from the next frame; the particles carry over.
    SetIntegrator(powder::sim::integrator::Integrator),
    /// The fixed substep length, seconds (used while auto dt is off).
    SetDt(f64),
    /// Use the stable dt measured from the particles each frame (`true`) or the fixed dt.
    SetAutoDt(bool),
    /// Wall-clock milliseconds of each UI frame the simulation may take (its substeps per batch,
    /// and in real-time mode the simulated time it tries for).
    SetRealTimeBudget(f64),
    /// Move the particles onto a grid of this many cells along the longest domain edge.
    SetGridResolution(u32),
    /// Respawn the scene's particles (time back to zero).
    Reset,
    /// Go back to a frame the timeline kept (its state restored; play goes on from there).
    GoToFrame(u64),
    /// Keep recent frames within this many MiB to go back to (0: keep none).
    SetTimelineBudget(u64),
    /// Pause or resume.
    TogglePause,
    /// Advance one frame's worth of substeps (while paused).
    Step,
    /// Load a scene (a `.json` scene file, or a bare `.glb`/`.gltf` model wrapped in a default
    /// scene); on failure the current one keeps running.
    LoadScene(SceneSource),
    /// Load the open scene file again (its file or a glTF file it refers to changed on disk); on
    /// failure the running scene keeps running. The camera stays where it is.
    ReloadScene,
    /// Play (`true`) or hold (`false`) the colliders' animation; the snow simulates either way.
    SetAnimationPlaying(bool),
    /// Set the colliders' animation time, seconds of scene time (the time scrubber).
    SetAnimationTime(f64),
    /// Replace the render settings.
    SetRender(RenderSettings),
    /// Replace the mouse-tool settings.
    SetTool(ToolSettings),
    /// Replace the grid view's settings (shown or not, plane, quantity).
    SetGridView(GridViewSettings),
    /// Start grabbing (or repelling) the snow under the cursor.
    ToolStart {
        /// The ray through the cursor.
        ray: ViewRay,
        /// Repel instead of grab.
        repel: bool,
    },
    /// Drop a ball of the material preset `preset` (an id), of the tool's radius, on the snow (or
    /// the floor) where `ray` points: it joins the scene as an emitter of its own material, its
    /// particles at once.
    DropBlob {
        /// The ray through the cursor.
        ray: ViewRay,
        /// The preset's id.
        preset: &'static str,
    },
    /// The cursor moved while the tool is held.
    ToolMove(ViewRay),
    /// Release the tool: grabbed snow keeps the velocity it has (a throw).
    ToolEnd,
    /// Point the camera at the snow's bounding box.
    FrameSnow,
    /// Point the camera at the whole domain.
    FrameDomain,
    /// Show or hide the side panel.
    ToggleUi,
    /// Save the 3D view as PNG. Without a path (F12): the view as the window shows it, overlays
    /// (grid view, plane outline, messages) included, into the screenshots folder. With a path
    /// (`--screenshot`, scripts): the current state rendered offscreen at the view's size.
    Screenshot(Option<PathBuf>),
    /// Save the whole window, side panel included, as PNG into the screenshots folder (Shift+F12).
    CaptureWindow,
    /// Rebuild the MPM kernels and the render pipelines from the shader files on disk (F5, and
    /// the shader watcher of debug builds).
    ReloadShaders,
    /// Ask the window system for a new inner size in physical pixels (script).
    RequestWindowSize(u32, u32),
    /// Minimise or restore the window (script; needs a window manager to have any effect).
    SetMinimized(bool),
    /// Handle a resize to this size as if the window system had sent it (script: X11 cannot
    /// make a 0×0 window, Windows sends 0×0 on minimise).
    SimulateResize(u32, u32),
    /// Destroy the GPU device, as a driver reset would lose it (script: tests the device-lost path).
    SimulateDeviceLoss,
    /// Close the app (exit status 0).
    Quit,
    /// Put back the value the last panel edit replaced (`run::undo`).
    Undo,
    /// Apply again the last edit undone.
    Redo,
    /// Write the running scene, with its edited material, simulation, render and camera settings,
    /// as a scene file here.
    SaveScene(PathBuf),
    /// Ask for a scene file to open with the system's file dialog.
    OpenDialog,
    /// Ask where to save the scene with the system's file dialog.
    SaveDialog,
    /// Start or stop recording the 3D view to a PNG sequence.
    ToggleRecording,
}
