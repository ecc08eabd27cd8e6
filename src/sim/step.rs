//! The order of the passes in one substep, and how a pass is dispatched.

use super::params::{MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE};
use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::{g2p, grid_clear, grid_update, p2g};

/// Workgroups `(x, y)` covering `threads` threads. Beyond 65 535 workgroups the dispatch spills into
/// y; `flat_index` in `types.wgsl` undoes this and the shaders skip threads past the end.
pub fn dispatch_size(threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP_SIZE).max(1);
    if groups <= MAX_WORKGROUPS_PER_DIMENSION {
        (groups, 1)
    } else {
        let y = groups.div_ceil(MAX_WORKGROUPS_PER_DIMENSION);
        (groups.div_ceil(y), y)
    }
}

/// Where a pass writes its begin/end timestamps: queries `first` and `first + 1` of `query_set`.
#[derive(Clone, Copy)]
pub struct PassTimestamps<'a> {
    /// The query set.
    pub query_set: &'a wgpu::QuerySet,
    /// Index of the begin query; the end goes to the next one.
    pub first: u32,
}

/// Records one compute pass of `pass` over `threads` threads.
pub fn record_pass(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    pass: MpmPass,
    threads: u32,
    timestamps: Option<PassTimestamps>,
) {
    let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(pass.name()),
        timestamp_writes: timestamps.map(|t| wgpu::ComputePassTimestampWrites {
            query_set: t.query_set,
            beginning_of_pass_write_index: Some(t.first),
            end_of_pass_write_index: Some(t.first + 1),
        }),
    });
    compute.set_pipeline(kernels.pipeline(pass));
    compute.set_bind_group(0, &state.bind_group, &[]);
    let (x, y) = dispatch_size(threads);
    compute.dispatch_workgroups(x, y, 1);
}

/// Records substep `index` of a frame: its collider blend, then grid_clear → p2g → grid_update →
/// g2p. With `timestamps`, pass `k` of the substep writes queries `first + 2k` and `first + 2k + 1`.
pub fn record_substep(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    index: u32,
    timestamps: Option<PassTimestamps>,
) {
    state.record_collider_blend(encoder, index);
    let at = |k: u32| timestamps.map(|t| PassTimestamps { query_set: t.query_set, first: t.first + 2 * k });
    grid_clear::record(encoder, kernels, state, at(0));
    p2g::record(encoder, kernels, state, at(1));
    grid_update::record(encoder, kernels, state, at(2));
    g2p::record(encoder, kernels, state, at(3));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatch_covers_every_thread_within_limits() {
        for threads in [1, 255, 256, 257, 1_000_000, 16_777_216, 16_777_217, 300_000_000] {
            let (x, y) = dispatch_size(threads);
            assert!(x <= MAX_WORKGROUPS_PER_DIMENSION && y <= MAX_WORKGROUPS_PER_DIMENSION);
            assert!(x as u64 * y as u64 * WORKGROUP_SIZE as u64 >= threads as u64);
        }
    }
}
