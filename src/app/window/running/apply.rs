//! Applying events between frames: which wait for the simulation's batch in flight, and where
//! each goes (the window, the view, or the driver), every one through the undo history.

use crate::app::events::{AppEvent, GridViewSettings};
use crate::app::panels::grid_view::node_at;
use crate::app::window::capture::CaptureRequest;
use crate::app::window::running::state::{Next, Running};
use crate::app::window::screenshot;

impl Running {
    /// Whether `event` must wait for the simulation's batch in flight: it reads the simulation
    /// back (and a batch is on the GPU), or it goes to the simulation after one that waits.
    pub(super) fn must_wait(&self, event: &AppEvent) -> bool {
        let to_simulation = !event.is_stepping()
            && !matches!(
                event,
                AppEvent::Quit
                    | AppEvent::SetRender(_)
                    | AppEvent::SetGridView(_)
                    | AppEvent::ToggleUi
                    | AppEvent::FrameDomain
                    | AppEvent::Screenshot(_)
                    | AppEvent::CaptureWindow
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

    /// Applies one event between frames.
    pub(super) fn apply(&mut self, event: AppEvent) -> Next {
        // Every event goes through the undo history: an edit is recorded with the value it replaces
        // (refused, it is forgotten), undo and redo become the recorded edit.
        let before = self.driver.edited(&self.render);
        let mut history = std::mem::take(&mut self.history);
        let applied = history.apply(event, std::time::Instant::now(), &before, |event| {
            let errors = self.messages.all_errors().len();
            let next = self.dispatch(event);
            (next, self.messages.all_errors().len() > errors)
        });
        self.history = history;
        applied.unwrap_or_else(|what| {
            self.messages.info(format!("nothing to {what}"));
            Next::Continue
        })
    }

    /// Applies one routed event: to the window, the view, or the driver.
    fn dispatch(&mut self, event: AppEvent) -> Next {
        match event {
            AppEvent::Quit => return Next::Quit,
            AppEvent::SetRender(settings) => self.render = settings,
            AppEvent::SetGridView(settings) => self.set_grid_view(settings),
            AppEvent::ToggleUi => self.show_ui = !self.show_ui,
            AppEvent::FrameDomain => self.frame_domain(),
            AppEvent::FrameSnow => self.frame_snow(),
            AppEvent::SaveScene(_) | AppEvent::OpenDialog | AppEvent::SaveDialog | AppEvent::ToggleRecording => {
                self.apply_file_event(event);
            }
            AppEvent::Screenshot(Some(path)) => self.pending_screenshot = Some(path),
            // What is on screen: the view's part of the next frame, or all of it.
            AppEvent::Screenshot(None) => {
                // Before the view has a size (no frame drawn yet) the whole window.
                let crop = self.view_rect_px;
                self.gfx.capture_next(CaptureRequest { path: screenshot::default_path(), crop });
            }
            AppEvent::CaptureWindow => {
                self.gfx.capture_next(CaptureRequest { path: screenshot::default_path(), crop: None });
            }
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
                self.stats = None; // the Stats numbers are taken again at once
                self.shown.invalidate();
                self.grid_view.invalidate();
                let reload = other == AppEvent::ReloadScene;
                let errors = self.messages.all_errors().len();
                let fresh = self.driver.apply(&self.sim_gpu, other, &mut self.messages);
                if fresh {
                    self.frame_domain();
                    self.use_scene_view();
                    self.set_title();
                }
                if fresh || (reload && self.messages.all_errors().len() == errors) {
                    // The command line's overrides were the old scene's: say they are gone.
                    if let Some(note) = overrides_note(&std::mem::take(&mut self.overrides), self.driver.scene_name()) {
                        self.messages.info(note);
                    }
                }
            }
        }
        Next::Continue
    }

    /// New grid view settings; a view opening (no point placed yet) goes through the node
    /// nearest the snow's centre (its particles' bounding box read back; the domain's centre
    /// without particles).
    fn set_grid_view(&mut self, mut settings: GridViewSettings) {
        if settings.on && settings.focus.is_none() {
            let grid = self.driver.solver().params().grid;
            let centre = match self.driver.particle_bounds(&self.sim_gpu) {
                Ok(Some((lo, hi))) => (0.5 * (lo + hi)).as_dvec3(),
                Ok(None) => 0.5 * (grid.domain_min + grid.domain_max()),
                Err(e) => {
                    self.messages.error(format!("reading the particles failed: {e}"));
                    0.5 * (grid.domain_min + grid.domain_max())
                }
            };
            settings.place(node_at(&grid, centre));
        }
        self.grid_view.set(settings);
    }
}

/// What to say when a scene replaces the one the command line opened with `--set` `overrides`:
/// they applied to that scene only, and `name` runs as its file says. `None` without overrides.
pub fn overrides_note(overrides: &[String], name: &str) -> Option<String> {
    (!overrides.is_empty()).then(|| {
        let set: Vec<String> = overrides.iter().map(|o| format!("--set {o}")).collect();
        format!("{} applied to the scene the command line opened only; {name} runs as its file says", set.join(" "))
    })
}

#[cfg(test)]
mod tests {
    use super::overrides_note;

    /// A scene loaded after the command line's `--set` says the overrides were not applied to it.
    #[test]
    fn a_scene_loaded_later_says_the_command_line_overrides_are_gone() {
        let note = overrides_note(&["grid.resolution=32".to_string()], "ramp_wall").expect("a note");
        assert_eq!(
            note,
            "--set grid.resolution=32 applied to the scene the command line opened only; ramp_wall runs as its file says"
        );
        assert_eq!(overrides_note(&[], "ramp_wall"), None);
    }
}
