//! The `p2g_tiled` pass: `shaders/mpm/p2g_tiled.wgsl`, GPU label `p2g_tiled`, CPU twin:
//! `cpu/p2g.rs` (the same sums as `p2g`, bit for bit). Its variant `p2g_tiled_subgroup`
//! (`shaders/mpm/p2g_tiled_subgroup.wgsl`, same label as its name) first sums the contributions of
//! a subgroup's threads that share a cell, with shuffles, so one thread per run adds to the tile;
//! the sums are the same integers. The state's `p2g` choice picks it ([`super::step::sorted_p2g`]).
//!
//! The sorted path's particle to grid: one workgroup per occupied grid block sums its particles'
//! contributions in a 6×6×6-node tile of workgroup memory, then adds each non-zero tile sum to
//! `grid_fixed` with a single global 64-bit add.
//!
//! Reads `params`, `particles`, the bins; writes `grid_fixed`, the status counters (and resets
//! particles whose state is not finite).

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// The dispatch of `pass` (`P2gTiled` or `P2gTiledSubgroup`): one workgroup per occupied block (an
/// indirect dispatch sized by `bin_dispatch`).
pub fn dispatch(pass: MpmPass, state: &SimState) -> (MpmPass, Dispatch) {
    (pass, dispatch_of(pass, state))
}
