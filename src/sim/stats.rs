//! The `stats` pass: `shaders/mpm/stats.wgsl`, GPU label `stats`, no CPU twin: the host computes the same from read-back particles in tests.
//!
//! Reductions for the stable time step and for reports: the largest particle speed and
//! hardening factor and the range of Jp. Not part of a substep.
//!
//! Reads `params`, `particles`; writes the maxima in `status`.

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
    record_pass(encoder, kernels, state, MpmPass::Stats, state.particle_count, timestamps);
}
