//! Recording passes: how a pass is dispatched over a page of particles ([`dispatch_of`], from its
//! row of [`super::passes::PASSES`]) and how a sequence of dispatches over several pages becomes one
//! compute pass ([`record_runs`]). Shared by every integrator; the order of the passes is theirs.
//!
//! A page's indirect-argument buffer holds `bin_dispatch`'s entries ([`blocks::INDIRECT_ARGS_BYTES`]),
//! then one gated entry per size class of fixed-size dispatch ([`Items`]), then their templates
//! (laid out in [`super::indirect`]; [`write_gate_template`] fills the templates).

use super::page::ParticlePage;
use super::params::{WORKGROUP_SIZE, spill_workgroups};
use super::passes::{MpmPass, Shape};
use super::pipelines::Kernels;
use super::sort::blocks;

pub use super::indirect::{BIN_ENTRIES, ENTRY_BYTES, GATED_ENTRIES, INDIRECT_ARGS_BYTES, Items};

/// Workgroups `(x, y)` covering `threads` threads ([`spill_workgroups`]: beyond 65 535 workgroups
/// the dispatch spills into y).
pub fn dispatch_size(threads: u32) -> (u32, u32) {
    spill_workgroups(threads.div_ceil(WORKGROUP_SIZE).max(1))
}

/// Where a pass writes its begin/end timestamps: queries `first` and `first + 1` of `query_set`.
#[derive(Clone, Copy)]
pub struct PassTimestamps<'a> {
    /// The query set.
    pub query_set: &'a wgpu::QuerySet,
    /// Index of the begin query; the end goes to the next one.
    pub first: u32,
}

/// How many workgroups a dispatch of a compute pass runs.
#[derive(Clone, Copy, Debug)]
pub enum Dispatch {
    /// One thread per item, `WORKGROUP_SIZE` per workgroup (spilled into y, see [`dispatch_size`]).
    Threads(u32),
    /// Workgroup counts read on the GPU from `state.indirect_args` at this byte offset.
    Indirect(u64),
    /// As `Threads`, for a pass that runs in rounds ([`crate::sim::passes::PassInfo::takes_round`]): `round` is its
    /// immediate data.
    Round {
        /// Threads, one per item.
        threads: u32,
        /// The round, a `u32` immediate.
        round: u32,
    },
    /// As `Indirect`, for a pass that runs in rounds: `round` is its immediate data.
    IndirectRound {
        /// Byte offset of the arguments in `state.indirect_args`.
        offset: u64,
        /// The round, a `u32` immediate.
        round: u32,
    },
}

/// Dispatches of one page ([`ParticlePage`]), run with its bind groups.
pub type PageRun<'a> = (&'a ParticlePage, Vec<(MpmPass, Dispatch)>);

/// The runs of `dispatches` of each page, in page order.
pub fn page_runs<'a>(
    pages: &'a [ParticlePage],
    dispatches: impl Fn(&ParticlePage) -> Vec<(MpmPass, Dispatch)>,
) -> Vec<PageRun<'a>> {
    pages.iter().map(|page| (page, dispatches(page))).collect()
}

/// Records one compute pass labelled `label` running `dispatches` in order over `state` (wgpu
/// puts a barrier between dispatches that share writable buffers), with timestamps around the
/// whole pass.
pub fn record_passes(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &ParticlePage,
    label: &str,
    dispatches: &[(MpmPass, Dispatch)],
    timestamps: Option<PassTimestamps>,
) {
    record_runs(encoder, kernels, label, &[(state, dispatches.to_vec())], timestamps);
}

/// [`record_passes`] over several pages: each run's dispatches with its page's bind groups, in
/// order, in one compute pass.
pub fn record_runs(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    label: &str,
    runs: &[PageRun],
    timestamps: Option<PassTimestamps>,
) {
    let mut compute = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(label),
        timestamp_writes: timestamps.map(|t| wgpu::ComputePassTimestampWrites {
            query_set: t.query_set,
            beginning_of_pass_write_index: Some(t.first),
            end_of_pass_write_index: Some(t.first + 1),
        }),
    });
    for (state, dispatches) in runs {
        compute.set_bind_group(0, &state.bind_group, &[]);
        // Group 1 is in the layouts of bin_dispatch and clock_gate alone (PassInfo::writes_dispatch_args); a
        // dispatch whose layout lacks it does not count it as bound, so indirect_args is storage
        // for those two only and indirect arguments for the rest.
        compute.set_bind_group(1, &state.dispatch_args_group, &[]);
        for &(pass, dispatch) in dispatches {
            compute.set_pipeline(kernels.pipeline(pass, state.grid_storage.is_sparse()));
            if let Dispatch::Round { round, .. } | Dispatch::IndirectRound { round, .. } = dispatch {
                compute.set_immediates(0, bytemuck::bytes_of(&round));
            }
            match dispatch {
                Dispatch::Threads(threads) | Dispatch::Round { threads, .. } => {
                    let (x, y) = dispatch_size(threads);
                    compute.dispatch_workgroups(x, y, 1);
                }
                Dispatch::Indirect(offset) | Dispatch::IndirectRound { offset, .. } => {
                    compute.dispatch_workgroups_indirect(&state.indirect_args, offset);
                }
            }
        }
    }
}

/// The size class of `pass` where it runs one thread per item ([`Shape::Threads`]).
pub fn items_of(pass: MpmPass) -> Option<Items> {
    match pass.info().shape {
        Shape::Threads(items) => Some(items),
        Shape::Single | Shape::Indirect(_) => None,
    }
}

/// Threads of a dispatch over `items` of `state`.
pub fn item_threads(items: Items, state: &ParticlePage) -> u32 {
    match items {
        Items::GridWords => state.grid_fixed_words(),
        Items::Nodes => state.node_count,
        Items::BinClear => state.block_count.min(blocks::CLEAR_THREADS),
        Items::CellOffsets => state.grid_storage.pool_blocks() * blocks::REACHED_BLOCKS,
        Items::Particles => state.particle_count,
    }
}

/// Writes the template of `page`'s gated dispatches ([`Items`]) and turns them on: done at the
/// start of every frame, so the sizes follow the grid (a sparse grid's pool grows between frames).
pub fn write_gate_template(queue: &wgpu::Queue, page: &ParticlePage) {
    let args: Vec<[u32; 4]> = Items::ALL
        .iter()
        .map(|&items| {
            let (x, y) = dispatch_size(item_threads(items, page));
            [x, y, 1, 0]
        })
        .collect();
    let bytes: &[u8] = bytemuck::cast_slice(&args);
    queue.write_buffer(&page.indirect_args, Items::Particles.offset(), bytes);
    queue.write_buffer(&page.indirect_args, Items::Particles.template_offset(), bytes);
}

/// How `pass` is dispatched over `state`, as its row of the pass table says ([`Shape`]).
pub fn dispatch_of(pass: MpmPass, state: &ParticlePage) -> Dispatch {
    match pass.info().shape {
        Shape::Threads(items) => Dispatch::Threads(item_threads(items, state)),
        Shape::Single => Dispatch::Threads(1),
        Shape::Indirect(offset) => Dispatch::Indirect(offset),
    }
}

/// Records one compute pass of `pass`, dispatched as [`dispatch_of`] says.
pub fn record_pass(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &ParticlePage,
    pass: MpmPass,
    timestamps: Option<PassTimestamps>,
) {
    record_passes(encoder, kernels, state, pass.name(), &[(pass, dispatch_of(pass, state))], timestamps);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::params::MAX_WORKGROUPS_PER_DIMENSION;

    #[test]
    fn dispatch_covers_every_thread_within_limits() {
        for threads in [1, 255, 256, 257, 1_000_000, 16_777_216, 16_777_217, 300_000_000] {
            let (x, y) = dispatch_size(threads);
            assert!(x <= MAX_WORKGROUPS_PER_DIMENSION && y <= MAX_WORKGROUPS_PER_DIMENSION);
            assert!(x as u64 * y as u64 * WORKGROUP_SIZE as u64 >= threads as u64);
        }
    }

    #[test]
    fn gated_entries_and_template_follow_the_bin_entries() {
        assert_eq!(Items::Particles.offset(), 48);
        assert_eq!(Items::CellOffsets.offset() + ENTRY_BYTES, Items::Particles.template_offset());
        assert_eq!(Items::CellOffsets.template_offset() + ENTRY_BYTES, INDIRECT_ARGS_BYTES);
        assert!(Items::ALL.iter().enumerate().all(|(i, g)| *g as usize == i));
    }
}
