//! The error of writing and reading frame files, their names, and the directory sync that makes
//! a rename durable: what every writer in [`super`] shares, in a file of its own so that the
//! writers name it here rather than through the parent that declares them.

use std::path::{Path, PathBuf};

use thiserror::Error;

/// An error writing or reading a frame file.
#[derive(Debug, Error)]
pub enum ExportError {
    /// The file (or its temporary sibling) could not be created, written, renamed or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file being written or read.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file read back is not a PLY file in powder's layout.
    #[error("{}: not a powder PLY file: {message}", path.display())]
    Format {
        /// The file being read.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The output directory holds frames of an earlier run, and overwriting was not asked for.
    #[error(
        "output directory {} already holds {frames} frames (frame_*.ply) of an earlier run; \
         pass --overwrite to remove them first, or choose another --out",
        path.display()
    )]
    HoldsFrames {
        /// The directory.
        path: PathBuf,
        /// How many frame files it holds.
        frames: usize,
    },
    /// The output path exists and is not a directory.
    #[error("output path {} exists and is not a directory", path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
}

/// File name of output frame `frame`: `frame_00042.ply` (five digits, more when needed), so that
/// frames sort by name and Blender's and Houdini's sequence loaders pick them up.
pub fn frame_file_name(frame: u32) -> String {
    format!("frame_{frame:05}.ply")
}

/// Makes the directory entries of `dir` durable (a rename into it, removals from it): on Linux a
/// rename reaches the disk only once the directory itself is synced. Other systems either do this
/// with the file or cannot open a directory as a file, so it is a no-op there.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    std::fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Prefix of the temporary file a frame is written to before it is renamed into place.
pub const TEMP_PREFIX: &str = ".powder-";
/// Suffix of that temporary file.
pub const TEMP_SUFFIX: &str = ".tmp";
