//! Where screenshots and recordings go, and recording the 3D view to a PNG sequence (F9 or the
//! panel's Record button): one numbered PNG per frame that rendered the view anew, holding the
//! view's part of the window as drawn (the grid view, the plane's outline and the messages over
//! it, as F12 saves), in a folder of its own under `recordings/`; when recording stops and `ffmpeg` is on the PATH, it encodes the
//! sequence to an mp4 beside the frames, in the background.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::app::run::save::absolute;

/// Frame rate the mp4 plays the sequence at: the app draws at most 60 frames a second, and
/// recorded frames are those that showed a new state, so 30 is close to what the screen showed.
pub const VIDEO_FPS: u32 = 30;

/// The folder screenshots go to: `screenshots/` in the working directory, as an absolute path.
pub fn screenshot_folder() -> PathBuf {
    absolute(Path::new("screenshots"))
}

/// The folder recordings go to: `recordings/` in the working directory, as an absolute path.
pub fn recording_folder() -> PathBuf {
    absolute(Path::new("recordings"))
}

/// `prefix_NNN` + `extension` in `folder`, the first number from 1 not taken.
pub fn first_free(folder: &Path, prefix: &str, extension: &str) -> PathBuf {
    (1..100_000)
        .map(|n| folder.join(format!("{prefix}_{n:03}{extension}")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| folder.join(format!("{prefix}{extension}")))
}

/// The next screenshot's path in [`screenshot_folder`] (created if missing).
pub fn next_screenshot() -> Result<PathBuf, String> {
    let folder = screenshot_folder();
    create(&folder)?;
    Ok(first_free(&folder, "powder_screenshot", ".png"))
}

fn create(folder: &Path) -> Result<(), String> {
    std::fs::create_dir_all(folder).map_err(|e| format!("cannot create the folder {}: {e}", folder.display()))
}

/// Frame `index` (from 0) of a sequence in `folder`: `frame_00000.png`, … (ffmpeg's `%05d`).
pub fn frame_path(folder: &Path, index: u32) -> PathBuf {
    folder.join(format!("frame_{index:05}.png"))
}

/// The ffmpeg command line (without the program) that encodes the sequence in `folder` to
/// `video`: H.264 in yuv420p (what players expect), even width and height (H.264 needs them).
pub fn ffmpeg_args(folder: &Path, video: &Path, fps: u32) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["-y", "-loglevel", "error", "-framerate"].map(OsString::from).to_vec();
    args.push(fps.to_string().into());
    args.push("-i".into());
    args.push(folder.join("frame_%05d.png").into_os_string());
    for a in ["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p"] {
        args.push(a.into());
    }
    args.push(video.as_os_str().to_owned());
    args
}

/// `program` in one of the `PATH` folders, if it is there.
pub fn find_on_path(program: &str, path_var: Option<OsString>) -> Option<PathBuf> {
    let names = [program.to_string(), format!("{program}.exe")];
    std::env::split_paths(&path_var?).flat_map(|dir| names.iter().map(move |n| dir.join(n))).find(|p| p.is_file())
}

/// A recording in progress.
#[derive(Debug)]
struct Take {
    folder: PathBuf,
    frames: u32,
}

/// The recorder: idle, recording, and the ffmpeg encode of the last take.
#[derive(Default)]
pub struct Recorder {
    take: Option<Take>,
    /// The ffmpeg process encoding a finished take, and the video it writes.
    encoding: Option<(Child, PathBuf)>,
    /// The last take's folder and frame count, for the panel.
    last: Option<(PathBuf, u32)>,
}

impl Recorder {
    /// Starts a take in a new numbered folder under `root` (created); returns the folder.
    pub fn start(&mut self, root: &Path) -> Result<PathBuf, String> {
        create(root)?;
        let folder = first_free(root, "powder_recording", "");
        create(&folder)?;
        self.take = Some(Take { folder: folder.clone(), frames: 0 });
        Ok(folder)
    }

    /// The path for the next frame while recording (the frame is counted).
    pub fn next_frame(&mut self) -> Option<PathBuf> {
        let take = self.take.as_mut()?;
        let path = frame_path(&take.folder, take.frames);
        take.frames += 1;
        Some(path)
    }

    /// Forgets the last frame counted (it could not be written).
    pub fn drop_frame(&mut self) {
        if let Some(take) = &mut self.take {
            take.frames = take.frames.saturating_sub(1);
        }
    }

    /// Stops the take and, when ffmpeg is on the PATH and there are frames, starts encoding them.
    /// Returns a message for the user.
    pub fn stop(&mut self) -> String {
        let Some(take) = self.take.take() else { return "not recording".to_string() };
        self.last = Some((take.folder.clone(), take.frames));
        let saved = format!("recorded {} frames to {}", take.frames, take.folder.display());
        if take.frames == 0 {
            return saved;
        }
        let Some(ffmpeg) = find_on_path("ffmpeg", std::env::var_os("PATH")) else {
            return format!("{saved}; no ffmpeg on the PATH, so no mp4 (the PNG frames are kept)");
        };
        let video = take.folder.join("powder_recording.mp4");
        let child = Command::new(ffmpeg)
            .args(ffmpeg_args(&take.folder, &video, VIDEO_FPS))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        match child {
            Ok(child) => {
                let message = format!("{saved}; encoding {} with ffmpeg", video.display());
                self.encoding = Some((child, video));
                message
            }
            Err(e) => format!("{saved}; ffmpeg did not start: {e}"),
        }
    }

    /// Whether a take is being recorded.
    pub fn recording(&self) -> bool {
        self.take.is_some()
    }

    /// The take's folder and frames so far, or the last take's.
    pub fn status(&self) -> Option<(&Path, u32)> {
        match &self.take {
            Some(t) => Some((&t.folder, t.frames)),
            None => self.last.as_ref().map(|(f, n)| (f.as_path(), *n)),
        }
    }

    /// Once the encode has finished: a message saying how it went.
    pub fn poll_encode(&mut self) -> Option<Result<String, String>> {
        let (child, video) = self.encoding.as_mut()?;
        let status = match child.try_wait() {
            Ok(None) => return None,
            Ok(Some(status)) => status,
            Err(e) => return Some(Err(format!("waiting for ffmpeg failed: {e}"))),
        };
        let video = video.clone();
        self.encoding = None;
        Some(if status.success() {
            Ok(format!("video saved to {}", video.display()))
        } else {
            Err(format!("ffmpeg could not encode {} ({status}); the PNG frames are kept", video.display()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_numbered_in_a_new_folder_and_ffmpeg_reads_them_in_order() {
        let root = tempfile::tempdir().expect("temp dir");
        let recordings = root.path().join("recordings");
        let mut recorder = Recorder::default();
        let first = recorder.start(&recordings).expect("started");
        assert_eq!(first, recordings.join("powder_recording_001"));
        assert!(first.is_dir());
        let frames: Vec<_> = (0..3).map(|_| recorder.next_frame().expect("recording")).collect();
        assert_eq!(frames[2], first.join("frame_00002.png"));
        recorder.drop_frame();
        assert_eq!(recorder.status(), Some((first.as_path(), 2)));
        // No frames written and an empty PATH: the message says so, without ffmpeg.
        let _ = recorder.take.take();
        assert!(!recorder.recording() && recorder.next_frame().is_none());
        assert_eq!(recorder.start(&recordings).expect("again"), recordings.join("powder_recording_002"));
        let args = ffmpeg_args(&first, &first.join("v.mp4"), 30);
        let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let input = args.iter().position(|a| a == "-i").expect("-i");
        assert_eq!(args[input + 1], first.join("frame_%05d.png").to_string_lossy());
        assert_eq!(args[input - 1], "30");
        assert_eq!(args.last().map(String::as_str), Some(first.join("v.mp4").to_str().expect("utf-8")));
        // The pattern matches the frame names: %05d of 2 is 00002.
        assert_eq!(format!("frame_{:05}.png", 2), "frame_00002.png");
    }

    #[test]
    fn ffmpeg_is_found_only_where_the_path_has_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert_eq!(find_on_path("ffmpeg", Some(dir.path().as_os_str().to_owned())), None);
        std::fs::write(dir.path().join("ffmpeg"), "").expect("written");
        let path = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).expect("joined");
        assert_eq!(find_on_path("ffmpeg", Some(path)), Some(dir.path().join("ffmpeg")));
        assert_eq!(find_on_path("ffmpeg", None), None);
    }

    #[test]
    fn screenshots_get_the_first_free_number_in_their_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert_eq!(first_free(dir.path(), "shot", ".png"), dir.path().join("shot_001.png"));
        std::fs::write(dir.path().join("shot_001.png"), "").expect("written");
        assert_eq!(first_free(dir.path(), "shot", ".png"), dir.path().join("shot_002.png"));
    }
}
