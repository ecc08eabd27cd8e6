//! The open window's state ([`Running`]) and what the app asks of it between frames: window
//! events, faults, whether the view is settled, the report and screenshots. One frame's work is
//! in `frame.rs`, applying events in `apply.rs`, the file commands in `actions.rs`.

use std::path::PathBuf;

use glam::Vec3;
use winit::window::Window;

use powder::gpu::Gpu;
use powder::render::{Camera, RenderSettings};

use crate::app::events::AppEvent;
use crate::app::model::stats::StatsText;
use crate::app::panels::side::PanelState;
use crate::app::run::driver::Driver;
use crate::app::run::hot_reload::ShaderWatcher;
use crate::app::run::messages::Messages;
use crate::app::run::recording::Recorder;
use crate::app::run::report::{Report, screen_rect};
use crate::app::run::shown::Shown;
use crate::app::run::timing::{FrameClock, FrameTimes};
use crate::app::run::undo::History;
use crate::app::window::gfx::Graphics;
use crate::app::window::grid_view::GridViewPanel;
use crate::app::window::view::default_render_settings;

/// What the 3D view was rendered from besides the particles: camera, render settings, view size.
type ViewInputs = (Camera, RenderSettings, Option<(u32, u32)>);

/// The most frames a second the window draws.
pub const MAX_FPS: f64 = 60.0;

/// What the loop should do after a frame or an event.
#[derive(Debug, PartialEq)]
pub enum Next {
    /// Keep going.
    Continue,
    /// Close the app normally.
    Quit,
    /// Close the app with this error (non-zero exit).
    Fail(String),
}

/// Everything that lives while the window is open.
pub struct Running {
    /// Window, device, surface and renderers.
    pub gfx: Graphics,
    pub(super) egui_ctx: egui::Context,
    pub(super) egui_state: egui_winit::State,
    /// Scene, solver and stepping.
    pub driver: Driver,
    /// The device the simulation runs on: the window's, or one of its own ([`crate::app::run::shown`]).
    pub(super) sim_gpu: Gpu,
    /// The particles the view draws.
    pub(super) shown: Shown,
    /// Events for the simulation waiting for its batch in flight to finish, in order.
    pub(super) deferred: Vec<AppEvent>,
    /// The particles changed since the 3D view was last rendered.
    pub(super) view_stale: bool,
    /// The simulation's step is due after the frame ([`Running::after_frame`]).
    pub(super) step_after_draw: bool,
    /// The camera, render settings and view size the 3D view was last rendered with.
    pub(super) drawn_view: Option<ViewInputs>,
    pub(super) camera: Camera,
    /// A box to frame once the view's aspect ratio is known (in the next egui pass).
    pub(super) frame_request: Option<(Vec3, Vec3)>,
    pub(super) render: RenderSettings,
    pub(super) panel: PanelState,
    pub(super) show_ui: bool,
    /// Messages for the user.
    pub messages: Messages,
    pub(super) clock: FrameClock,
    /// The intervals between presented frames.
    pub(super) frame_times: FrameTimes,
    pub(super) events: Vec<AppEvent>,
    pub(super) last_screenshot: Option<PathBuf>,
    pub(super) pending_screenshot: Option<PathBuf>,
    /// Panel edits to undo and redo.
    pub(super) history: History,
    /// The 3D view's recorder (F9).
    pub(super) recorder: Recorder,
    /// The file dialog being shown, if any.
    pub(super) dialog: Option<crate::app::run::dialog::Dialog>,
    pub(super) gpu_name: String,
    pub(super) draw_ms: f64,
    /// The 3D view's size in window pixels (the view texture may be smaller: `resolution_scale`).
    pub(super) full_view_size: Option<(u32, u32)>,
    /// Frames drawn so far.
    pub frames: u64,
    /// Frames drawn that showed a new finished state of the simulation, or any state while paused
    /// ([`Running::settled`]).
    pub settled_frames: u64,
    /// The simulation's finished frames as of the last frame counted in `settled_frames`.
    pub(super) counted_sim_frames: u64,
    /// Resident memory every `RESIDENT_SAMPLE_FRAMES` frames, for the report.
    pub(super) resident: Vec<[u64; 2]>,
    /// Debug builds: watches `shaders/mpm/` and `shaders/render/` and reloads the kernels and
    /// render pipelines when a file changes.
    pub(super) shader_watcher: Option<ShaderWatcher>,
    /// The motion estimate summed since the last frame drawn
    /// ([`powder::render::FrameInputs::moved`]); `None`: unknown (an event may have replaced or
    /// pushed the particles), so the renderer splats its density volume again.
    pub(super) moved_since_drawn: Option<f32>,
    /// The Stats numbers as last taken (`None`: take them at the next frame).
    pub(super) stats: Option<StatsText>,
    /// The 3D view's rectangle in window pixels `[x, y, width, height]` (F12 captures it).
    pub(super) view_rect_px: Option<[u32; 4]>,
    /// The command line's `--set` items, until a scene replaces the one they were applied to.
    pub(super) overrides: Vec<String>,
    /// The plane through the grid shown over the 3D view.
    pub(super) grid_view: GridViewPanel,
}

impl Running {
    /// Wraps a freshly opened window and a driver whose simulation runs on `sim_gpu` (the window's
    /// device, or one of its own: `separate`).
    pub fn new(gfx: Graphics, sim_gpu: Gpu, separate: bool, driver: Driver, show_ui: bool) -> Self {
        let egui_ctx = egui::Context::default();
        let max_texture = gfx.gpu.device.limits().max_texture_dimension_2d as usize;
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &*gfx.window,
            Some(gfx.window.scale_factor() as f32),
            gfx.window.theme(),
            Some(max_texture),
        );
        let gpu_name = gfx.gpu.describe();
        let render = default_render_settings(&gfx.gpu.info);
        let shown = Shown::new(&gfx.gpu, separate);
        let mut running = Self {
            gfx,
            egui_ctx,
            egui_state,
            driver,
            shown,
            sim_gpu,
            deferred: Vec::new(),
            view_stale: true,
            step_after_draw: false,
            drawn_view: None,
            camera: Camera::default(),
            frame_request: None,
            render,
            panel: PanelState::default(),
            show_ui,
            messages: Messages::default(),
            clock: FrameClock::default(),
            frame_times: FrameTimes::default(),
            events: Vec::new(),
            last_screenshot: None,
            pending_screenshot: None,
            history: Default::default(),
            recorder: Default::default(),
            dialog: None,
            shader_watcher: ShaderWatcher::for_debug_builds(),
            moved_since_drawn: None,
            stats: None,
            view_rect_px: None,
            overrides: Vec::new(),
            grid_view: Default::default(),
            gpu_name,
            draw_ms: 0.0,
            full_view_size: None,
            frames: 0,
            settled_frames: 0,
            counted_sim_frames: 0,
            resident: Vec::new(),
        };
        running.frame_domain();
        running.use_scene_view();
        running.set_title();
        running
    }

    /// When the next frame may start: at most [`MAX_FPS`] frames a second. A faster loop would
    /// only take the CPU from the simulation (on a software driver, the same cores) and from
    /// the window system.
    pub fn next_frame_at(&self) -> std::time::Instant {
        self.clock.last_tick() + std::time::Duration::from_secs_f64(1.0 / MAX_FPS)
    }

    /// The window.
    pub fn window(&self) -> &Window {
        &self.gfx.window
    }

    /// Passes a window event to egui; returns whether egui wants a redraw.
    pub fn on_window_event(&mut self, event: &winit::event::WindowEvent) -> bool {
        self.egui_state.on_window_event(&self.gfx.window, event).repaint
    }

    /// The command line's `--set` items applied to the scene it opened (a scene loaded later says
    /// they are not applied to it).
    pub fn set_overrides(&mut self, overrides: Vec<String>) {
        self.overrides = overrides;
    }

    /// Queues an event for the next frame.
    pub fn push(&mut self, event: AppEvent) {
        self.events.push(event);
    }

    /// Follows a window resize (0×0 = minimised: nothing is drawn until it has an area again).
    pub fn resize(&mut self, width: u32, height: u32) {
        let was_drawable = self.gfx.drawable();
        log::debug!("resize to {width}×{height} (frame {})", self.frames);
        self.gfx.resize(width, height);
        if self.gfx.drawable() && !was_drawable {
            self.clock.restart(); // the minimised time is not simulated
            self.frame_times.restart(); // nor is it a frame time
        }
    }

    /// Applies window-level events at once (they must work while no frames are drawn).
    pub fn apply_window_event(&mut self, event: &AppEvent) {
        match *event {
            AppEvent::RequestWindowSize(w, h) => {
                let _ = self.gfx.window.request_inner_size(winit::dpi::PhysicalSize::new(w.max(1), h.max(1)));
            }
            AppEvent::SetMinimized(on) => self.gfx.window.set_minimized(on),
            AppEvent::SimulateResize(w, h) => self.resize(w, h),
            AppEvent::SimulateDeviceLoss => self.gfx.gpu.device.destroy(),
            _ => {}
        }
    }

    /// A fault that ends the app: device lost or an uncaptured GPU error.
    pub fn fault(&self) -> Option<String> {
        if [&self.gfx.gpu, &self.sim_gpu].iter().any(|gpu| gpu.lost.load(std::sync::atomic::Ordering::SeqCst)) {
            return Some(format!(
                "the GPU device was lost (driver reset or crash, frame {}); powder cannot continue",
                self.frames
            ));
        }
        Some(format!("GPU error: {}", self.gfx.gpu_error()?))
    }

    /// Whether the view shows a finished state of the simulation: no batch of substeps on the GPU,
    /// no frame of the simulation in progress (unless paused), the view's copy of the particles
    /// up to date and no event waiting. Scripted runs count such frames (`--frames`).
    pub fn settled(&self) -> bool {
        self.driver.stepper().settled() && self.shown.current() && self.deferred.is_empty()
    }

    /// Gives the renderer the collider meshes at the current time when they moved (or the scene
    /// or grid changed); screenshots draw with the same renderer, so they show them too. Returns
    /// whether they did.
    pub(super) fn update_collider_meshes(&mut self) -> bool {
        let sim_time = self.driver.stepper().sim_time().0;
        let Some(meshes) = self.driver.colliders_mut().meshes_to_draw(sim_time) else { return false };
        let gpu = &self.gfx.gpu;
        self.gfx.scene_renderer.set_meshes(&gpu.device, &gpu.queue, &meshes);
        true
    }

    pub(super) fn set_title(&self) {
        self.gfx.window.set_title(&format!("powder — {}", self.driver.scene_name()));
    }

    pub(super) fn frame_domain(&mut self) {
        let grid = self.driver.solver().params().grid;
        self.frame_request = Some((grid.domain_min.as_vec3(), grid.domain_max().as_vec3()));
    }

    pub(super) fn frame_snow(&mut self) {
        match self.driver.particle_bounds(&self.sim_gpu) {
            Ok(Some((lo, hi))) => {
                let pad = Vec3::splat(self.driver.spacing() as f32);
                self.frame_request = Some((lo - pad, hi + pad));
            }
            Ok(None) => self.messages.info("no particles to frame"),
            Err(e) => self.messages.error(format!("reading the particles failed: {e}")),
        }
    }

    /// The `--report` summary: the driver's, plus the window and where the snow is on screen.
    pub fn report(&self) -> Result<Report, powder::sim::SolverError> {
        let mut report = self.driver.report(&self.sim_gpu)?;
        report.frames = self.frames;
        report.settled_frames = self.settled_frames;
        report.mean_fps = self.clock.mean_fps();
        report.ui_frame_ms = self.frame_times.summary();
        report.errors = self.messages.all_errors().to_vec();
        report.resident_bytes = self.resident.clone();
        let size = self.gfx.window.inner_size();
        report.window_size = [size.width, size.height];
        report.collider_triangles = self.gfx.scene_renderer.mesh_triangle_count();
        let colliders = self.driver.colliders().bounds(self.driver.stepper().sim_time().0);
        report.collider_bounds = colliders.iter().map(|b| b.map(|(lo, hi)| [lo.to_array(), hi.to_array()])).collect();
        if let Some((w, h)) = self.full_view_size {
            report.view_size = [w, h];
            let (lo, hi) = (Vec3::from(report.bbox_min), Vec3::from(report.bbox_max));
            report.snow_rect_px = screen_rect(&self.camera, lo, hi, (w, h));
            let rect = |b: &Option<(Vec3, Vec3)>| b.and_then(|(lo, hi)| screen_rect(&self.camera, lo, hi, (w, h)));
            report.collider_rects_px = colliders.iter().map(rect).collect();
        }
        Ok(report)
    }

    /// Renders the current state into an offscreen target and saves it at `path`.
    pub fn screenshot(&mut self, path: &std::path::Path) -> Result<(), String> {
        // Splatted afresh: the frame before may not have been drawn.
        self.save_view(path, None)?;
        self.messages.info(format!("screenshot saved to {}", path.display()));
        self.last_screenshot = Some(path.to_path_buf());
        Ok(())
    }
}
