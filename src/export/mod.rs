//! Writing simulation frames to disk.
//!
//! Frames are PLY point clouds ([`ply`]): one vertex per particle with position, velocity, plastic
//! volume ratio and material id, readable by Blender, Houdini and MeshLab. Files are written to a
//! temporary name in the target directory and renamed into place, so a file under its final name
//! is always complete.

pub mod ply;

use std::path::PathBuf;

use thiserror::Error;

pub use ply::{PlyPoint, read_ply, write_ply};

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
}

/// File name of output frame `frame`: `frame_00042.ply` (five digits, more when needed), so that
/// frames sort by name and Blender's and Houdini's sequence loaders pick them up.
pub fn frame_file_name(frame: u32) -> String {
    format!("frame_{frame:05}.ply")
}
