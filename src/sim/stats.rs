//! The `stats` pass: `shaders/mpm/stats.wgsl`, GPU label `stats`, no CPU twin: the host computes the same from read-back particles in tests.
//!
//! Reductions for the stable time step and for reports: the largest particle speed and
//! hardening factor and the range of Jp. Not part of a substep.
//!
//! Reads `params`, `particles`; writes the maxima in `status`. Each workgroup reduces in
//! workgroup memory first and adds one global atomic per quantity.

use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{PassTimestamps, record_pass};

// The pass's workgroup array holds one entry per thread, 256 of them.
const _: () = assert!(super::params::WORKGROUP_SIZE <= 256, "stats.wgsl's `partial` is sized for 256 threads");

/// Records the pass, one thread per particle.
pub fn record(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    timestamps: Option<PassTimestamps>,
) {
    record_pass(encoder, kernels, state, MpmPass::Stats, timestamps);
}
