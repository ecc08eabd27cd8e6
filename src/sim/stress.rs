//! The `stress` pass: `shaders/mpm/stress.wgsl`, GPU label `stress`. CPU twin: the stress the twin
//! computes in its P2G (`cpu/p2g.rs`); tests/gpu_vs_cpu.rs compares P2G's grids, which carry it.
//!
//! Fills the `particle_stress` stream with the Kirchhoff stress τ of each particle's stored F and
//! Jp. g2p and g2p2g keep τ current as they update F; [`super::Solver`] runs this pass after an
//! upload (new particles, a reset, a new grid) and after a material change, so P2G never reads a
//! stale or unset τ.
//!
//! Reads `params`, the F and Jp streams; writes the stress stream.

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
    record_pass(encoder, kernels, state, MpmPass::Stress, timestamps);
}
