//! [`Solver`]: kernels plus pages of particles over one grid, stepped on the GPU. What it holds in
//! `state`; built in `build` (one path, [`SolverOptions`]); its settings changed in `settings`,
//! its grid, colliders and particles in `grid`; stepped frame by frame in `frame`; passes run
//! alone in `run_pass`; a PB-MPM step timed pass by pass in `profile`; read back in `readback`;
//! the stats and the stable dt they imply in `stats`; failures in `error`; water in `water`, and
//! water beside snow in `mixed`. This file only
//! declares and re-exports: the children name each other directly.

mod build;
mod error;
mod frame;
mod grid;
mod mixed;
mod profile;
mod readback;
mod run_pass;
mod settings;
mod state;
mod stats;
mod water;
mod water_state;

pub use build::SolverOptions;
pub use error::SolverError;
pub use frame::Batch;
pub use profile::PassTime;
pub use readback::{BinsReadback, PendingStats};
pub use state::{SolveTotals, Solver};
pub use stats::{SolverStats, stable_dt, stable_dt_at};
