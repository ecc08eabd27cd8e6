//! The desktop app: a winit window with the simulation drawn in the middle and egui panels at the
//! side. [`run_app`] owns the event loop; [`running::Running`] does each frame's work.
//!
//! Module map: [`events`] (what the UI asks for), [`driver`] (scene, solver, stepping policy),
//! [`colliders`] (the scene's colliders per frame, the animation clock), [`ui`], [`scene_panel`]
//! and [`stats_panel`] (panels → events), [`input`] (camera, mouse tool, keys), [`tool`] (grab
//! and repel), [`gfx`] (device, surface, view texture, present), [`screenshot`], [`script`]
//! (timed window actions for tests), [`presets`] (materials and built-in scenes),
//! [`scene_files`] (opening scene files and bare glTF models, the scenes folder), [`hot_reload`]
//! (shader and scene files watched for changes), [`stepping`] (how much simulated time a frame
//! advances, within a budget per UI frame), [`shown`] (the simulation's device and the particles
//! the view draws), [`report`] (`--report`), [`view`] (frame inputs, camera framing).

pub mod events;
pub mod model;
pub mod panels;
pub mod run;
pub mod window;

use std::path::PathBuf;

use anyhow::{Context, anyhow};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use powder::scene::Scene;

use events::{AppEvent, SceneSource, StepMode};
use run::driver::Driver;
use run::script::{Script, ScriptStep};
use run::{scene_files, shown};
use window::gfx::Graphics;
use window::running::state::{Next, Running};

/// How to start the app.
pub struct AppOptions {
    /// The scene to open.
    pub scene: Scene,
    /// Its name for messages and the title.
    pub scene_name: String,
    /// Window inner size, physical pixels.
    pub window_size: (u32, u32),
    /// Close after this many frames drawn with the simulation settled (scripted runs:
    /// [`running::Running::settled`]).
    pub frames: Option<u64>,
    /// Save a screenshot of the last frame here (with `frames`).
    pub screenshot: Option<PathBuf>,
    /// Write a JSON summary of the final state here (with `frames`).
    pub report: Option<PathBuf>,
    /// How simulated time advances per frame.
    pub step_mode: StepMode,
    /// Show the side panel.
    pub show_ui: bool,
    /// Timed window actions (tests).
    pub script: Vec<ScriptStep>,
    /// The GPU adapter to run on (`--gpu`, or `POWDER_GPU`); `None`: the best one for the window.
    pub gpu: Option<powder::gpu::GpuChoice>,
    /// The command line's `--set` items (already applied to `scene`; a scene loaded later says
    /// they do not apply to it).
    pub overrides: Vec<String>,
}

/// Opens the window and runs until it is closed, Esc is pressed or the scripted frames are done.
pub fn run_app(options: AppOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new().context(
        "cannot connect to the window system (no X11 DISPLAY or WAYLAND_DISPLAY?); \
         `powder run` simulates without a window",
    )?;
    let mut app =
        App { script: Script::new(options.script.clone()), options, closing: false, running: None, outcome: Ok(()) };
    event_loop.run_app(&mut app).context("the window event loop failed")?;
    app.outcome
}

struct App {
    options: AppOptions,
    /// Set once the app is stopping: no more frames are drawn.
    closing: bool,
    running: Option<Running>,
    script: Script,
    outcome: anyhow::Result<()>,
}

impl App {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> anyhow::Result<Running> {
        let (w, h) = self.options.window_size;
        let attributes = Window::default_attributes()
            .with_title("powder")
            .with_inner_size(winit::dpi::PhysicalSize::new(w.max(1), h.max(1)));
        let gfx = Graphics::new(event_loop, attributes, self.options.gpu.as_ref())?;
        log::info!("GPU: {}", gfx.gpu.describe());
        let (scene, name) = (self.options.scene.clone(), self.options.scene_name.clone());
        let source = scene_files::source_of_name(&name);
        let (sim_gpu, separate) = shown::simulation_gpu(&gfx.gpu);
        if separate {
            gfx.watch_errors(&sim_gpu);
            log::info!("the simulation runs on a device of its own (a software adapter: see app/run/shown.rs)");
        }
        let mut driver = Driver::new(&sim_gpu, scene, name, source, self.options.step_mode)?;
        driver.set_own_device(separate);
        let mut running = Running::new(gfx, sim_gpu, separate, driver, self.options.show_ui);
        running.set_overrides(self.options.overrides.clone());
        Ok(running)
    }

    fn stop(&mut self, event_loop: &ActiveEventLoop, result: anyhow::Result<()>) {
        if self.outcome.is_ok() {
            self.outcome = result;
        }
        self.closing = true;
        event_loop.exit();
    }

    /// After a frame: a scripted run ends once its frames are drawn and its script has played.
    fn finish_if_done(&mut self, event_loop: &ActiveEventLoop) {
        let (Some(frames), Some(running)) = (self.options.frames, &mut self.running) else { return };
        if running.settled_frames < frames || !self.script.done() {
            return;
        }
        let mut result = Ok(());
        if let Some(path) = &self.options.screenshot {
            result = running.screenshot(path).map_err(|e| anyhow!(e));
        }
        if let (Ok(()), Some(path)) = (&result, &self.options.report) {
            result = write_report(running, path);
        }
        self.stop(event_loop, result);
    }
}

fn write_report(running: &Running, path: &std::path::Path) -> anyhow::Result<()> {
    let report = running.report().context("reading the particles for --report")?;
    let json = serde_json::to_string_pretty(&report).context("encoding the report")?;
    std::fs::write(path, json).with_context(|| format!("cannot write the report {}", path.display()))
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        match self.start(event_loop) {
            Ok(running) => self.running = Some(running),
            Err(e) => self.stop(event_loop, Err(e)),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if self.closing {
            return;
        }
        let Some(running) = &mut self.running else { return };
        let repaint = running.on_window_event(&event);
        match event {
            WindowEvent::CloseRequested | WindowEvent::Destroyed => self.stop(event_loop, Ok(())),
            WindowEvent::Resized(size) => running.resize(size.width, size.height),
            // A file dropped on the window opens like the Scene panel's Open button.
            WindowEvent::DroppedFile(path) => running.push(AppEvent::LoadScene(SceneSource::File(path))),
            WindowEvent::RedrawRequested => {
                let next = running.frame(event_loop);
                if running.frames > 0 {
                    self.script.start();
                }
                match next {
                    Next::Continue => {
                        self.finish_if_done(event_loop);
                        if let (false, Some(running)) = (self.closing, &mut self.running) {
                            running.after_frame();
                        }
                    }
                    Next::Quit => self.stop(event_loop, Ok(())),
                    Next::Fail(message) => self.stop(event_loop, Err(anyhow!(message))),
                }
            }
            _ if repaint => running.window().request_redraw(),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.closing {
            return;
        }
        let Some(running) = &mut self.running else { return };
        for event in self.script.due() {
            match event {
                AppEvent::RequestWindowSize(..)
                | AppEvent::SetMinimized(_)
                | AppEvent::SimulateResize(..)
                | AppEvent::SimulateDeviceLoss => running.apply_window_event(&event),
                other => running.push(other),
            }
        }
        if let Some(fault) = running.fault() {
            return self.stop(event_loop, Err(anyhow!(fault)));
        }
        if running.gfx.drawable() {
            // Draw continuously (the simulation runs, and egui needs frames to respond), at most
            // running::MAX_FPS frames a second.
            let next = running.next_frame_at();
            if std::time::Instant::now() >= next {
                running.window().request_redraw();
                event_loop.set_control_flow(ControlFlow::Wait);
            } else {
                event_loop.set_control_flow(ControlFlow::WaitUntil(next));
            }
        } else {
            // Minimised: no frames and no busy loop; wake only for the script's next step.
            let flow = self.script.next_at().map_or(ControlFlow::Wait, ControlFlow::WaitUntil);
            event_loop.set_control_flow(flow);
        }
    }
}
