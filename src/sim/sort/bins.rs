//! The sorted path's binning: particles grouped by the grid block of their stencil's base node,
//! every substep, so that `p2g_tiled` can run one workgroup per block (and `p2g_gather` find each
//! cell's particles) and `grid_update_blocks` can skip the blocks no particle reaches. CPU twin: [`crate::sim::cpu::bins`].
//!
//! A counting sort in six dispatches (eight on a sparse grid, [`crate::sim::grid_pool`]), recorded as
//! one compute pass (GPU label `sort`). No pass runs over every block of the domain: each works
//! from the particles, the lists of blocks or the pool, so a large, mostly empty domain costs what
//! its snow does (docs/performance.md, "Occupied-block lists").
//!
//! | pass | threads | does |
//! | --- | --- | --- |
//! | `bin_clear` | a fixed number, striding over the last sort's touched list | empties those blocks' bins, marks and sparse map entries (nothing else holds any), zeroes the counters; `grid_update_blocks` zeroes the cell counts it visits |
//! | `bin_count` | one per particle | counts each block's and each cell's particles (atomics; a sparse grid's blocks only), and lists each block as it becomes occupied |
//! | `bin_dispatch` | one | dispatch sizes from the counts, into `indirect_args`: here `bin_offsets`'s |
//! | `bin_offsets` | eight per occupied block | gives each occupied block a range of `particle_order` and each of its cells a part of it (dense grid); lists the blocks the occupied ones reach as touched; hands out a sparse grid's pool blocks |
//! | `bin_cells` | one per particle | sparse grid only: counts each cell's particles, in its block's pool block |
//! | `bin_cell_offsets` | eight per pool block | sparse grid only: each cell's part of its block's range |
//! | `bin_dispatch` | one | again: the sorted P2G kernels' and `grid_update_blocks`'s sizes, and the touched count for the next `bin_clear` |
//! | `bin_scatter` | one per particle | writes each particle's index into its cell's part of its block's range |
//!
//! With several pages, every page's `bin_clear` runs before the rest of any page's sort
//! ([`sort_runs`]): the pages share a sparse grid's map, and a page's `bin_clear` must not empty an
//! entry another page's `bin_offsets` has just set.
//!
//! Within a block the particles are thus in cell order (the cell of a particle is its stencil's
//! base node): neighbouring threads of `p2g_tiled` mostly add to the same nodes, which its
//! subgroup pre-reduction relies on.
//!
//! `bin_dispatch` writes the dispatch sizes straight into the indirect-argument buffer, through a
//! bind group of its own ([`crate::sim::passes::PassInfo::writes_dispatch_args`]): a buffer may not be bound for writing
//! and used for indirect arguments in the same dispatch.
//!
//! The sort orders an index array; every few substeps [`super::reorder`] then moves the particles
//! themselves into that order. Readbacks put them back into the scene's order, so tests and
//! exports see the same particle at the same index on every path.

pub use super::blocks::{
    BLOCK_CELLS, BLOCK_EDGE, CLEAR_THREADS, GpuBinHeader, GpuBlockBin, INDIRECT_ARGS_BYTES, OFFSETS_ARGS_OFFSET,
    P2G_ARGS_OFFSET, REACHED_BLOCKS, UPDATE_ARGS_OFFSET, block_dims,
};
use crate::sim::page::ParticlePage;
use crate::sim::passes::MpmPass;
pub use crate::sim::path::{PARTICLE_ORDER_BINNED, PARTICLE_ORDER_STORED, SolverPath};
use crate::sim::record::{Dispatch, PageRun, dispatch_of};

/// The sort's passes in order (`bin_dispatch` twice); `bin_cells` and `bin_cell_offsets` run on a
/// sparse grid only ([`SPARSE_CELL_PASSES`]).
pub const SORT_PASSES: [MpmPass; 8] = [
    MpmPass::BinClear,
    MpmPass::BinCount,
    MpmPass::BinDispatch,
    MpmPass::BinOffsets,
    MpmPass::BinCells,
    MpmPass::BinCellOffsets,
    MpmPass::BinDispatch,
    MpmPass::BinScatter,
];

/// The passes that count a sparse grid's cells once `bin_offsets` has handed out the pool blocks
/// that hold their counters (a dense grid's are counted by `bin_count` and placed by `bin_offsets`).
pub const SPARSE_CELL_PASSES: [MpmPass; 2] = [MpmPass::BinCells, MpmPass::BinCellOffsets];

/// The sort's `bin_clear`.
fn clear_dispatch(state: &ParticlePage) -> (MpmPass, Dispatch) {
    (MpmPass::BinClear, dispatch_of(MpmPass::BinClear, state))
}

/// The sort's dispatches after its `bin_clear`: the rest of [`SORT_PASSES`] for the state's grid,
/// then the two of a [`super::reorder`] if `reorder`.
fn dispatches_after_clear(state: &ParticlePage, reorder: bool) -> Vec<(MpmPass, Dispatch)> {
    let sparse = state.grid_storage.is_sparse();
    let mut dispatches: Vec<_> = SORT_PASSES[1..]
        .iter()
        .filter(|pass| sparse || !SPARSE_CELL_PASSES.contains(pass))
        .map(|&pass| (pass, dispatch_of(pass, state)))
        .collect();
    if reorder {
        dispatches.extend(super::reorder::dispatches(state));
    }
    dispatches
}

/// The sorts of all `pages`, as runs of one compute pass: every page's `bin_clear`, then the rest
/// of each page's sort, with a [`super::reorder`] where `reorder` says so for the
/// page (called once per page, in order). The clears come first because the pages share a sparse
/// grid's map, whose entries each page's `bin_clear` empties for the blocks it listed last time.
pub fn sort_runs<'a>(pages: &'a [ParticlePage], reorder: impl Fn(&ParticlePage) -> bool) -> Vec<PageRun<'a>> {
    let mut runs: Vec<PageRun> = pages.iter().map(|page| (page, vec![clear_dispatch(page)])).collect();
    runs.extend(pages.iter().map(|page| (page, dispatches_after_clear(page, reorder(page)))));
    runs
}
