//! [`RunError`]: what can go wrong in a headless run.

use std::path::PathBuf;

use thiserror::Error;

use crate::export::ExportError;
use crate::scene::SceneError;
use crate::sim::SolverError;
use crate::sim::page::StateError;

/// Failures of a headless run.
#[derive(Debug, Error)]
pub enum RunError {
    /// The scene's grid or particle count does not fit the GPU.
    #[error("{source_name}: grid.resolution = {resolution} does not fit this GPU: {source}")]
    GridTooLarge {
        /// The scene file.
        source_name: String,
        /// The resolution asked for.
        resolution: u32,
        /// Details and the largest resolution that fits.
        source: StateError,
    },
    /// Another solver failure.
    #[error("{source_name}: {source}")]
    Solver {
        /// The scene file.
        source_name: String,
        /// What failed.
        source: SolverError,
    },
    /// The output directory could not be prepared, or a frame could not be written.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The scene's colliders could not be set up.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// Shaders read from disk (`bench --shaders`) did not build.
    #[error("shaders from {}: {source}", dir.display())]
    Shader {
        /// The directory they were read from.
        dir: PathBuf,
        /// Which pass failed, and naga's or the driver's message.
        source: crate::sim::pipelines::ShaderError,
    },
    /// A checkpoint could not be written or read.
    #[error(transparent)]
    Checkpoint(#[from] crate::export::CheckpointError),
    /// A frame's image could not be rendered or saved.
    #[error(transparent)]
    Render(crate::render::RenderError),
    /// The image sequence's video could not be encoded.
    #[error(transparent)]
    Video(#[from] crate::export::images::VideoError),
    /// The GPU device was lost.
    #[error("the GPU device was lost during the run (frame {frame})")]
    DeviceLost {
        /// The frame being simulated.
        frame: u32,
    },
}
