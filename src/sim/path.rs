//! The substep paths ([`SolverPath`]): which passes a substep of the explicit integrator runs, and
//! how g2p finds its particles on each. Stands below the sort and the pages, which both name it.

use serde::{Deserialize, Serialize};

/// g2p thread k updates the particle stored at place k (the naive path, and the binned paths
/// while they reorder the particles themselves: the places are then in block order as of the
/// last reorder).
pub const PARTICLE_ORDER_STORED: u32 = 0;
/// g2p thread k updates `particle_order[k]`, the k-th particle in block order (the binned paths
/// without reorder).
pub const PARTICLE_ORDER_BINNED: u32 = 1;
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
    /// ([`crate::sim::sort::reorder`]). With the reorder, g2p reads the places in order, which was measured
    /// faster than going through the sort's index (docs/performance.md); without
    /// it, the index keeps neighbouring threads on neighbouring grid nodes.
    pub fn particle_order(self, reorders: bool) -> u32 {
        if self.is_binned() && !reorders { PARTICLE_ORDER_BINNED } else { PARTICLE_ORDER_STORED }
    }
}
