//! The `grid_clear` pass: `shaders/mpm/grid_clear.wgsl`, GPU label `grid_clear`, CPU twin: `cpu/grid_clear.rs`.
//!
//! Zeroes every node's fixed-point mass and momentum before p2g.
//!
//! Reads `params`; writes `grid_fixed`.

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The pass's dispatch: one thread per 32-bit word of the fixed-point grid.
pub fn dispatch(state: &SimState) -> (MpmPass, Dispatch) {
    (MpmPass::GridClear, dispatch_of(MpmPass::GridClear, state))
}
