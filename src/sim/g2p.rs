//! The `g2p` pass: `shaders/mpm/g2p.wgsl`, GPU label `g2p`, CPU twin: `cpu/g2p.rs`.
//!
//! Grid to particle: gathers velocity and the affine matrix C, updates the deformation
//! gradient, applies snow plasticity and advects the particle.
//!
//! Reads `params`, `grid_velocity`, `particles`; writes `particles`, `status.nonfinite_count`.

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
    record_pass(encoder, kernels, state, MpmPass::G2p, timestamps);
}
