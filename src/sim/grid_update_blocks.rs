//! The `grid_update_blocks` pass: `shaders/mpm/grid_update_blocks.wgsl`, GPU label
//! `grid_update_blocks`, CPU twin: `cpu/grid_update.rs`.
//!
//! The sorted path's grid update: the same per-node update as `grid_update`, over the blocks some
//! particle's stencil reaches this substep, and it zeroes the fixed-point sums it read, which
//! replaces `grid_clear`. Nodes outside those blocks keep their last velocity (nothing reads them).
//!
//! Reads `params`, `grid_fixed`, the colliders, the bins; writes `grid_velocity`, `grid_fixed`.

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The pass's dispatch: one workgroup of 64 threads per touched block (indirect).
pub fn dispatch(state: &SimState) -> (MpmPass, Dispatch) {
    (MpmPass::GridUpdateBlocks, dispatch_of(MpmPass::GridUpdateBlocks, state))
}
