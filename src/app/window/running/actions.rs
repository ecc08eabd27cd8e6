//! The file commands of the running app: saving the scene, the file dialogs,
//! recording the 3D view, and the camera and render settings a scene file brings.

use std::path::{Path, PathBuf};

use crate::app::events::{AppEvent, SceneSource};
use crate::app::run::dialog::{Dialog, Purpose};
use crate::app::run::recording::recording_folder;
use crate::app::run::save::{absolute, folder_of, scene_to_save, write};
use crate::app::window::capture::CaptureRequest;
use crate::app::window::running::state::Running;

impl Running {
    /// Save, the dialogs and recording.
    pub(super) fn apply_file_event(&mut self, event: AppEvent) {
        match event {
            AppEvent::SaveScene(path) => self.save_scene(&path),
            AppEvent::OpenDialog => self.show_dialog(Purpose::Open),
            AppEvent::SaveDialog => self.show_dialog(Purpose::Save),
            AppEvent::ToggleRecording if self.recorder.recording() => {
                let message = self.recorder.stop();
                self.messages.info(message);
            }
            AppEvent::ToggleRecording => match self.recorder.start(&recording_folder()) {
                Ok(folder) => self.messages.info(format!("recording the 3D view to {}", folder.display())),
                Err(e) => self.messages.error(e),
            },
            _ => {}
        }
    }

    /// The folder of the running scene's file (the working directory for a built-in scene).
    fn scene_dir(&self) -> PathBuf {
        match self.driver.source() {
            SceneSource::File(path) => folder_of(path),
            SceneSource::Builtin(_) => PathBuf::from("."),
        }
    }

    fn save_scene(&mut self, path: &Path) {
        let (_, _, auto_dt, fixed_dt, _) = self.driver.stepper().settings();
        let scene_dir = self.scene_dir();
        let scene =
            scene_to_save(self.driver.scene(), (auto_dt, fixed_dt), &self.camera, &self.render, &scene_dir, path);
        match write(&scene, path) {
            Ok(()) => self.messages.info(format!("scene saved to {}", absolute(path).display())),
            Err(e) => self.messages.error(e),
        }
    }

    /// Shows the file dialog; without one, Open says how else to open a file and Save writes
    /// a numbered file beside the scene.
    fn show_dialog(&mut self, purpose: Purpose) {
        if self.dialog.is_some() {
            return self.messages.info("a file dialog is already open");
        }
        let dir = absolute(&self.scene_dir());
        let suggestion = self.save_suggestion(&dir);
        let name = suggestion.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match Dialog::show(purpose, &dir, &name) {
            Ok(dialog) => self.dialog = Some(dialog),
            Err(why) if purpose == Purpose::Open => {
                self.messages.error(format!("{why}: type a path in the Scene section or drop the file on the window"));
            }
            Err(why) => {
                self.messages.info(format!("{why}: saving to {}", suggestion.display()));
                self.save_scene(&suggestion);
            }
        }
    }

    /// `NAME_edited_NNN.json` beside the scene file (in the working directory for a built-in
    /// scene), the first number not taken.
    fn save_suggestion(&self, dir: &Path) -> PathBuf {
        let stem = match self.driver.source() {
            SceneSource::File(path) => path.file_stem().map_or("scene".into(), |s| s.to_string_lossy().into_owned()),
            SceneSource::Builtin(_) => "scene".to_string(),
        };
        crate::app::run::recording::first_free(dir, &format!("{stem}_edited"), ".json")
    }

    /// Before a frame whose 3D view is drawn anew, while recording: asks for the frame's capture
    /// of the view's part of the window, so that the recorded frame holds what is on screen (the
    /// grid view, the plane's outline, the messages), as F12 does. Returns whether it asked;
    /// where the surface cannot be copied, [`Running::record_frame`] renders the view offscreen.
    pub(super) fn request_recorded_frame(&mut self) -> bool {
        if !self.gfx.can_capture() || !self.recorder.recording() {
            return false;
        }
        let Some(path) = self.recorder.next_frame() else { return false };
        self.gfx.record_next(CaptureRequest { path, crop: self.view_rect_px });
        true
    }

    /// Each frame: the dialog's answer once it is closed, the recorded frame (`requested` by
    /// [`Running::request_recorded_frame`], or rendered offscreen when the view was `drawn` anew
    /// and the window cannot be copied), and the end of an mp4 encode.
    pub(super) fn record_frame(&mut self, requested: bool, drawn: bool) {
        if let Some(answer) = self.dialog.as_mut().and_then(Dialog::poll) {
            let purpose = self.dialog.take().map(|d| d.purpose);
            match (answer, purpose) {
                (Ok(Some(path)), Some(Purpose::Open)) => self.events.push(AppEvent::LoadScene(SceneSource::File(path))),
                (Ok(Some(path)), _) => self.events.push(AppEvent::SaveScene(path)),
                (Ok(None), _) => {}
                (Err(e), _) => self.messages.error(e),
            }
        }
        let saved = if requested {
            let saved = self.gfx.take_recorded();
            if saved.is_none() {
                // No frame drawn: its number is given back, so the sequence has no gap for ffmpeg.
                self.recorder.drop_frame();
            }
            saved.map(|r| r.map(drop))
        } else if drawn && let Some(path) = self.recorder.next_frame() {
            Some(self.save_view(&path, Some(0.0)))
        } else {
            None
        };
        if let Some(Err(e)) = saved {
            self.recorder.drop_frame();
            self.messages.error(format!("recording stopped: {e}"));
            let message = self.recorder.stop();
            self.messages.info(message);
        }
        match self.recorder.poll_encode() {
            Some(Ok(message)) => self.messages.info(message),
            Some(Err(message)) => self.messages.error(message),
            None => {}
        }
    }

    /// Renders the 3D view at its full size into `path`. `moved` is the motion bound since the view
    /// was last drawn: a recorded frame, saved right after the view was drawn from the same state,
    /// passes 0 and reuses the renderer's volume and surface (only the drawing is repeated); a
    /// screenshot passes `None` (the frame before may not have been drawn) and splats afresh.
    pub(super) fn save_view(&mut self, path: &Path, moved: Option<f32>) -> Result<(), String> {
        let Some(size) = self.full_view_size else {
            return Err("no 3D view to save (the window has no area)".to_string());
        };
        let inputs =
            crate::app::window::view::frame_inputs(&self.driver, &self.shown, &self.camera, &self.render, moved);
        crate::app::window::screenshot::save(&self.gfx.gpu, &mut self.gfx.scene_renderer, &inputs, size, path)
    }

    /// The camera and render settings of a scene file's `view` section, where it has one.
    pub(super) fn use_scene_view(&mut self) {
        let Some(view) = self.driver.scene().view else { return };
        if let Some(camera) = view.camera {
            self.camera = camera.camera();
            self.frame_request = None;
        }
        if let Some(render) = view.render {
            self.render = render.settings();
        }
    }
}
