//! One frame of the loop: the egui pass (the model built, panels and view input → events), events
//! applied, the simulation's share of the frame, scene and UI drawn, screenshot taken.

use egui::Sense;
use winit::event_loop::ActiveEventLoop;

use crate::app::events::AppEvent;
use crate::app::model::frame::{Model, WindowShown};
use crate::app::model::stats::{REFRESH, StatsText};
use crate::app::panels::{overlay, side};
use crate::app::run::recording::screenshot_folder;
use crate::app::run::report::{RESIDENT_SAMPLE_FRAMES, resident_bytes};
use crate::app::window::gfx::{EguiFrame, Presented};
use crate::app::window::input;
use crate::app::window::running::state::{Next, Running};
use crate::app::window::view::{frame_box, frame_inputs};
use std::time::Instant;

impl Running {
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
        let frame_start = Instant::now();
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
            (self.driver.busy(), self.driver.stepper().sim_time()),
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
        let recorded = stale && self.request_recorded_frame();
        let inputs = frame_inputs(&self.driver, &self.shown, &self.camera, &self.render, self.moved_since_drawn);
        let draw_start = Instant::now();
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
            self.frame_times.presented(Instant::now());
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
        match self.gfx.take_captured() {
            Some(Ok(path)) => {
                self.messages.info(format!("screenshot saved to {}", path.display()));
                self.last_screenshot = Some(path);
            }
            Some(Err(e)) => self.messages.error(e),
            None => {}
        }
        if let Some(path) = self.pending_screenshot.take() {
            // A screenshot failure from a key press is a message; the script treats it as fatal.
            if let Err(e) = self.screenshot(&path) {
                self.messages.error(e);
            }
        }
        // Recorded: frames whose 3D view was drawn anew (a skipped frame drew nothing).
        self.record_frame(recorded, stale && presented == Presented::Yes);
        next
    }

    fn run_egui(&mut self, event_loop: &ActiveEventLoop) -> (EguiFrame, Vec<AppEvent>) {
        let raw = self.egui_state.take_egui_input(&self.gfx.window);
        let mut events = std::mem::take(&mut self.events);
        // The Stats numbers are taken again when they are older than REFRESH (or an event
        // dropped them): between refreshes the panel shows the same text and its pixels are reused.
        if self.stats.as_ref().is_none_or(|t| t.taken.elapsed() >= REFRESH) {
            self.stats = Some(StatsText::collect(&self.driver, &self.clock, &self.frame_times, self.draw_ms));
        }
        let Self {
            gfx,
            driver,
            camera,
            frame_request,
            render,
            panel,
            show_ui,
            messages,
            last_screenshot,
            gpu_name,
            full_view_size,
            view_rect_px,
            history,
            recorder,
            grid_view,
            stats,
            ..
        } = self;
        let window = WindowShown {
            render: *render,
            grid_view: grid_view.settings,
            gpu_name,
            next_undo: history.next_undo(),
            next_redo: history.next_redo(),
            recording: recorder.recording(),
            recorded: recorder.status(),
            last_screenshot: last_screenshot.as_deref(),
            screenshot_folder: screenshot_folder(),
        };
        let model = Model::build(driver, stats.as_ref().expect("taken above"), messages, window);
        let output = self.egui_ctx.run_ui(raw, |ui| {
            if *show_ui {
                egui::Panel::left("controls")
                    .default_size(300.0)
                    .show(ui, |ui| side::side_panel(ui, &model, panel, &mut events));
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
                    let (x, y) = ((rect.min.x * ppp).round() as u32, (rect.min.y * ppp).round() as u32);
                    *view_rect_px = Some([x, y, w, h]);
                    let scale = render.resolution_scale.clamp(0.25, 1.0);
                    let scaled = |n: u32| ((n as f32 * scale).round() as u32).max(1);
                    ui.painter().add(gfx.view_shape(scaled(w), scaled(h), rect));
                }
                grid_view.overlay(ui, rect, camera, &model.grid);
                input::view(ui, &response, camera, &driver.tool, &mut events);
                let lines = overlay::overlay_lines(model.stats.real_time.as_ref(), model.messages, Instant::now());
                overlay::draw(ui, rect, &lines);
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
            let start = Instant::now();
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
}
