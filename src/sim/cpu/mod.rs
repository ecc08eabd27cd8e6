//! The CPU twin of the solver: the same substep as the GPU passes, in plain f64, written for clarity
//! so that tests can check the GPU against it.
//!
//! It follows `docs/algorithm.md` step by step, guards included (speed clamps, walls, position,
//! `Jp` and hardening clamps), but sums in f64 instead of fixed point and has no non-finite reset.
//! One module per GPU pass: [`grid_clear`], [`p2g`], [`grid_update`] (with the colliders'
//! condition in [`colliders`]), [`g2p`], [`bins`] for the sort's binning and [`clock`] for each
//! substep's dt; [`svd`] holds the signed SVD the snow model needs.
//!
//! The twin's state stands in files of its own, below the passes that use it: [`particle`]
//! ([`CpuParticle`], [`clamp_speed`]), [`grid`] ([`CpuGrid`], [`node_position`], the B-spline
//! stencil) and [`solver`] ([`CpuSolver`], which runs the passes); [`friction`] is the Coulomb
//! friction the walls and the colliders share. This file only declares them and re-exports.

pub mod bins;
pub mod clock;
pub mod colliders;
pub mod friction;
pub mod g2p;
pub mod grid;
pub mod grid_clear;
pub mod grid_update;
pub mod p2g;
pub mod particle;
pub mod solver;
pub mod svd;
#[cfg(test)]
pub(crate) mod test_scene;

pub use grid::{CpuGrid, node_position};
pub use particle::{CpuParticle, clamp_speed};
pub use solver::CpuSolver;
