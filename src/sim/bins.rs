//! The sorted path's binning: particles grouped by the grid block of their stencil's base node,
//! every substep, so that `p2g_tiled` can run one workgroup per block (and `p2g_gather` find each
//! cell's particles) and `grid_update_blocks` can skip the blocks no particle reaches. CPU twin: [`crate::sim::cpu::bins`].
//!
//! A counting sort in five dispatches (seven on a sparse grid, [`super::grid_pool`]), recorded as one
//! compute pass (GPU label `sort`):
//!
//! | pass | threads | does |
//! | --- | --- | --- |
//! | `bin_clear` | one per block | zeroes the block counts and the counters (and a sparse grid's block map); `grid_update_blocks` zeroes the cell counts it visits |
//! | `bin_count` | one per particle | counts each block's and each cell's particles (atomics; a sparse grid's blocks only) |
//! | `bin_offsets` | one per block | gives each occupied block a range of `particle_order` and each of its cells a part of it (dense grid); lists the occupied and the touched blocks; hands out a sparse grid's pool blocks |
//! | `bin_cells` | one per particle | sparse grid only: counts each cell's particles, in its block's pool block |
//! | `bin_cell_offsets` | one per pool block | sparse grid only: each cell's part of its block's range |
//! | `bin_dispatch` | one | indirect dispatch sizes from the two list lengths, into `indirect_args` |
//! | `bin_scatter` | one per particle | writes each particle's index into its cell's part of its block's range |
//!
//! Within a block the particles are thus in cell order (the cell of a particle is its stencil's
//! base node): neighbouring threads of `p2g_tiled` mostly add to the same nodes, which its
//! subgroup pre-reduction relies on.
//!
//! `bin_dispatch` writes the dispatch sizes straight into the indirect-argument buffer, through a
//! bind group of its own ([`MpmPass::writes_dispatch_args`]): a buffer may not be bound for writing
//! and used for indirect arguments in the same dispatch.
//!
//! The sort orders an index array; every few substeps [`super::reorder`] then moves the particles
//! themselves into that order. Readbacks put them back into the scene's order, so tests and
//! exports see the same particle at the same index on every path.

use bytemuck::{Pod, Zeroable};
use serde::{Deserialize, Serialize};

use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, PassTimestamps, record_passes, thread_count};

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

/// Grid blocks along each axis of a grid of `node_dims` nodes: enough to cover every node
/// (`block_dims` in `types.wgsl`).
pub fn block_dims(node_dims: glam::UVec3) -> glam::UVec3 {
    node_dims.map(|n| n.div_ceil(BLOCK_EDGE))
}

/// How a substep is computed. The naive and sorted paths produce bit-identical grids and particles:
/// every particle's fixed-point contributions are the same integers, and integer sums do not depend
/// on their order. The fused path differs from them by the f32 rounding of its stress
/// (`tests/sorted_path.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverPath {
    /// grid_clear → p2g → grid_update → g2p: one thread per particle adding straight into global
    /// memory with 27 × 4 atomics, and passes over every node of the dense grid.
    Naive,
    /// sort → p2g_tiled (or another of [`crate::sim::shaders::MpmPass::SORTED_P2G`]) →
    /// grid_update_blocks → g2p: particles binned by block each substep, P2G
    /// summed in workgroup memory per block, grid passes over the touched blocks only.
    /// (The default, here and for a new `Solver`: see `default_path` in `solver.rs`.)
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
    /// ([`super::reorder`]). With the reorder, g2p reading the places in order was measured faster
    /// than going through the sort's index (docs/performance.md: 3.53 → 3.37 ms at 16M); without
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
    /// Padding.
    pub _pad0: u32,
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
    /// Padding.
    pub _pad1: u32,
}

/// Byte offset of `p2g_tiled`'s arguments in the indirect buffer; `grid_update_blocks`'s (which
/// `p2g_gather` also uses) follow.
pub const P2G_ARGS_OFFSET: u64 = 0;
/// Byte offset of `grid_update_blocks`'s arguments in the indirect buffer.
pub const UPDATE_ARGS_OFFSET: u64 = 16;

/// The sort's passes in order; `bin_cells` and `bin_cell_offsets` run on a sparse grid only
/// ([`SPARSE_CELL_PASSES`]).
pub const SORT_PASSES: [MpmPass; 7] = [
    MpmPass::BinClear,
    MpmPass::BinCount,
    MpmPass::BinOffsets,
    MpmPass::BinCells,
    MpmPass::BinCellOffsets,
    MpmPass::BinDispatch,
    MpmPass::BinScatter,
];

/// The passes that count a sparse grid's cells once `bin_offsets` has handed out the pool blocks
/// that hold their counters (a dense grid's are counted by `bin_count` and placed by `bin_offsets`).
pub const SPARSE_CELL_PASSES: [MpmPass; 2] = [MpmPass::BinCells, MpmPass::BinCellOffsets];

/// The sort's dispatches: [`SORT_PASSES`] for the state's grid, then the two of a
/// [`super::reorder`] if `reorder`.
pub fn dispatches(state: &SimState, reorder: bool) -> Vec<(MpmPass, Dispatch)> {
    let sparse = state.grid_storage.is_sparse();
    let mut dispatches: Vec<_> = SORT_PASSES
        .into_iter()
        .filter(|pass| sparse || !SPARSE_CELL_PASSES.contains(pass))
        .map(|pass| (pass, Dispatch::Threads(thread_count(pass, state))))
        .collect();
    if reorder {
        dispatches.extend(super::reorder::dispatches(state));
    }
    dispatches
}

/// Records the sort ([`dispatches`]) as one compute pass (`sort`). The cell counters must be zero,
/// as `grid_update_blocks` leaves them (or a buffer clear).
pub fn record(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    reorder: bool,
    timestamps: Option<PassTimestamps>,
) {
    record_passes(encoder, kernels, state, "sort", &dispatches(state, reorder), timestamps);
}
