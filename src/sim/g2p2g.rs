//! The `g2p2g` pass: `shaders/mpm/g2p2g.wgsl`, GPU label `g2p2g`, CPU twin: `cpu/g2p.rs` followed
//! by `cpu/p2g.rs`. The particles are g2p's and the sums p2g_tiled's, except that the stress comes
//! from the plasticity step's SVD instead of a second one, which differs by f32 rounding
//! (`tests/sorted_path.rs` bounds the difference; without elasticity it is bit for bit).
//!
//! The fused path's pass (after Claymore, Wang et al. 2020): one substep's grid to particle and the
//! next substep's particle to grid, one workgroup per block occupied at the last sort. Each
//! particle is read and written once; its new state goes straight into the workgroup's tile.
//!
//! Reads `params`, `grid_velocity`, `particles`, the bins; writes `particles`, `grid_fixed`, the
//! status counters.

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The pass's dispatch: one workgroup per block occupied at the last sort (an indirect dispatch sized
/// by that sort's `bin_dispatch`).
pub fn dispatch(state: &SimState) -> (MpmPass, Dispatch) {
    (MpmPass::G2p2g, dispatch_of(MpmPass::G2p2g, state))
}
