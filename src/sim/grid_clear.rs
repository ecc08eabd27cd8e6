//! The `grid_clear` pass: `shaders/mpm/grid_clear.wgsl`, GPU label `grid_clear`, CPU twin: `cpu/grid_clear.rs`.
//!
//! Zeroes every node's fixed-point mass and momentum before p2g.
//!
//! Reads `params`; writes `grid_fixed`.

use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{PassTimestamps, record_pass};

/// Records the pass, one thread per 32-bit word of the fixed-point grid.
pub fn record(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    timestamps: Option<PassTimestamps>,
) {
    record_pass(encoder, kernels, state, MpmPass::GridClear, timestamps);
}
