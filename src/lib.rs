//! powder: a snow simulator. MLS-MPM with the Stomakhin et al. 2013 snow model, as WGSL compute
//! passes on the GPU through wgpu, with a CPU twin of every pass for testing.
//!
//! Module map: [`sim`] is the solver (GPU passes, their CPU twin, parameters) on the grid of
//! [`grid`] (which the colliders of [`collider`] share), [`scene`] reads and
//! validates scene files and makes particles, [`export`] writes frames to disk, [`gpu`] creates the
//! wgpu device.

#![warn(missing_docs)]

pub mod bench;
pub mod collider;
pub mod export;
pub mod fragments;
pub mod fsio;
pub mod gpu;
pub mod grid;
pub mod mesh;
pub mod render;
pub mod runner;
pub mod scene;
pub mod sim;
