//! The `p2g_gather` stage: `shaders/mpm/p2g_sources.wgsl` then `shaders/mpm/p2g_gather.wgsl`,
//! recorded as one compute pass with GPU label `p2g_gather`. CPU twin: `cpu/p2g.rs` (the same sums
//! as `p2g`, bit for bit).
//!
//! A sorted-path P2G without atomics on the sums: `p2g_sources` writes each particle's scatter data
//! (place in its stencil, mass, velocity, velocity gradient and its bound) in block order, one thread per
//! particle; then `p2g_gather` runs one workgroup per touched block and one thread per node, which
//! reads the particles of the 27 cells whose stencils reach the node and stores its sums once.
//! Chosen with [`super::Solver::set_p2g`]; on CPU adapters it is the default (see
//! `docs/performance.md` for the measurements on lavapipe and the H100).
//!
//! Reads `params`, `particles`, the bins; writes `scatter_sources`, `grid_fixed`, the status
//! counters (and resets particles whose state is not finite).

use bytemuck::{Pod, Zeroable};

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, dispatch_of};

/// One particle as `p2g_gather` reads it. Mirrors `ScatterSource` in `shaders/mpm/types.wgsl`;
/// only the GPU reads and writes it, the host needs its size.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuScatterSource {
    /// Where the particle lies in its stencil (`Stencil::fraction`), in cells: [0.5, 1.5) per axis.
    pub fraction: [f32; 3],
    /// Mass, kg.
    pub mass: f32,
    /// Velocity, m/s.
    pub velocity: [f32; 3],
    /// 1 if every node's velocity is finite and within the speed cap and every fixed-point value
    /// within the contribution limit (`Scatter::bounded` in `scatter.wgsl`), else 0.
    pub bounded: u32,
    /// MLS-MPM affine momentum over mass, the velocity gradient (columns, each padded to four
    /// floats), 1/s.
    pub gradient: [[f32; 4]; 3],
}

/// The stage's dispatches: `p2g_sources` over every particle, then `p2g_gather` over the touched
/// blocks (an indirect dispatch sized by `bin_dispatch`, the same as `grid_update_blocks`'s).
pub fn dispatches(state: &SimState) -> [(MpmPass, Dispatch); 2] {
    [MpmPass::P2gSources, MpmPass::P2gGather].map(|pass| (pass, dispatch_of(pass, state)))
}
