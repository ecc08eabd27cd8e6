//! Every MPM compute pass, one row each: its WGSL file and entry point, how it is dispatched, the
//! bindings it uses, which integrator owns it and where its CPU twin is.
//!
//! This table is the one place a pass's facts live. The kernels ([`super::pipelines`]) build from
//! it, the recorder ([`super::record`]) sizes dispatches from it, and `tests/wgsl.rs` checks each
//! row's bindings against the globals naga finds reachable from the pass's entry point.
//! `docs/architecture.md` shows the same table as the stages of each path run it.

use super::indirect::Items;
// `reduce.wgsl`'s workgroup array holds one entry per thread, 256 of them.
const _: () = assert!(super::params::WORKGROUP_SIZE <= 256, "reduce.wgsl's `reduce_partial` is sized for 256 threads");
use super::sort::blocks;

/// One MPM compute pass. Its name ([`PassInfo::name`]) is the WGSL file stem, the entry point and
/// the GPU debug label.
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
    /// Sort: empty the block bins.
    BinClear,
    /// Sort: count the particles of each grid block.
    BinCount,
    /// Sort: give blocks their ranges, list occupied and touched blocks.
    BinOffsets,
    /// Sort on a sparse grid: count each cell's particles, in its block's pool block.
    BinCells,
    /// Sort on a sparse grid: the cells' first places within their blocks' ranges.
    BinCellOffsets,
    /// Sort: indirect dispatch sizes from the block counts.
    BinDispatch,
    /// Sort: particle indices into block order.
    BinScatter,
    /// Sorted path: particle to grid through a workgroup-memory tile per block.
    P2gTiled,
    /// Sorted path: [`MpmPass::P2gTiled`] with subgroup pre-reduction (adapters with subgroups).
    P2gTiledSubgroup,
    /// Sorted path: each particle's scatter data in block order, for [`MpmPass::P2gGather`].
    P2gSources,
    /// Sorted path: particle to grid gathered per node, without atomics on the sums.
    P2gGather,
    /// Binned paths: grid update over the touched blocks, zeroing the sums it read.
    GridUpdateBlocks,
    /// Fused path: one substep's grid to particle and the next one's particle to grid in one pass.
    G2p2g,
    /// Maxima and minima for the stable time step and reports.
    Stats,
    /// The nearest particle along the mouse ray.
    Pick,
    /// Each particle's Kirchhoff stress from its stored F and Jp, for P2G.
    Stress,
    /// Every few substeps: one share of the particles' streams into block order, in the scratch
    /// (one of [`super::sort::reorder::ROUNDS`] rounds).
    Reorder,
    /// The share [`MpmPass::Reorder`] put in the scratch, copied back.
    ReorderCopy,
    /// Every substep: the largest speed and hardening factor of the state, for its stable dt.
    ClockStats,
    /// Every substep: the substep's dt and whether it runs ([`super::explicit::clock`]).
    ClockAdvance,
    /// Every substep: the page's dispatches on or off by whether the substep runs.
    ClockGate,
    /// PB-MPM, every step: its dt and collider blend.
    PbClock,
    /// PB-MPM, every step: each particle's predicted motion, its impulse cleared.
    PbBegin,
    /// PB-MPM, every iteration: gather, constraint step, scatter (particles in stored order).
    PbIterate,
    /// PB-MPM on the binned path, every iteration: [`MpmPass::PbIterate`] one workgroup per
    /// occupied block, scattering through a workgroup-memory tile.
    PbIterateTiled,
    /// PB-MPM, every iteration: the grid's conditions on the nodes' motion.
    PbGrid,
    /// PB-MPM on the binned path, every iteration: [`MpmPass::PbGrid`] over the touched blocks.
    PbGridBlocks,
    /// PB-MPM Newton–PCG, every step: the prediction scattered.
    PbNewtonPredict,
    /// PB-MPM Newton–PCG, every step: the nodes' prediction, held axes, vectors zeroed.
    PbNewtonBegin,
    /// PB-MPM Newton–PCG, binned paths, per page: the sort's cell counters zeroed.
    PbNewtonCounters,
    /// PB-MPM Newton–PCG, every step: the elastic forces at the prediction.
    PbNewtonForce,
    /// PB-MPM Newton–PCG, every step: the residual at the prediction.
    PbNewtonResidual,
    /// PB-MPM Newton–PCG: one coarse level of the preconditioner restricted (the level is the round).
    PbNewtonRestrict,
    /// PB-MPM Newton–PCG: one level of the preconditioner interpolated down (the level is the round).
    PbNewtonProlong,
    /// PB-MPM Newton–PCG: the partial sums added up into α or β (which is the round).
    PbNewtonReduce,
    /// PB-MPM Newton–PCG: the next search direction.
    PbNewtonDirection,
    /// PB-MPM Newton–PCG: the stiffness part of A p, scattered.
    PbNewtonApply,
    /// PB-MPM Newton–PCG, binned paths: the stiffness part of A p, through a workgroup-memory tile.
    PbNewtonApplyTiled,
    /// PB-MPM Newton–PCG: A p on the nodes and pᵀAp.
    PbNewtonApplyGrid,
    /// PB-MPM Newton–PCG: the iterate and the residual updated.
    PbNewtonUpdate,
    /// PB-MPM Newton–PCG, every step: the nodes' velocities, conditions applied, and the slide the
    /// walls' friction took off them.
    PbNewtonFinish,
    /// PB-MPM Newton–PCG, every step: g2p, a liquid's strain without the friction's slide.
    PbNewtonG2p,
    /// PB-MPM Newton–PCG, a later Newton step of a time step (scenes with sand): the point the
    /// force is taken at again.
    PbNewtonRelinearize,
}

/// Which part of the solver a pass belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Infrastructure any integrator uses: the grid, the sort, stats and picking.
    Shared,
    /// The explicit MLS-MPM integrator (`src/sim/explicit/`, `shaders/mpm/explicit/`).
    Explicit,
    /// The position-based integrator (`src/sim/pbmpm/`, `shaders/mpm/pbmpm/`).
    Pbmpm,
}

/// How many workgroups a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One thread per item, `WORKGROUP_SIZE` to a workgroup ([`super::record::dispatch_size`]).
    Threads(Items),
    /// A single thread.
    Single,
    /// Workgroup counts the sort's `bin_dispatch` wrote into the page's indirect arguments, at
    /// this byte offset: one workgroup per occupied block ([`blocks::P2G_ARGS_OFFSET`]), per touched
    /// block ([`blocks::UPDATE_ARGS_OFFSET`]) or `bin_offsets`'s own ([`blocks::OFFSETS_ARGS_OFFSET`]).
    Indirect(u64),
}

/// The facts of one pass. Bindings are group 0's (`shaders/mpm/types.wgsl` names them); group 1,
/// the indirect arguments as storage, is in the layout of the passes that
/// [`PassInfo::writes_dispatch_args`] alone.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// The pass.
    pub pass: MpmPass,
    /// File stem, entry point and GPU label.
    pub name: &'static str,
    /// The pass's own file, relative to `shaders/`.
    pub file: &'static str,
    /// That file's text, embedded at build time.
    pub source: &'static str,
    /// The integrator that owns the pass, or shared.
    pub owner: Owner,
    /// How it is dispatched.
    pub shape: Shape,
    /// The group-0 bindings the entry point reaches.
    pub bindings: &'static [u32],
    /// Its CPU twin, relative to `src/sim/`, where it has one: what tests compare it with.
    pub twin: Option<&'static str>,
    /// Built twice, with the override constant `SPARSE_GRID` off and on, because it finds grid
    /// nodes through the sparse grid's map ([`super::grid_pool`]): the dense grid's kernel then
    /// carries no code or registers for the map.
    pub sparse_variant: bool,
    /// Uses subgroup operations: built only on devices with [`wgpu::Features::SUBGROUP`].
    pub needs_subgroups: bool,
    /// Writes the indirect dispatch arguments (group 1).
    pub writes_dispatch_args: bool,
    /// Runs in rounds, told by a `u32` of immediate data (the reorder's).
    pub takes_round: bool,
    /// The nodes of its workgroup-memory tile where it needs more than `tile.wgsl`'s default 6³.
    pub tile_nodes: Option<u32>,
}

impl PassInfo {
    const fn sparse(self) -> Self {
        Self { sparse_variant: true, ..self }
    }
    const fn subgroups(self) -> Self {
        Self { needs_subgroups: true, ..self }
    }
    const fn writes_args(self) -> Self {
        Self { writes_dispatch_args: true, ..self }
    }
    const fn rounds(self) -> Self {
        Self { takes_round: true, ..self }
    }
    const fn tile(self, nodes: u32) -> Self {
        Self { tile_nodes: Some(nodes), ..self }
    }
}

/// A row named once (file stem, entry point, label), its file embedded, with the common defaults:
/// no sparse variant, subgroups, group 1, rounds or tile size.
macro_rules! pass {
    ($pass:ident, $dir:literal, $name:literal, $owner:ident, $shape:expr, $bindings:expr, $twin:expr) => {
        PassInfo {
            pass: MpmPass::$pass,
            name: $name,
            file: concat!($dir, "/", $name, ".wgsl"),
            source: include_str!(concat!("../../shaders/", $dir, "/", $name, ".wgsl")),
            owner: Owner::$owner,
            shape: $shape,
            bindings: $bindings,
            twin: $twin,
            sparse_variant: false,
            needs_subgroups: false,
            writes_dispatch_args: false,
            takes_round: false,
            tile_nodes: None,
        }
    };
}

use Shape::{Indirect, Single, Threads};

const OCCUPIED: Shape = Indirect(blocks::P2G_ARGS_OFFSET);
const TOUCHED: Shape = Indirect(blocks::UPDATE_ARGS_OFFSET);

/// Every pass, in [`MpmPass`] order: pass, folder, name, owner, dispatch shape, group-0 bindings,
/// CPU twin; then the flags a few passes set ([`PassInfo`] says what each means).
#[rustfmt::skip]
pub const PASSES: [PassInfo; 47] = [
    pass!(GridClear,        "mpm",          "grid_clear",         Shared,   Threads(Items::GridWords),           &[7],                                                    Some("cpu/grid_clear.rs")),
    pass!(P2g,              "mpm/explicit", "p2g",                Explicit, Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 6, 7, 9, 23],                        Some("cpu/p2g.rs")),
    pass!(GridUpdate,       "mpm/explicit", "grid_update",        Explicit, Threads(Items::Nodes),               &[0, 7, 8, 11, 12, 21, 23],                              Some("cpu/grid_update.rs")),
    pass!(G2p,              "mpm",          "g2p",                Shared,   Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 6, 8, 9, 16, 22, 23],                Some("cpu/g2p.rs")).sparse(),
    pass!(BinClear,         "mpm",          "bin_clear",          Shared,   Threads(Items::BinClear),            &[0, 9, 13, 14, 15, 22],                                 None),
    pass!(BinCount,         "mpm",          "bin_count",          Shared,   Threads(Items::Particles),           &[0, 1, 13, 14, 15, 17],                                 Some("cpu/bins.rs")).sparse(),
    pass!(BinOffsets,       "mpm",          "bin_offsets",        Shared,   Indirect(blocks::OFFSETS_ARGS_OFFSET), &[0, 9, 13, 14, 15, 17, 22],                             Some("cpu/bins.rs")),
    pass!(BinCells,         "mpm",          "bin_cells",          Shared,   Threads(Items::Particles),           &[0, 1, 17, 22],                                         None).sparse(),
    pass!(BinCellOffsets,   "mpm",          "bin_cell_offsets",   Shared,   Threads(Items::CellOffsets),         &[0, 9, 17],                                             None),
    pass!(BinDispatch,      "mpm",          "bin_dispatch",       Shared,   Single,                              &[13, 23],                                               None).writes_args(),
    pass!(BinScatter,       "mpm",          "bin_scatter",        Shared,   Threads(Items::Particles),           &[0, 1, 14, 16, 17, 22],                                 Some("cpu/bins.rs")).sparse(),
    pass!(P2gTiled,         "mpm/explicit", "p2g_tiled",          Explicit, OCCUPIED,                            &[0, 1, 2, 3, 4, 5, 6, 7, 9, 13, 14, 15, 16, 22, 23],    Some("cpu/p2g.rs")).sparse(),
    pass!(P2gTiledSubgroup, "mpm/explicit", "p2g_tiled_subgroup", Explicit, OCCUPIED,                            &[0, 1, 2, 3, 4, 5, 6, 7, 9, 13, 14, 15, 16, 22, 23],    Some("cpu/p2g.rs")).sparse().subgroups(),
    pass!(P2gSources,       "mpm/explicit", "p2g_sources",        Explicit, Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 6, 9, 16, 18, 23],                   Some("cpu/p2g.rs")),
    pass!(P2gGather,        "mpm/explicit", "p2g_gather",         Explicit, TOUCHED,                             &[0, 7, 9, 13, 14, 15, 17, 18, 22],                      Some("cpu/p2g.rs")).sparse(),
    pass!(GridUpdateBlocks, "mpm/explicit", "grid_update_blocks", Explicit, TOUCHED,                             &[0, 7, 8, 11, 12, 13, 15, 17, 21, 22, 23],              Some("cpu/grid_update.rs")).sparse(),
    pass!(G2p2g,            "mpm/explicit", "g2p2g",              Explicit, OCCUPIED,                            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 16, 22, 23], Some("cpu/g2p.rs + cpu/p2g.rs")).tile(512),
    pass!(Stats,            "mpm",          "stats",              Shared,   Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 9],                                  None),
    pass!(Pick,             "mpm",          "pick",               Shared,   Threads(Items::Particles),           &[0, 1, 9, 10],                                          None),
    pass!(Stress,           "mpm/explicit", "stress",             Explicit, Threads(Items::Particles),           &[0, 3, 4, 5, 6],                                        Some("cpu/p2g.rs")),
    pass!(Reorder,          "mpm",          "reorder",            Shared,   Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 6, 16, 19, 20],                      None).rounds(),
    pass!(ReorderCopy,      "mpm",          "reorder_copy",       Shared,   Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 6, 16, 19, 20],                      None).rounds(),
    pass!(ClockStats,       "mpm/explicit", "clock_stats",        Explicit, Threads(Items::Particles),           &[0, 2, 5, 23],                                          Some("cpu/clock.rs")),
    pass!(ClockAdvance,     "mpm/explicit", "clock_advance",      Explicit, Single,                              &[0, 23],                                                Some("cpu/clock.rs")),
    pass!(ClockGate,        "mpm/explicit", "clock_gate",         Explicit, Single,                              &[23],                                                   None).writes_args(),
    pass!(PbClock,          "mpm/pbmpm",    "pb_clock",           Pbmpm,    Single,                              &[23],                                                   None),
    pass!(PbBegin,          "mpm/pbmpm",    "pb_begin",           Pbmpm,    Threads(Items::Particles),           &[0, 2, 20, 23],                                         Some("pbmpm/cpu/integrate.rs")),
    pass!(PbIterate,        "mpm/pbmpm",    "pb_iterate",         Pbmpm,    Threads(Items::Particles),           &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 22, 23],             Some("pbmpm/cpu/constraint.rs + transfer.rs")),
    pass!(PbIterateTiled,   "mpm/pbmpm",    "pb_iterate_tiled",   Pbmpm,    OCCUPIED,                            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 16, 20, 22, 23], Some("pbmpm/cpu/constraint.rs + transfer.rs")).sparse(),
    pass!(PbGrid,           "mpm/pbmpm",    "pb_grid",            Pbmpm,    Threads(Items::Nodes),               &[0, 7, 8, 11, 12, 21, 23],                              Some("pbmpm/cpu/grid.rs")),
    pass!(PbGridBlocks,     "mpm/pbmpm",    "pb_grid_blocks",     Pbmpm,    TOUCHED,                             &[0, 7, 8, 11, 12, 13, 15, 17, 21, 22, 23], Some("pbmpm/cpu/grid.rs")).sparse(),
    pass!(PbNewtonPredict, "mpm/pbmpm", "pb_newton_predict", Pbmpm, Threads(Items::Particles), &[0, 1, 2, 3, 4, 5, 6, 7, 9], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonBegin, "mpm/pbmpm", "pb_newton_begin", Pbmpm, Threads(Items::Nodes), &[0, 7, 8, 11, 12, 21, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonCounters, "mpm/pbmpm", "pb_newton_counters", Pbmpm, Threads(Items::Nodes), &[0, 17], None),
    pass!(PbNewtonForce, "mpm/pbmpm", "pb_newton_force", Pbmpm, Threads(Items::Particles), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 22, 23], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonResidual, "mpm/pbmpm", "pb_newton_residual", Pbmpm, Threads(Items::Nodes), &[0, 7, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonRestrict, "mpm/pbmpm", "pb_newton_restrict", Pbmpm, Threads(Items::Nodes), &[0, 24], Some("pbmpm/cpu/newton.rs")).rounds(),
    pass!(PbNewtonProlong, "mpm/pbmpm", "pb_newton_prolong", Pbmpm, Threads(Items::Nodes), &[0, 23, 24], Some("pbmpm/cpu/newton.rs")).rounds(),
    pass!(PbNewtonReduce, "mpm/pbmpm", "pb_newton_reduce", Pbmpm, Single, &[0, 9, 24], Some("pbmpm/cpu/newton.rs")).rounds(),
    pass!(PbNewtonDirection, "mpm/pbmpm", "pb_newton_direction", Pbmpm, Threads(Items::Nodes), &[0, 8, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonApply, "mpm/pbmpm", "pb_newton_apply", Pbmpm, Threads(Items::Particles), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 22, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonApplyTiled, "mpm/pbmpm", "pb_newton_apply_tiled", Pbmpm, OCCUPIED, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 16, 20, 22, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonApplyGrid, "mpm/pbmpm", "pb_newton_apply_grid", Pbmpm, Threads(Items::Nodes), &[0, 7, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonUpdate, "mpm/pbmpm", "pb_newton_update", Pbmpm, Threads(Items::Nodes), &[0, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonFinish, "mpm/pbmpm", "pb_newton_finish", Pbmpm, Threads(Items::Nodes), &[0, 8, 11, 12, 21, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonG2p, "mpm/pbmpm", "pb_newton_g2p", Pbmpm, Threads(Items::Particles), &[0, 1, 2, 3, 4, 5, 6, 8, 9, 16, 22, 23, 24], Some("pbmpm/cpu/newton.rs")),
    pass!(PbNewtonRelinearize, "mpm/pbmpm", "pb_newton_relinearize", Pbmpm, Threads(Items::Nodes), &[0, 8, 24], Some("pbmpm/cpu/newton.rs")),
];

impl MpmPass {
    /// Every pass, in declaration order.
    pub const ALL: [MpmPass; 47] = {
        let mut all = [MpmPass::GridClear; 47];
        let mut i = 0;
        while i < PASSES.len() {
            all[i] = PASSES[i].pass;
            i += 1;
        }
        all
    };

    /// The pass's row of [`PASSES`].
    pub fn info(self) -> &'static PassInfo {
        &PASSES[self as usize]
    }

    /// The pass's name: file stem, entry point and GPU label.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The pass's own WGSL source.
    pub fn source(self) -> &'static str {
        self.info().source
    }

    /// The four passes of a naive substep, in order; [`super::solver::Solver::run_pass`] runs the
    /// sorted path's stage in each one's place on that path.
    pub const SUBSTEP: [MpmPass; 4] = [MpmPass::GridClear, MpmPass::P2g, MpmPass::GridUpdate, MpmPass::G2p];
    /// The kernels the sorted path's P2G stage can run ([`super::solver::Solver::set_p2g`]).
    pub const SORTED_P2G: [MpmPass; 3] = [MpmPass::P2gTiled, MpmPass::P2gTiledSubgroup, MpmPass::P2gGather];
    /// The [`MpmPass::SORTED_P2G`] kernel called `name` (its [`PassInfo::name`]).
    pub fn sorted_p2g_named(name: &str) -> Option<MpmPass> {
        Self::SORTED_P2G.into_iter().find(|p| p.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_in_pass_order_and_named_after_their_files() {
        for (i, info) in PASSES.iter().enumerate() {
            assert_eq!(info.pass as usize, i, "{} is out of order", info.name);
            assert!(info.file.ends_with(&format!("/{}.wgsl", info.name)), "{}", info.file);
            let folder = match info.owner {
                Owner::Shared => "mpm/",
                Owner::Explicit => "mpm/explicit/",
                Owner::Pbmpm => "mpm/pbmpm/",
            };
            assert_eq!(info.file, format!("{folder}{}.wgsl", info.name), "{} lies in the wrong folder", info.name);
        }
    }
}
