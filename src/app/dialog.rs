//! The system's file dialog for Open and Save, run as a separate program (`zenity`, else
//! `kdialog`) that the app polls each frame, so the window keeps drawing while it is open and a
//! machine without either (or without a display) gets a message instead of a hang or a crash.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::recording::find_on_path;

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
    child: Child,
    /// What it asks for.
    pub purpose: Purpose,
}

/// The command line that shows the dialog with `program` (`zenity` or `kdialog`), starting in
/// `start` (a folder, or a file name to suggest when saving).
pub fn command_line(program: &str, purpose: Purpose, start: &Path) -> Vec<OsString> {
    let start = start.as_os_str().to_owned();
    let mut args: Vec<OsString> = Vec::new();
    if program == "kdialog" {
        args.push(if purpose == Purpose::Open { "--getopenfilename" } else { "--getsavefilename" }.into());
        args.push(start);
        args.push("*.json *.glb *.gltf".into());
    } else {
        args.push("--file-selection".into());
        args.push(
            if purpose == Purpose::Open { "--title=Open a scene or model" } else { "--title=Save the scene" }.into(),
        );
        if purpose == Purpose::Save {
            args.push("--save".into());
            args.push("--confirm-overwrite".into());
        }
        let mut filename = OsString::from("--filename=");
        filename.push(start);
        args.push(filename);
        args.push("--file-filter=scenes and models | *.json *.glb *.gltf".into());
    }
    args
}

impl Dialog {
    /// Shows the dialog, or says why it cannot (no dialog program on the PATH, no display).
    pub fn show(purpose: Purpose, start: &Path) -> Result<Dialog, String> {
        let display = std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
        Self::show_with(purpose, start, display, std::env::var_os("PATH"))
    }

    /// [`Dialog::show`] with the display's presence and the `PATH` given.
    fn show_with(purpose: Purpose, start: &Path, display: bool, path_var: Option<OsString>) -> Result<Dialog, String> {
        if !display {
            return Err("no display for a file dialog".to_string());
        }
        let (program, path) = ["zenity", "kdialog"]
            .into_iter()
            .find_map(|p| find_on_path(p, path_var.clone()).map(|path| (p, path)))
            .ok_or_else(|| "no file dialog program (zenity or kdialog) is installed".to_string())?;
        let child = Command::new(path)
            .args(command_line(program, purpose, start))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("the file dialog ({program}) did not start: {e}"))?;
        Ok(Dialog { child, purpose })
    }

    /// `None` while the dialog is open; then the chosen path, or `Ok(None)` when cancelled.
    pub fn poll(&mut self) -> Option<Result<Option<PathBuf>, String>> {
        match self.child.try_wait() {
            Ok(None) => None,
            Err(e) => Some(Err(format!("the file dialog failed: {e}"))),
            Ok(Some(status)) => {
                let mut out = String::new();
                if let Some(stdout) = self.child.stdout.as_mut() {
                    let _ = stdout.read_to_string(&mut out);
                }
                let chosen = out.trim_end_matches(['\n', '\r']);
                Some(Ok((status.success() && !chosen.is_empty()).then(|| PathBuf::from(chosen))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialog_command_lines_ask_for_the_right_thing() {
        let zenity = command_line("zenity", Purpose::Save, Path::new("/tmp/a b.json"));
        assert!(zenity.contains(&"--save".into()) && zenity.contains(&"--filename=/tmp/a b.json".into()));
        let open = command_line("zenity", Purpose::Open, Path::new("/tmp/"));
        assert!(!open.contains(&"--save".into()));
        let kde = command_line("kdialog", Purpose::Open, Path::new("/tmp"));
        assert_eq!(kde[0], "--getopenfilename");
        assert_eq!(kde[1], "/tmp");
    }

    /// A stand-in `zenity` that answers at once: the chosen path comes back from polling, a
    /// cancel (exit status 1, no output) is no path, and without a display or a program the
    /// reason comes back instead of a dialog.
    #[cfg(unix)]
    #[test]
    fn the_answer_comes_back_by_polling_and_a_missing_dialog_is_a_message() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let fake = dir.path().join("zenity");
        let answer = |script: &str| {
            std::fs::write(&fake, script).expect("written");
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            let path_var = Some(dir.path().as_os_str().to_owned());
            let mut dialog = Dialog::show_with(Purpose::Save, Path::new("/tmp/x.json"), true, path_var).expect("shown");
            let start = std::time::Instant::now();
            loop {
                if let Some(answer) = dialog.poll() {
                    return answer;
                }
                assert!(start.elapsed().as_secs() < 10, "the stand-in dialog did not exit");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        };
        let chosen = answer("#!/bin/sh\necho /tmp/chosen scene.json\n").expect("answered");
        assert_eq!(chosen, Some(PathBuf::from("/tmp/chosen scene.json")));
        assert_eq!(answer("#!/bin/sh\nexit 1\n").expect("answered"), None);
        let no_display = Dialog::show_with(Purpose::Open, Path::new("/tmp"), false, None).err();
        assert_eq!(no_display.as_deref(), Some("no display for a file dialog"));
        let empty = tempfile::tempdir().expect("temp dir");
        let path_var = Some(empty.path().as_os_str().to_owned());
        let none = Dialog::show_with(Purpose::Open, Path::new("/tmp"), true, path_var).err().expect("refused");
        assert!(none.contains("zenity or kdialog"), "{none}");
    }
}
