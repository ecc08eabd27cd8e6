//! The `grid_update` pass: `shaders/mpm/grid_update.wgsl`, GPU label `grid_update`, CPU twin: `cpu/grid_update.rs`.
//!
//! Turns node momentum into velocity, adds gravity, applies the domain-wall boundary
//! condition with Coulomb friction and the speed cap.
//!
//! Reads `params`, `grid_fixed`; writes `grid_velocity`.

use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{PassTimestamps, record_pass};

/// Records the pass, one thread per grid node.
pub fn record(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    timestamps: Option<PassTimestamps>,
) {
    record_pass(encoder, kernels, state, MpmPass::GridUpdate, timestamps);
}
