//! The `p2g` pass: `shaders/mpm/p2g.wgsl`, GPU label `p2g`, CPU twin: `cpu/p2g.rs`.
//!
//! Particle to grid: scatters each particle's mass and MLS-MPM momentum (velocity,
//! affine matrix, elastic stress) to its 27 stencil nodes as fixed-point i32 atomics.
//!
//! Reads `params`, `particles`; writes `grid_fixed` and the status counters (and resets particles
//! whose state is not finite).

use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{PassTimestamps, record_pass};

/// Records the pass, one thread per particle.
pub fn record(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    timestamps: Option<PassTimestamps>,
) {
    record_pass(encoder, kernels, state, MpmPass::P2g, timestamps);
}
