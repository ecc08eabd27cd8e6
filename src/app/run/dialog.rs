//! The system's file dialog for Open and Save (the `rfd` crate: the desktop's file chooser
//! portal, else zenity). It runs on a thread of its own and the app polls for the answer each
//! frame, so the window keeps drawing while the dialog is open; where no dialog can be shown (no
//! display, neither a portal nor zenity) the app gets the reason instead of a hang or a crash.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::app::run::recording::find_on_path;

/// What the dialog asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A scene file or glTF model to open.
    Open,
    /// Where to save the scene.
    Save,
}

/// A dialog being shown.
pub struct Dialog {
    answer: Receiver<Option<PathBuf>>,
    /// What it asks for.
    pub purpose: Purpose,
}

/// Why no dialog can be shown, if none can: rfd needs a display, and a file chooser portal (on
/// the D-Bus session bus) or zenity.
pub fn unavailable(display: bool, session_bus: bool, zenity: bool) -> Option<&'static str> {
    if !display {
        Some("no display for a file dialog")
    } else if !session_bus && !zenity {
        Some("no file dialog: neither the desktop's file chooser portal (no D-Bus session) nor zenity is available")
    } else {
        None
    }
}

impl Dialog {
    /// Shows the dialog starting in `folder` (suggesting `file_name` when saving), or says why it
    /// cannot.
    pub fn show(purpose: Purpose, folder: &Path, file_name: &str) -> Result<Dialog, String> {
        let env = |name: &str| std::env::var_os(name).is_some();
        let zenity = find_on_path("zenity", std::env::var_os("PATH")).is_some();
        if let Some(why) =
            unavailable(env("DISPLAY") || env("WAYLAND_DISPLAY"), env("DBUS_SESSION_BUS_ADDRESS"), zenity)
        {
            return Err(why.to_string());
        }
        let dialog = rfd::FileDialog::new()
            .set_directory(folder)
            .add_filter("scenes and models", &["json", "glb", "gltf"])
            .add_filter("all files", &["*"]);
        let (send, answer) = channel();
        let file_name = file_name.to_string();
        std::thread::Builder::new()
            .name("file dialog".into())
            .spawn(move || {
                let chosen = match purpose {
                    Purpose::Open => dialog.set_title("Open a scene or model").pick_file(),
                    Purpose::Save => dialog.set_title("Save the scene").set_file_name(file_name).save_file(),
                };
                // The app may have closed meanwhile: then nobody is asking.
                let _ = send.send(chosen);
            })
            .map_err(|e| format!("the file dialog did not start: {e}"))?;
        Ok(Dialog { answer, purpose })
    }

    /// `None` while the dialog is open; then the chosen path, or `Ok(None)` when cancelled (or
    /// when the dialog failed after opening: rfd logs why).
    pub fn poll(&mut self) -> Option<Result<Option<PathBuf>, String>> {
        match self.answer.try_recv() {
            Ok(chosen) => Some(Ok(chosen)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err("the file dialog ended without an answer".to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialog_needs_a_display_and_a_portal_or_zenity() {
        assert_eq!(unavailable(false, true, true), Some("no display for a file dialog"));
        assert!(unavailable(true, false, false).is_some_and(|why| why.contains("zenity")));
        assert_eq!(unavailable(true, true, false), None);
        assert_eq!(unavailable(true, false, true), None);
    }

    /// The answer comes through the channel once the dialog thread sends it; a thread that ends
    /// without answering is an error, not a hang.
    #[test]
    fn the_answer_comes_back_by_polling() {
        let (send, answer) = channel();
        let mut dialog = Dialog { answer, purpose: Purpose::Save };
        assert_eq!(dialog.poll(), None);
        send.send(Some(PathBuf::from("/tmp/a.json"))).expect("sent");
        assert_eq!(dialog.poll(), Some(Ok(Some(PathBuf::from("/tmp/a.json")))));
        drop(send);
        assert!(matches!(dialog.poll(), Some(Err(_))));
    }
}
