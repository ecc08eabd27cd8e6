//! The `p2g` pass: `shaders/mpm/p2g.wgsl`, GPU label `p2g`, CPU twin: `cpu/p2g.rs`.
//!
//! Particle to grid: scatters each particle's mass and MLS-MPM momentum (velocity,
//! affine matrix, elastic stress) to its 27 stencil nodes as fixed-point i32 atomics.
//!
//! Reads `params`, `particles`; writes `grid_fixed` and the status counters (and resets particles
//! whose state is not finite).

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The pass's dispatch: one thread per particle.
pub fn dispatch(state: &SimState) -> (MpmPass, Dispatch) {
    (MpmPass::P2g, dispatch_of(MpmPass::P2g, state))
}
