//! The MPM snow solver: GPU passes (one module per pass, one WGSL file each), the CPU twin in
//! [`cpu`], and the parameters they share. See `docs/algorithm.md` for the math.
//!
//! Kernels ([`pipelines::Kernels`]) are separate from data ([`state::SimState`], one page of
//! particles over the shared grid; more than one where the particles outgrow one binding); [`step`]
//! records the passes of a substep in order, page by page; [`solver::Solver`] ties them together.

pub mod bins;
pub mod capacity;
pub mod clock;
pub mod cpu;
pub mod fixed_point;
pub mod g2p;
pub mod g2p2g;
pub mod grid_clear;
pub mod grid_pool;
pub mod grid_update;
pub mod grid_update_blocks;
pub mod interaction;
pub mod material;
pub mod p2g;
pub mod p2g_gather;
pub mod p2g_tiled;
pub mod params;
pub mod particles;
pub mod pick;
pub mod pipelines;
pub mod reorder;
pub mod shaders;
pub mod solver;
pub mod state;
pub mod stats;
pub mod step;
pub mod stress;

pub use solver::{Solver, SolverError, SolverStats};
