//! [`SolverError`]: what can fail in the solver, wrapping the state's, the device's and the
//! settings' errors.

use thiserror::Error;

use crate::gpu::GpuError;
use crate::sim::page::error::StateError;

/// Failures of the solver.
#[derive(Debug, Error)]
pub enum SolverError {
    /// The state could not be allocated.
    #[error(transparent)]
    State(#[from] StateError),
    /// A GPU operation failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// PB-MPM settings out of range.
    #[error(transparent)]
    IntegratorSettings(#[from] crate::sim::integrator::IntegratorSettingsError),
    /// Water steps one page of particles; the scene's take more.
    #[error(
        "the water integrator steps one page of particles and these take {pages}: fewer particles (a coarser grid or \
         fewer particles per cell) fit one"
    )]
    WaterPages {
        /// Pages the particles take.
        pages: usize,
    },
    /// The grid changed; that needs a new state, not new parameters.
    #[error("the grid changed from {from:?} to {to:?}: rebuild the solver state instead")]
    GridChanged {
        /// Old cells.
        from: [u32; 3],
        /// New cells.
        to: [u32; 3],
    },
}
