//! Simulating a scene without a window and writing its frames to disk (`powder run`).
//!
//! This file only declares the parts and re-exports them: the solver made and frames stepped in
//! `frames.rs`, the errors in `error.rs`, a plain run in `run.rs`, the frame loop with checkpoints
//! and resume in [`bake`].

pub mod bake;
mod error;
mod frames;
mod run;

pub use error::RunError;
pub use frames::{
    RunSummary, advance, build_solver, build_solver_with, last_fragments, plan_frame, spawn_checked, upload_colliders,
};
pub use run::{run_scene, run_solver};
