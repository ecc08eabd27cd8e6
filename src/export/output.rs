//! The output directory of a run: what an earlier run left in it, and clearing that away.
//!
//! A run into a directory that holds frames of an earlier, longer run would overwrite frames
//! 0…N and leave N+1… behind, two runs mixed into one sequence. So a directory holding frames is
//! refused unless the caller asks to overwrite, and then the old frames are removed before the
//! first new one is written. Only powder's own files are touched: frames (`frame_` + digits +
//! `.ply`), their images (`.png`), the bake's checkpoint and the temporaries
//! [`super::atomic::write_atomic`] writes under (a killed run leaves one behind), never anything
//! else in the directory.

use std::path::{Path, PathBuf};

use super::files::ExportError;

use super::files::{TEMP_PREFIX, TEMP_SUFFIX};

/// An output directory, looked at but not yet changed: the frames and stale temporaries in it.
#[derive(Debug)]
pub struct OutputDir {
    path: PathBuf,
    frames: Vec<PathBuf>,
    temporaries: Vec<PathBuf>,
    /// An earlier bake's checkpoint ([`super::checkpoint::CHECKPOINT_FILE`]), removed with its frames.
    checkpoint: Option<PathBuf>,
}

impl OutputDir {
    /// Looks at `path` without changing anything. A directory holding frames is refused
    /// ([`ExportError::HoldsFrames`]) unless `overwrite`; a path that exists but is not a directory
    /// is refused too. A missing directory is fine: [`OutputDir::prepare`] creates it.
    pub fn inspect(path: &Path, overwrite: bool) -> Result<Self, ExportError> {
        let io = |source| ExportError::Io { path: path.to_path_buf(), source };
        let mut dir =
            OutputDir { path: path.to_path_buf(), frames: Vec::new(), temporaries: Vec::new(), checkpoint: None };
        let entries = match std::fs::read_dir(path) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                return Err(ExportError::NotADirectory { path: path.to_path_buf() });
            }
            Err(e) => return Err(io(e)),
        };
        for entry in entries {
            let entry = entry.map_err(io)?;
            // A directory that happens to be named like a frame is not ours to remove.
            if entry.file_type().map_err(io)?.is_dir() {
                continue;
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if is_frame_name(name) || is_image_name(name) {
                dir.frames.push(entry.path());
            } else if is_temp_name(name) {
                dir.temporaries.push(entry.path());
            } else if name == super::checkpoint::CHECKPOINT_FILE {
                dir.checkpoint = Some(entry.path());
            }
        }
        if !dir.frames.is_empty() && !overwrite {
            return Err(ExportError::HoldsFrames { path: dir.path, frames: dir.frames.len() });
        }
        dir.frames.sort();
        Ok(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many frames of an earlier run it holds (all of them removed by [`OutputDir::prepare`]).
    pub fn old_frames(&self) -> usize {
        self.frames.len()
    }

    /// How many temporaries of a killed run it holds.
    pub fn stale_temporaries(&self) -> usize {
        self.temporaries.len()
    }

    /// Creates the directory if needed and removes the old frames and stale temporaries found by
    /// [`OutputDir::inspect`]. A file already gone is no error (another tidy-up got there first).
    pub fn prepare(&self) -> Result<(), ExportError> {
        std::fs::create_dir_all(&self.path).map_err(|source| ExportError::Io { path: self.path.clone(), source })?;
        for file in self.temporaries.iter().chain(&self.frames).chain(&self.checkpoint) {
            match std::fs::remove_file(file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(ExportError::Io { path: file.clone(), source }),
            }
        }
        if !self.frames.is_empty() || !self.temporaries.is_empty() {
            // The removals are directory entries: make them durable before new frames appear, so a
            // crash cannot bring old frames back next to new ones.
            super::files::sync_dir(&self.path).map_err(|source| ExportError::Io { path: self.path.clone(), source })?;
        }
        Ok(())
    }
}

impl OutputDir {
    /// Prepares the directory for a bake resumed after frame `after`: removes the stale
    /// temporaries and the frames past `after` (the killed bake's, which the resumed one writes
    /// again), keeping the frames up to `after` and the checkpoint.
    pub fn prepare_resume(&self, after: u32) -> Result<(), ExportError> {
        let past = self.frames.iter().filter(|f| frame_number(f).is_none_or(|n| n > after as u64));
        for file in self.temporaries.iter().chain(past) {
            match std::fs::remove_file(file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(ExportError::Io { path: file.clone(), source }),
            }
        }
        super::files::sync_dir(&self.path).map_err(|source| ExportError::Io { path: self.path.clone(), source })
    }
}

/// The number in a frame file's name (`frame_00042.ply`: 42).
fn frame_number(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_prefix("frame_")?;
    stem.strip_suffix(".ply").or_else(|| stem.strip_suffix(".png"))?.parse().ok()
}

/// `frame_` followed by at least five digits and `.ply`: the names [`super::frame_file_name`] makes.
pub fn is_frame_name(name: &str) -> bool {
    name.strip_prefix("frame_")
        .and_then(|rest| rest.strip_suffix(".ply"))
        .is_some_and(|digits| digits.len() >= 5 && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// `frame_` followed by at least five digits and `.png`: the images of `powder run --images`,
/// removed and kept with the frames.
fn is_image_name(name: &str) -> bool {
    name.strip_suffix(".png").is_some_and(|stem| is_frame_name(&format!("{stem}.ply")))
}

/// The temporaries [`super::write_ply`] makes: [`TEMP_PREFIX`], the target's name, a random part,
/// [`TEMP_SUFFIX`].
fn is_temp_name(name: &str) -> bool {
    name.len() > TEMP_PREFIX.len() + TEMP_SUFFIX.len() && name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_and_temporary_names_are_recognised_exactly() {
        for name in ["frame_00000.ply", "frame_123456.ply"] {
            assert!(is_frame_name(name), "{name}");
        }
        for name in ["frame_0001.ply", "frame_00001.ply.bak", "frame_0000a.ply", "Frame_00001.ply", "notes.txt"] {
            assert!(!is_frame_name(name), "{name}");
        }
        assert!(is_temp_name(".powder-frame_00003.ply-Ab12Cd.tmp"));
        for name in [".powder-.tmp", ".tmpAb12Cd", "powder-frame_00003.ply-Ab12Cd.tmp", ".powder-x.ply"] {
            assert!(!is_temp_name(name), "{name}");
        }
    }
}
