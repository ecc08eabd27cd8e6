//! The MPM snow solver on the GPU, its CPU twin ([`cpu`]) and the parameters they share. See
//! `docs/architecture.md` for the stages, passes and files of each path, and `docs/algorithm.md`
//! for the math.
//!
//! Shared by any integrator:
//! - [`passes`]: every compute pass's facts, one row each; [`shaders`] composes their WGSL,
//!   [`pipelines`] compiles them ([`pipelines::Kernels`], built once per device), [`record`]
//!   dispatches them over pages;
//! - [`page`]: one page of particles over the shared grid ([`page::ParticlePage`]; more than one
//!   where the particles outgrow one binding), its streams in [`particles`], the sparse grid's pool
//!   in [`grid_pool`], what fits the device in [`capacity`];
//! - [`sort`]: particles binned by grid block and moved into block order;
//! - [`params`], [`material`], [`fixed_point`], [`interaction`]: what the passes read (the grid's
//!   geometry itself is [`crate::grid`], which the colliders share); [`presets`]: named materials;
//! - [`path`] (the substep paths) and [`indirect`] (the indirect-argument layout): plain types
//!   that the pages, the pass table and the recorder all name, kept below them.
//!
//! No file imports one that imports it back: items that a parent and its children (or two
//! siblings) both need live in a file of their own below both (`page/sizes.rs`, `solver/state.rs`,
//! `cpu/particle.rs`, `sort/blocks.rs` …), and a parent `mod.rs` only declares and re-exports
//! (`tests/architecture.rs` checks it).
//!
//! The integrators ([`integrator::Integrator`]) are peers over those: the explicit MLS-MPM integrator
//! in [`explicit`] (the substep's stages, the GPU clock that picks each substep's dt) and
//! position-based MPM in [`pbmpm`] (its settings, its step's passes and its CPU twin).
//! [`solver::Solver`] ties kernels, pages and the chosen integrator together.

pub mod capacity;
pub mod checkpoint;
pub mod cpu;
pub mod explicit;
pub mod fixed_point;
pub mod grid_pool;
pub mod indirect;
pub mod integrator;
pub mod interaction;
pub mod material;
pub mod page;
pub mod params;
pub mod particles;
pub mod passes;
pub mod path;
pub mod pbmpm;
pub mod pipelines;
pub mod presets;
pub mod pressure;
pub mod record;
pub mod shaders;
pub mod solver;
pub mod sort;
pub mod timeline;
pub mod water;

pub use solver::{PassTime, SolveTotals, Solver, SolverError, SolverStats};
