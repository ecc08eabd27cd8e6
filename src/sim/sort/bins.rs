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

use bytemuck::{Pod, Zeroable};
use serde::{Deserialize, Serialize};

use crate::sim::page::ParticlePage;
use crate::sim::passes::MpmPass;
use crate::sim::record::{Dispatch, PageRun, dispatch_of};

/// g2p thread k updates the particle stored at place k (the naive path, and the binned paths
/// while they reorder the particles themselves: the places are then in block order as of the
/// last reorder).
pub const PARTICLE_ORDER_STORED: u32 = 0;
/// g2p thread k updates `particle_order[k]`, the k-th particle in block order (the binned paths
/// without reorder).
pub const PARTICLE_ORDER_BINNED: u32 = 1;
/// Nodes along each edge of a grid block (`BLOCK_EDGE` in `types.wgsl`).
pub const BLOCK_EDGE: u32 = 4;
/// Cell counters per block in `cell_bins` (`BLOCK_CELLS` in `types.wgsl`).
pub const BLOCK_CELLS: u32 = BLOCK_EDGE * BLOCK_EDGE * BLOCK_EDGE;
/// The blocks the stencils based in one block reach, itself included (`REACHED_BLOCKS` in
/// `types.wgsl`): `bin_offsets` runs this many threads per occupied block, and `bin_cell_offsets`
/// per pool block.
pub const REACHED_BLOCKS: u32 = 8;

/// Grid blocks along each axis of a grid of `node_dims` nodes: enough to cover every node
/// (`block_dims` in `types.wgsl`).
pub fn block_dims(node_dims: glam::UVec3) -> glam::UVec3 {
    node_dims.map(|n| n.div_ceil(BLOCK_EDGE))
}

/// How a substep is computed. The three paths produce bit-identical grids and particles: every
/// particle's fixed-point contributions are the same integers, and integer sums do not depend on
/// their order (`tests/sorted_path.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverPath {
    /// grid_clear → p2g → grid_update → g2p: one thread per particle adding straight into global
    /// memory with 27 × 4 atomics, and passes over every node of the dense grid.
    Naive,
    /// sort → p2g_tiled (or another of [`crate::sim::passes::MpmPass::SORTED_P2G`]) →
    /// grid_update_blocks → g2p: particles binned by block each substep, P2G
    /// summed in workgroup memory per block, grid passes over the touched blocks only.
    /// (The default, here and for a new `Solver`: see `default_path` in `solver/build.rs`.)
    #[default]
    Sorted,
    /// The sorted path with g2p and the next substep's P2G fused: a run of substeps (one
    /// [`crate::sim::Solver::step`]) is sort → the sorted P2G kernel → grid_update_blocks, then for
    /// each further substep g2p2g → sort → grid_update_blocks, then g2p. Each particle is read and
    /// written once per substep.
    Fused,
}

impl SolverPath {
    /// Every path.
    pub const ALL: [SolverPath; 3] = [SolverPath::Naive, SolverPath::Sorted, SolverPath::Fused];

    /// The path's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            SolverPath::Naive => "naive",
            SolverPath::Sorted => "sorted",
            SolverPath::Fused => "fused",
        }
    }

    /// Parses [`SolverPath::name`].
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Names of the four timed stages of a substep (one compute pass each, timestamped together);
    /// [`crate::sim::Solver::stage_names`] names the P2G kernel actually in use. On the fused path
    /// stage 1 is g2p2g except in a run's first substep (the sorted P2G kernel), and stage 3 (g2p)
    /// runs only in its last.
    pub fn stage_names(self) -> [&'static str; 4] {
        match self {
            SolverPath::Naive => ["grid_clear", "p2g", "grid_update", "g2p"],
            SolverPath::Sorted => ["sort", "p2g_tiled", "grid_update_blocks", "g2p"],
            SolverPath::Fused => ["sort", "g2p2g", "grid_update_blocks", "g2p"],
        }
    }

    /// Whether the path bins particles by block every substep (sorted and fused).
    pub fn is_binned(self) -> bool {
        self != SolverPath::Naive
    }

    /// The `particle_order` uniform of the path, given whether it reorders the particles
    /// ([`super::reorder`]). With the reorder, g2p reads the places in order, which was measured
    /// faster than going through the sort's index (docs/performance.md); without
    /// it, the index keeps neighbouring threads on neighbouring grid nodes.
    pub fn particle_order(self, reorders: bool) -> u32 {
        if self.is_binned() && !reorders { PARTICLE_ORDER_BINNED } else { PARTICLE_ORDER_STORED }
    }
}

/// Counters of the bin passes. Mirrors `BinHeader` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuBinHeader {
    /// Particles given a place in `particle_order`.
    pub particle_total: u32,
    /// Blocks holding some particle's stencil base.
    pub occupied_count: u32,
    /// Blocks some particle's stencil reaches.
    pub touched_count: u32,
    /// The touched count at the end of the last sort: the blocks the next `bin_clear` empties.
    pub listed_touched: u32,
}

/// One grid block's bin. Mirrors `BlockBin` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuBlockBin {
    /// Particles whose stencil base lies in the block.
    pub count: u32,
    /// First index of the block's range in `particle_order`.
    pub offset: u32,
    /// On a sparse grid, `bin_scatter`'s cursor in a block without a pool block (none: 0).
    pub cursor: u32,
    /// 1 once `bin_offsets` has listed the block as touched in this sort.
    pub listed: u32,
}

/// Byte offset of `p2g_tiled`'s arguments in the indirect buffer; `grid_update_blocks`'s (which
/// `p2g_gather` also uses) follow.
pub const P2G_ARGS_OFFSET: u64 = 0;
/// Byte offset of `grid_update_blocks`'s arguments in the indirect buffer.
pub const UPDATE_ARGS_OFFSET: u64 = 16;
/// Byte offset of `bin_offsets`'s arguments in the indirect buffer.
pub const OFFSETS_ARGS_OFFSET: u64 = 32;
/// Size of the indirect buffer: three sets of arguments (x, y, z and an unused word).
pub const INDIRECT_ARGS_BYTES: u64 = 48;
/// Threads of `bin_clear`, at most: they stride over the last sort's touched list, whose length
/// only the GPU knows. 16,384 threads take a touched list of 40,000 blocks (16M particles) in three
/// strides, and are 64 workgroups on a GPU.
pub const CLEAR_THREADS: u32 = 16_384;

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
