//! The simulation's GPU data: particles, grid and parameters, and the bind group that exposes them
//! to the kernels. Rebuilt when a scene loads or the grid changes; the kernels are not.
//!
//! - [`particle_page`]: [`ParticlePage`], one page of particles over the shared grid, and how a
//!   particle set becomes pages;
//! - `update`: what changes a page after it is made (the grid, the colliders, the path, the P2G
//!   kernel);
//! - `buffers`: making the buffers (their usages, those all pages share) and group 0;
//! - [`sizes`]: the bytes of the buffers the capacity check counts before any is made;
//! - [`error`]: why a state could not be made ([`StateError`]).
//!
//! The capacity check ([`crate::sim::capacity`]) stands below the pages: it takes the sizes and the
//! error from [`sizes`] and [`error`] directly, never through this file.

mod buffers;
pub mod error;
pub mod particle_page;
pub mod sizes;
mod update;

pub use error::StateError;
pub use particle_page::{ParticlePage, StateOptions};
pub use sizes::{GRID_FIXED_NODE_BYTES, GRID_VELOCITY_NODE_BYTES};

pub use crate::sim::pipelines::BINDINGS;
