//! The open window's state and one frame of the loop: egui pass (panels and view input → events),
//! events applied, the simulation's share of the frame (the batch of substeps in flight looked at,
//! the next one submitted), scene and UI drawn, screenshot taken. Nothing here waits for the
//! simulation longer than its budget per frame, except events that read its state back, which are
//! held (the frame goes on being drawn) until its batch in flight is done.

use std::path::PathBuf;

use egui::Sense;
use glam::Vec3;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use powder::gpu::Gpu;
use powder::render::{Camera, RenderSettings};

use super::driver::Driver;
use super::events::AppEvent;
use super::gfx::{EguiFrame, Graphics, Presented};
use super::messages::Messages;
use super::report::{RESIDENT_SAMPLE_FRAMES, Report, resident_bytes, screen_rect};
use super::shown::Shown;
use super::timing::{FrameClock, FrameTimes};
use super::ui::{PanelModel, PanelState};
use super::view::{default_render_settings, frame_box, frame_inputs};
use super::{input, screenshot, ui};

mod actions;

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
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    /// Scene, solver and stepping.
    pub driver: Driver,
    /// The device the simulation runs on: the window's, or one of its own ([`super::shown`]).
    sim_gpu: Gpu,
    /// The particles the view draws.
    shown: Shown,
    /// Events for the simulation waiting for its batch in flight to finish, in order.
    deferred: Vec<AppEvent>,
    /// The particles changed since the 3D view was last rendered.
    view_stale: bool,
    /// The simulation's step is due after the frame ([`Running::after_frame`]).
    step_after_draw: bool,
    /// The camera, render settings and view size the 3D view was last rendered with.
    drawn_view: Option<ViewInputs>,
    camera: Camera,
    /// A box to frame once the view's aspect ratio is known (in the next egui pass).
    frame_request: Option<(Vec3, Vec3)>,
    render: RenderSettings,
    panel: PanelState,
    show_ui: bool,
    /// Messages for the user.
    pub messages: Messages,
    clock: FrameClock,
    /// The intervals between presented frames.
    frame_times: FrameTimes,
    events: Vec<AppEvent>,
    last_screenshot: Option<PathBuf>,
    pending_screenshot: Option<PathBuf>,
    /// Panel edits to undo and redo.
    history: super::undo::History,
    /// The 3D view's recorder (F9).
    recorder: super::recording::Recorder,
    /// The file dialog being shown, if any.
    dialog: Option<super::dialog::Dialog>,
    gpu_name: String,
    draw_ms: f64,
    /// The 3D view's size in window pixels (the view texture may be smaller: `resolution_scale`).
    full_view_size: Option<(u32, u32)>,
    /// Frames drawn so far.
    pub frames: u64,
    /// Frames drawn that showed a new finished state of the simulation, or any state while paused
    /// ([`Running::settled`]).
    pub settled_frames: u64,
    /// The simulation's finished frames as of the last frame counted in `settled_frames`.
    counted_sim_frames: u64,
    /// Resident memory every `RESIDENT_SAMPLE_FRAMES` frames, for the report.
    resident: Vec<[u64; 2]>,
    /// Debug builds: watches `shaders/mpm/` and `shaders/render/` and reloads the kernels and
    /// render pipelines when a file changes.
    shader_watcher: Option<super::hot_reload::ShaderWatcher>,
    /// The motion estimate summed since the last frame drawn
    /// ([`powder::render::FrameInputs::moved`]); `None`: unknown (an event may have replaced or
    /// pushed the particles), so the renderer splats its density volume again.
    moved_since_drawn: Option<f32>,
    /// The plane through the grid shown over the 3D view.
    grid_view: super::grid_view_panel::GridViewPanel,
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
            shader_watcher: super::hot_reload::ShaderWatcher::for_debug_builds(),
            moved_since_drawn: None,
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

    /// Runs one frame. Returns what the loop should do next.
    pub fn frame(&mut self, event_loop: &ActiveEventLoop) -> Next {
        // Nothing here waits on the window's device, so it is polled for its callbacks (a lost
        // device among them) without waiting.
        self.gfx.gpu.poll(None, None);
        if let Some(fault) = self.fault() {
            return Next::Fail(fault);
        }
        if !self.gfx.drawable() {
            return Next::Continue;
        }
        let wall_dt = self.clock.tick().as_secs_f64();
        let frame_start = std::time::Instant::now();
        let (egui_frame, mut events) = self.run_egui(event_loop);
        let egui_ms = frame_start.elapsed().as_secs_f64() * 1e3;
        if self.shader_watcher.as_mut().is_some_and(|w| w.changed()) {
            events.push(AppEvent::ReloadShaders);
        }
        if self.driver.scene_changed_on_disk() {
            self.messages.info("the scene's files changed on disk: reloading");
            events.push(AppEvent::ReloadScene);
        }
        let mut next = Next::Continue;
        for event in events {
            if self.must_wait(&event) {
                self.deferred.push(event);
            } else if self.apply(event) == Next::Quit {
                next = Next::Quit;
            }
        }
        // Where the simulation has a device of its own, its next batch is submitted after the
        // draw (`after_frame`): a software driver's compute threads serve both devices, and a
        // frame that renders the view anew (a batch just came back) then has them to itself.
        let after_draw = self.shown.copies();
        self.driver.start_ui_frame(wall_dt);
        self.step_simulation(after_draw, false);
        if !self.deferred.is_empty() && !self.driver.busy() {
            // The batch is done: what waited for it reads the simulation now, without waiting.
            for event in std::mem::take(&mut self.deferred) {
                if self.apply(event) == Next::Quit {
                    next = Next::Quit;
                }
            }
        }
        self.shown.sync(&self.sim_gpu, self.driver.solver(), self.driver.busy());
        self.grid_view.update(
            &self.sim_gpu,
            self.driver.solver(),
            self.driver.busy(),
            &self.egui_ctx,
            &mut self.messages,
        );
        // A copy of the particles from the simulation's device: the batches it follows are those
        // the motion bound below covers, or an event that made the bound unknown.
        let copied = self.shown.poll(&self.sim_gpu);
        // The particles the view draws changed: a copy arrived, or (sharing the device) a batch ran.
        let ui_sim = self.driver.stepper().ui_frame();
        if copied || (!self.shown.copies() && ui_sim.batches + ui_sim.collected > 0) {
            self.view_stale = true;
        }
        let sim_ms = frame_start.elapsed().as_secs_f64() * 1e3 - egui_ms;
        let colliders_moved = self.update_collider_meshes();
        // An estimate of how far the snow moved since the last frame drawn (frames skipped by the
        // surface add up), unknown once something the solver's stats do not see pushed it: the
        // renderer reuses its density volume while that is small.
        let bound = if colliders_moved || self.driver.tool.is_held() {
            None
        } else {
            self.driver.stepper().motion_bound(self.driver.gravity().length()).map(|m| m as f32)
        };
        self.moved_since_drawn = self.moved_since_drawn.zip(bound).map(|(a, b)| a + b);
        // A finished state counts once (the next frame may show it again before the simulation's
        // next frame starts), any state while paused every time.
        let sim_frames = self.driver.stepper().frames_finished();
        let settled = self.settled() && (self.driver.stepper().paused() || sim_frames > self.counted_sim_frames);
        // The 3D view is rendered again only when something it shows changed; otherwise the last
        // one is shown again (the panel's layer likewise): while the simulation is slower than
        // the frame rate, most frames draw only egui.
        let view = (self.camera, self.render, self.full_view_size);
        let stale = self.view_stale
            || self.drawn_view != Some(view)
            || self.moved_since_drawn.is_none()
            || colliders_moved
            || self.driver.tool.is_held();
        let inputs = frame_inputs(&self.driver, &self.shown, &self.camera, &self.render, self.moved_since_drawn);
        let draw_start = std::time::Instant::now();
        let presented = self.gfx.draw(stale.then_some(&inputs), egui_frame);
        // On a software rasteriser present waits for the frame's rendering; elsewhere this is
        // mostly the CPU side of recording and submitting.
        self.draw_ms = draw_start.elapsed().as_secs_f64() * 1e3;
        log::debug!(
            "frame {}: {:.1} ms since the last, egui {egui_ms:.1} ms, events and simulation {sim_ms:.1} ms, draw {:.1} ms \
             (3D view {})",
            self.frames,
            wall_dt * 1e3,
            self.draw_ms,
            if stale { "rendered" } else { "reused" }
        );
        if presented == Presented::Yes {
            self.frame_times.presented(std::time::Instant::now());
            self.frames += 1;
            if settled {
                self.settled_frames += 1;
                self.counted_sim_frames = sim_frames;
            }
            if self.frames % RESIDENT_SAMPLE_FRAMES == 0
                && let Some(bytes) = resident_bytes()
            {
                self.resident.push([self.frames, bytes]);
            }
            if stale {
                self.moved_since_drawn = Some(0.0);
                (self.view_stale, self.drawn_view) = (false, Some(view));
            }
        }
        self.step_after_draw = after_draw;
        if let Some(path) = self.pending_screenshot.take() {
            // A screenshot failure from a key press is a message; the script treats it as fatal.
            if let Err(e) = self.screenshot(&path) {
                self.messages.error(e);
            }
        }
        // Recorded: frames whose 3D view was drawn anew (a skipped frame drew nothing).
        self.record_frame(stale && presented == Presented::Yes);
        next
    }

    fn run_egui(&mut self, event_loop: &ActiveEventLoop) -> (EguiFrame, Vec<AppEvent>) {
        let raw = self.egui_state.take_egui_input(&self.gfx.window);
        let mut events = std::mem::take(&mut self.events);
        let Self {
            gfx,
            driver,
            camera,
            frame_request,
            render,
            panel,
            show_ui,
            messages,
            clock,
            frame_times,
            last_screenshot,
            gpu_name,
            draw_ms,
            full_view_size,
            history,
            recorder,
            grid_view,
            ..
        } = self;
        let model = PanelModel {
            driver,
            render,
            clock,
            frame_times,
            messages,
            gpu_name,
            last_screenshot: last_screenshot.as_deref(),
            draw_ms: *draw_ms,
            history,
            recorder,
            grid_view: &grid_view.settings,
        };
        let output = self.egui_ctx.run_ui(raw, |ui| {
            if *show_ui {
                egui::Panel::left("controls")
                    .default_size(300.0)
                    .show(ui, |ui| ui::side_panel(ui, &model, panel, &mut events));
            }
            egui::CentralPanel::no_frame().show(ui, |ui| {
                let rect = ui.available_rect_before_wrap();
                let response = ui.allocate_rect(rect, Sense::click_and_drag());
                if let Some((lo, hi)) = frame_request.take() {
                    frame_box(camera, lo, hi, rect.aspect_ratio());
                }
                let ppp = ui.ctx().pixels_per_point();
                let (w, h) = ((rect.width() * ppp).round() as u32, (rect.height() * ppp).round() as u32);
                if w > 0 && h > 0 {
                    *full_view_size = Some((w, h));
                    let scale = render.resolution_scale.clamp(0.25, 1.0);
                    let scaled = |n: u32| ((n as f32 * scale).round() as u32).max(1);
                    ui.painter().add(gfx.view_shape(scaled(w), scaled(h), rect));
                }
                grid_view.overlay(ui, rect, camera, &model.driver.solver().params().grid);
                let tool = &model.driver.tool;
                input::view(ui, &response, camera, tool, &mut events);
            });
            input::keys(ui, &mut events);
        });
        self.egui_state.handle_platform_output_with_event_loop(&self.gfx.window, event_loop, output.platform_output);
        let primitives = self.egui_ctx.tessellate(output.shapes, output.pixels_per_point);
        let frame =
            EguiFrame { primitives, textures: output.textures_delta, pixels_per_point: output.pixels_per_point };
        (frame, events)
    }

    /// After a frame, once the app goes on: where the simulation has a device of its own, its next
    /// batch is submitted now that the frame is drawn (see [`Running::frame`]). A scripted run
    /// that ends with the frame writes its report and screenshot before this, from the state the
    /// frame showed.
    pub fn after_frame(&mut self) {
        if std::mem::take(&mut self.step_after_draw) {
            let start = std::time::Instant::now();
            self.step_simulation(false, true);
            log::debug!("simulation after the draw: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
        }
    }

    /// The simulation's work in this UI frame ([`Driver::step`]), before or after (`drawn`) the
    /// draw; with `hold` (or events waiting) nothing new is submitted.
    fn step_simulation(&mut self, hold: bool, drawn: bool) {
        let Self { driver, sim_gpu, shown, messages, deferred, .. } = self;
        let hold = hold || !deferred.is_empty();
        driver.step(sim_gpu, hold, drawn, messages, &mut |solver, encoder| shown.record_copy(sim_gpu, solver, encoder));
    }

    /// Whether `event` must wait for the simulation's batch in flight: it reads the simulation
    /// back (and a batch is on the GPU), or it goes to the simulation after one that waits.
    fn must_wait(&self, event: &AppEvent) -> bool {
        let to_simulation = !event.is_stepping()
            && !matches!(
                event,
                AppEvent::Quit
                    | AppEvent::SetRender(_)
                    | AppEvent::SetGridView(_)
                    | AppEvent::ToggleUi
                    | AppEvent::FrameDomain
                    | AppEvent::Screenshot(_)
                    | AppEvent::ToggleRecording
                    | AppEvent::OpenDialog
                    | AppEvent::SaveDialog
                    | AppEvent::RequestWindowSize(..)
                    | AppEvent::SetMinimized(_)
                    | AppEvent::SimulateResize(..)
                    | AppEvent::SimulateDeviceLoss
            );
        (to_simulation && !self.deferred.is_empty()) || (event.reads_simulation() && self.driver.busy())
    }

    /// Whether the view shows a finished state of the simulation: no batch of substeps on the GPU,
    /// no frame of the simulation in progress (unless paused), the view's copy of the particles
    /// up to date and no event waiting. Scripted runs count such frames (`--frames`).
    pub fn settled(&self) -> bool {
        self.driver.stepper().settled() && self.shown.current() && self.deferred.is_empty()
    }

    /// Applies one event between frames.
    fn apply(&mut self, event: AppEvent) -> Next {
        let Some(event) = self.route_edit(event) else { return Next::Continue };
        let errors = self.messages.all_errors().len();
        match event {
            AppEvent::Quit => return Next::Quit,
            AppEvent::SetRender(settings) => self.render = settings,
            AppEvent::SetGridView(settings) => self.grid_view.set(settings),
            AppEvent::ToggleUi => self.show_ui = !self.show_ui,
            AppEvent::FrameDomain => self.frame_domain(),
            AppEvent::FrameSnow => self.frame_snow(),
            AppEvent::SaveScene(_) | AppEvent::OpenDialog | AppEvent::SaveDialog | AppEvent::ToggleRecording => {
                self.apply_file_event(event);
            }
            AppEvent::Screenshot(path) => self.pending_screenshot = Some(path.unwrap_or_else(screenshot::default_path)),
            AppEvent::RequestWindowSize(..)
            | AppEvent::SetMinimized(_)
            | AppEvent::SimulateResize(..)
            | AppEvent::SimulateDeviceLoss => self.apply_window_event(&event),
            AppEvent::ReloadShaders => {
                // The render passes first (here: the renderer belongs to the window), then the MPM
                // kernels (the driver's). Each keeps its last good pipelines on a broken edit.
                let dir = powder::sim::shaders::source_dir();
                let gpu = &self.gfx.gpu;
                match self.gfx.scene_renderer.reload_shaders(&gpu.device, &dir) {
                    Ok(()) => self.messages.info(format!("render shaders reloaded from {}", dir.display())),
                    Err(e) => self
                        .messages
                        .error(format!("render shader reload failed, the last good pipelines keep drawing: {e}")),
                }
                self.driver.apply(&self.sim_gpu, AppEvent::ReloadShaders, &mut self.messages);
            }
            other => {
                // Requests for the simulation may replace or push the particles; the Stats
                // numbers are taken again at once.
                self.moved_since_drawn = None;
                self.panel.refresh_stats();
                self.shown.invalidate();
                if self.driver.apply(&self.sim_gpu, other, &mut self.messages) {
                    self.frame_domain();
                    self.use_scene_view();
                    self.set_title();
                }
            }
        }
        if self.messages.all_errors().len() > errors {
            self.history.refused(); // a refused edit changed nothing: nothing to undo
        }
        Next::Continue
    }

    /// Gives the renderer the collider meshes at the current time when they moved (or the scene
    /// or grid changed); screenshots draw with the same renderer, so they show them too. Returns
    /// whether they did.
    fn update_collider_meshes(&mut self) -> bool {
        let sim_time = self.driver.stepper().sim_time().0;
        let Some(meshes) = self.driver.colliders_mut().meshes_to_draw(sim_time) else { return false };
        let gpu = &self.gfx.gpu;
        self.gfx.scene_renderer.set_meshes(&gpu.device, &gpu.queue, &meshes);
        true
    }

    fn set_title(&self) {
        self.gfx.window.set_title(&format!("powder — {}", self.driver.scene_name()));
    }

    fn frame_domain(&mut self) {
        let grid = self.driver.solver().params().grid;
        self.frame_request = Some((grid.domain_min.as_vec3(), grid.domain_max().as_vec3()));
    }

    fn frame_snow(&mut self) {
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
