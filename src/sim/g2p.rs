//! The `g2p` pass: `shaders/mpm/g2p.wgsl`, GPU label `g2p`, CPU twin: `cpu/g2p.rs`.
//!
//! Grid to particle: gathers velocity and the affine matrix C, updates the deformation
//! gradient, applies snow plasticity and advects the particle.
//!
//! Reads `params`, `grid_velocity`, `particles`; writes `particles`, `status.nonfinite_count`.

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The pass's dispatch: one thread per particle.
pub fn dispatch(state: &SimState) -> (MpmPass, Dispatch) {
    (MpmPass::G2p, dispatch_of(MpmPass::G2p, state))
}
