//! Writing simulation frames to disk.
//!
//! Frames are PLY point clouds ([`ply`]): one vertex per particle with position, velocity, plastic
//! volume ratio and material id, readable by Blender, Houdini and MeshLab. Files are written to a
//! temporary name in the target directory, synced to disk and renamed into place, so a file under
//! its final name is always complete, also after a crash. [`OutputDir`] keeps one run's frames
//! from mixing with an earlier run's.

pub mod atomic;
pub mod checkpoint;
pub mod files;
pub mod images;
pub mod mesh_ply;
pub mod output;
pub mod ply;
pub mod sink;
pub mod surface;

pub use checkpoint::{CHECKPOINT_FILE, Checkpoint, CheckpointError, read_checkpoint, write_checkpoint};
pub use files::{ExportError, frame_file_name};
pub use output::OutputDir;
pub use ply::{PlyPoint, read_ply, write_ply};
