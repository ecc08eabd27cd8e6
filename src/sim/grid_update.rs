//! The `grid_update` pass: `shaders/mpm/grid_update.wgsl`, GPU label `grid_update`, CPU twin: `cpu/grid_update.rs`.
//!
//! Turns node momentum into velocity, adds gravity, applies the domain-wall boundary
//! condition with Coulomb friction and the speed cap.
//!
//! Reads `params`, `grid_fixed`; writes `grid_velocity`.

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The pass's dispatch: one thread per grid node.
pub fn dispatch(state: &SimState) -> (MpmPass, Dispatch) {
    (MpmPass::GridUpdate, dispatch_of(MpmPass::GridUpdate, state))
}
