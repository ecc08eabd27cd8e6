//! The `pick` pass: `shaders/mpm/pick.wgsl`, GPU label `pick`; no CPU twin (tests compare with a
//! host search over read-back particles).
//!
//! Finds the nearest particle along the mouse ray for the grab tool. Reads `params`, `pick_ray`,
//! `particles`; writes `status.pick_distance_bits`. Run through [`super::Solver::pick`].

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
    record_pass(encoder, kernels, state, MpmPass::Pick, timestamps);
}
