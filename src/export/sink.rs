//! [`FrameSink`]: what a bake writes besides the particle frames (images, surface meshes), told of
//! each frame by the bake's loop (`runner::bake`). Here, below the runner, so that the sinks in
//! this module need nothing from the runner; the runner turns a [`SinkError`] into its own error.

use thiserror::Error;

use super::files::ExportError;
use crate::gpu::Gpu;
use crate::render::RenderError;
use crate::sim::{Solver, SolverError};

/// Why a sink failed to write a frame.
#[derive(Debug, Error)]
pub enum SinkError {
    /// Drawing or reading back the frame failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// Writing the file failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Reading the solver's particles back failed.
    #[error("{what}: {source}")]
    Solver {
        /// The sink that read them (e.g. `--images`).
        what: String,
        /// Why.
        source: SolverError,
    },
}

/// What a bake writes besides the frames.
pub trait FrameSink {
    /// Called after frame `frame`'s particles are written.
    fn frame(&mut self, gpu: &Gpu, solver: &Solver, frame: u32) -> Result<(), SinkError>;
}

impl FrameSink for () {
    fn frame(&mut self, _: &Gpu, _: &Solver, _: u32) -> Result<(), SinkError> {
        Ok(())
    }
}

/// Several sinks, told in order.
impl FrameSink for Vec<Box<dyn FrameSink + '_>> {
    fn frame(&mut self, gpu: &Gpu, solver: &Solver, frame: u32) -> Result<(), SinkError> {
        self.iter_mut().try_for_each(|sink| sink.frame(gpu, solver, frame))
    }
}
