//! The WGSL sources of the MPM passes and how they are put together.
//!
//! WGSL has no `#include`, so each pass module is the concatenation of the shared library files
//! (structs and bindings, the interpolation stencil, the SVD, the snow model) and the pass's own
//! file. Release and debug builds both embed the sources with `include_str!`; `tests/wgsl.rs`
//! validates every composed module with naga, without a GPU.

/// The particle struct (mirror of `GpuParticle`) and finiteness helpers: first in every MPM module
/// and in every render module that reads particles.
pub const PARTICLE: (&str, &str) = ("mpm/particle.wgsl", include_str!("../../shaders/mpm/particle.wgsl"));

/// Library files every pass includes, in dependency order: (path under `shaders/`, source).
pub const LIBRARIES: [(&str, &str); 9] = [
    PARTICLE,
    ("mpm/types.wgsl", include_str!("../../shaders/mpm/types.wgsl")),
    ("mpm/kernel.wgsl", include_str!("../../shaders/mpm/kernel.wgsl")),
    ("mpm/svd.wgsl", include_str!("../../shaders/mpm/svd.wgsl")),
    ("mpm/snow.wgsl", include_str!("../../shaders/mpm/snow.wgsl")),
    ("mpm/scatter.wgsl", include_str!("../../shaders/mpm/scatter.wgsl")),
    ("mpm/advance.wgsl", include_str!("../../shaders/mpm/advance.wgsl")),
    ("mpm/tile.wgsl", include_str!("../../shaders/mpm/tile.wgsl")),
    ("mpm/grid_node.wgsl", include_str!("../../shaders/mpm/grid_node.wgsl")),
];

/// One MPM compute pass. The same name is the WGSL file, the entry point, the Rust module that
/// records it and the GPU debug label.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MpmPass {
    /// Zero the grid's fixed-point sums.
    GridClear,
    /// Particle to grid.
    P2g,
    /// Grid velocities, gravity and walls.
    GridUpdate,
    /// Grid to particle, plasticity and advection.
    G2p,
    /// Sorted path: empty the block bins.
    BinClear,
    /// Sorted path: count the particles of each grid block.
    BinCount,
    /// Sorted path: give blocks their ranges, list occupied and touched blocks.
    BinOffsets,
    /// Sorted path on a sparse grid: count each cell's particles, in its block's pool block.
    BinCells,
    /// Sorted path on a sparse grid: the cells' first places within their blocks' ranges.
    BinCellOffsets,
    /// Sorted path: indirect dispatch sizes from the block counts.
    BinDispatch,
    /// Sorted path: particle indices into block order.
    BinScatter,
    /// Sorted path: particle to grid through a workgroup-memory tile per block.
    P2gTiled,
    /// Sorted path: [`MpmPass::P2gTiled`] with subgroup pre-reduction (adapters with subgroups).
    P2gTiledSubgroup,
    /// Sorted path: each particle's scatter data in block order, for [`MpmPass::P2gGather`].
    P2gSources,
    /// Sorted path: particle to grid gathered per node, without atomics on the sums.
    P2gGather,
    /// Sorted path: grid update over the touched blocks, zeroing the sums it read.
    GridUpdateBlocks,
    /// Fused path: one substep's grid to particle and the next one's particle to grid in one pass.
    G2p2g,
    /// Maxima and minima for the stable time step and reports.
    Stats,
    /// The nearest particle along the mouse ray.
    Pick,
    /// Each particle's Kirchhoff stress from its stored F and Jp, for P2G.
    Stress,
    /// Sorted and fused paths, every few substeps: one share of the particles' streams into block
    /// order, in the scratch (one of [`super::reorder::ROUNDS`] rounds).
    Reorder,
    /// Sorted and fused paths: the share [`MpmPass::Reorder`] put in the scratch, copied back.
    ReorderCopy,
    /// Every substep: the largest speed and hardening factor of the state, for its stable dt.
    ClockStats,
    /// Every substep: the substep's dt and whether it runs ([`super::clock`]).
    ClockAdvance,
    /// Every substep: the page's dispatches on or off by whether the substep runs.
    ClockGate,
}

impl MpmPass {
    /// The four passes of a naive substep, in order; [`super::solver::Solver::run_pass`] runs the
    /// sorted path's stage in each one's place on that path.
    pub const SUBSTEP: [MpmPass; 4] = [MpmPass::GridClear, MpmPass::P2g, MpmPass::GridUpdate, MpmPass::G2p];
    /// The kernels the sorted path's P2G stage can run ([`super::solver::Solver::set_p2g`]).
    pub const SORTED_P2G: [MpmPass; 3] = [MpmPass::P2gTiled, MpmPass::P2gTiledSubgroup, MpmPass::P2gGather];
    /// The [`MpmPass::SORTED_P2G`] kernel called `name` (its [`MpmPass::name`]).
    pub fn sorted_p2g_named(name: &str) -> Option<MpmPass> {
        Self::SORTED_P2G.into_iter().find(|p| p.name() == name)
    }

    /// Every pass.
    pub const ALL: [MpmPass; 25] = [
        MpmPass::GridClear,
        MpmPass::P2g,
        MpmPass::GridUpdate,
        MpmPass::G2p,
        MpmPass::BinClear,
        MpmPass::BinCount,
        MpmPass::BinOffsets,
        MpmPass::BinCells,
        MpmPass::BinCellOffsets,
        MpmPass::BinDispatch,
        MpmPass::BinScatter,
        MpmPass::P2gTiled,
        MpmPass::P2gTiledSubgroup,
        MpmPass::P2gSources,
        MpmPass::P2gGather,
        MpmPass::GridUpdateBlocks,
        MpmPass::G2p2g,
        MpmPass::Stats,
        MpmPass::Pick,
        MpmPass::Stress,
        MpmPass::Reorder,
        MpmPass::ReorderCopy,
        MpmPass::ClockStats,
        MpmPass::ClockAdvance,
        MpmPass::ClockGate,
    ];

    /// Whether the pass runs in rounds, told by a `u32` of immediate data (the reorder's,
    /// [`super::reorder::ROUNDS`]); its pipeline layout has room for it.
    pub fn takes_round(self) -> bool {
        matches!(self, MpmPass::Reorder | MpmPass::ReorderCopy)
    }

    /// The pass's name: file stem, entry point and GPU label.
    pub fn name(self) -> &'static str {
        match self {
            MpmPass::GridClear => "grid_clear",
            MpmPass::P2g => "p2g",
            MpmPass::GridUpdate => "grid_update",
            MpmPass::G2p => "g2p",
            MpmPass::BinClear => "bin_clear",
            MpmPass::BinCount => "bin_count",
            MpmPass::BinOffsets => "bin_offsets",
            MpmPass::BinCells => "bin_cells",
            MpmPass::BinCellOffsets => "bin_cell_offsets",
            MpmPass::BinDispatch => "bin_dispatch",
            MpmPass::BinScatter => "bin_scatter",
            MpmPass::P2gTiled => "p2g_tiled",
            MpmPass::P2gTiledSubgroup => "p2g_tiled_subgroup",
            MpmPass::P2gSources => "p2g_sources",
            MpmPass::P2gGather => "p2g_gather",
            MpmPass::GridUpdateBlocks => "grid_update_blocks",
            MpmPass::G2p2g => "g2p2g",
            MpmPass::Stats => "stats",
            MpmPass::Pick => "pick",
            MpmPass::Stress => "stress",
            MpmPass::Reorder => "reorder",
            MpmPass::ReorderCopy => "reorder_copy",
            MpmPass::ClockStats => "clock_stats",
            MpmPass::ClockAdvance => "clock_advance",
            MpmPass::ClockGate => "clock_gate",
        }
    }

    /// The pass's own WGSL source.
    pub fn source(self) -> &'static str {
        match self {
            MpmPass::GridClear => include_str!("../../shaders/mpm/grid_clear.wgsl"),
            MpmPass::P2g => include_str!("../../shaders/mpm/p2g.wgsl"),
            MpmPass::GridUpdate => include_str!("../../shaders/mpm/grid_update.wgsl"),
            MpmPass::G2p => include_str!("../../shaders/mpm/g2p.wgsl"),
            MpmPass::BinClear => include_str!("../../shaders/mpm/bin_clear.wgsl"),
            MpmPass::BinCount => include_str!("../../shaders/mpm/bin_count.wgsl"),
            MpmPass::BinOffsets => include_str!("../../shaders/mpm/bin_offsets.wgsl"),
            MpmPass::BinCells => include_str!("../../shaders/mpm/bin_cells.wgsl"),
            MpmPass::BinCellOffsets => include_str!("../../shaders/mpm/bin_cell_offsets.wgsl"),
            MpmPass::BinDispatch => include_str!("../../shaders/mpm/bin_dispatch.wgsl"),
            MpmPass::BinScatter => include_str!("../../shaders/mpm/bin_scatter.wgsl"),
            MpmPass::P2gTiled => include_str!("../../shaders/mpm/p2g_tiled.wgsl"),
            MpmPass::P2gTiledSubgroup => include_str!("../../shaders/mpm/p2g_tiled_subgroup.wgsl"),
            MpmPass::P2gSources => include_str!("../../shaders/mpm/p2g_sources.wgsl"),
            MpmPass::P2gGather => include_str!("../../shaders/mpm/p2g_gather.wgsl"),
            MpmPass::GridUpdateBlocks => include_str!("../../shaders/mpm/grid_update_blocks.wgsl"),
            MpmPass::G2p2g => include_str!("../../shaders/mpm/g2p2g.wgsl"),
            MpmPass::Stats => include_str!("../../shaders/mpm/stats.wgsl"),
            MpmPass::Pick => include_str!("../../shaders/mpm/pick.wgsl"),
            MpmPass::Stress => include_str!("../../shaders/mpm/stress.wgsl"),
            MpmPass::Reorder => include_str!("../../shaders/mpm/reorder.wgsl"),
            MpmPass::ReorderCopy => include_str!("../../shaders/mpm/reorder_copy.wgsl"),
            MpmPass::ClockStats => include_str!("../../shaders/mpm/clock_stats.wgsl"),
            MpmPass::ClockAdvance => include_str!("../../shaders/mpm/clock_advance.wgsl"),
            MpmPass::ClockGate => include_str!("../../shaders/mpm/clock_gate.wgsl"),
        }
    }

    /// The nodes of the pass's workgroup-memory tile where it needs more than the default
    /// `TILE_NODES` of `tile.wgsl` (6³, for the P2G kernels): g2p2g's particles moved since they
    /// were binned, so its tile is 8³.
    pub fn tile_nodes(self) -> Option<u32> {
        (self == MpmPass::G2p2g).then_some(512)
    }

    /// Whether the pass finds grid nodes through `grid_place` or cell counters through
    /// `cell_counter` (the sparse grid's map, [`crate::sim::grid_pool`]): it is built twice, with the override constant `SPARSE_GRID` off
    /// and on, so that the dense grid's kernels carry no code or registers for the map.
    pub fn has_sparse_variant(self) -> bool {
        matches!(
            self,
            MpmPass::BinCount
                | MpmPass::BinCells
                | MpmPass::BinScatter
                | MpmPass::P2gTiled
                | MpmPass::P2gTiledSubgroup
                | MpmPass::P2gGather
                | MpmPass::GridUpdateBlocks
                | MpmPass::G2p
        )
    }

    /// Whether the pass uses subgroup operations: it is built only on devices with
    /// [`wgpu::Features::SUBGROUP`].
    pub fn needs_subgroups(self) -> bool {
        self == MpmPass::P2gTiledSubgroup
    }

    /// Whether the pass writes the indirect dispatch arguments (`bin_dispatch`, `clock_gate`):
    /// their pipeline layouts alone have group 1, the argument buffer as storage
    /// (`Kernels::dispatch_args_layout`).
    pub fn writes_dispatch_args(self) -> bool {
        matches!(self, MpmPass::BinDispatch | MpmPass::ClockGate)
    }

    /// The complete module: the libraries followed by the pass.
    pub fn composed_source(self) -> String {
        compose(self.source())
    }
}

/// Prepends the library files to a pass (or test) source.
pub fn compose(pass_source: &str) -> String {
    let mut text = String::new();
    for (_, library) in LIBRARIES {
        text.push_str(library);
        text.push('\n');
    }
    text.push_str(pass_source);
    text
}

/// Directory of the shader sources in this checkout (for hot reload in debug builds).
pub fn source_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders")
}

/// Every pass's composed module read from the files under `dir` (`dir/mpm/*.wgsl`) instead of the
/// embedded copies. Used by hot reload; an unreadable file is an error naming it.
pub fn composed_sources_from(
    dir: &std::path::Path,
) -> Result<std::collections::HashMap<MpmPass, String>, std::io::Error> {
    let read = |rel: &str| {
        let path = dir.join(rel);
        std::fs::read_to_string(&path).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    };
    let mut prelude = String::new();
    for (rel, _) in LIBRARIES {
        prelude.push_str(&read(rel)?);
        prelude.push('\n');
    }
    MpmPass::ALL
        .into_iter()
        .map(|pass| Ok((pass, format!("{prelude}{}", read(&format!("mpm/{}.wgsl", pass.name()))?))))
        .collect()
}

/// The newest modification time among the shader files under `dir` (`mpm/` and `render/`), for
/// change detection.
pub fn newest_modification(dir: &std::path::Path) -> Option<std::time::SystemTime> {
    let newest = |sub: &str| -> Option<std::time::SystemTime> {
        std::fs::read_dir(dir.join(sub)).ok()?.filter_map(|e| e.ok()?.metadata().ok()?.modified().ok()).max()
    };
    newest("mpm").max(newest("render"))
}
