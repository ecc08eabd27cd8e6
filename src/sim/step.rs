//! The order of the passes in one substep, and how a pass is dispatched.

use super::bins::SolverPath;
use super::clock::Gate;
use super::params::{MAX_WORKGROUPS_PER_DIMENSION, WORKGROUP_SIZE};
use super::pipelines::Kernels;
use super::shaders::MpmPass;
use super::state::SimState;
use super::{bins, g2p, g2p2g, grid_clear, grid_update, grid_update_blocks, p2g, p2g_gather, p2g_tiled};

/// Substeps recorded into one command buffer before it is submitted. The GPU starts on a
/// submission only once it is recorded, and recording a substep took the host 0.07–0.3 ms on the
/// H100's machine (0.04–0.1 ms since a substep is one compute pass), a good part of the GPU's
/// 0.5 ms for a substep of 1M particles; in submissions of a few substeps the host records the
/// next while the GPU runs the last (docs/performance.md, "Recording while the GPU runs").
pub const SUBSTEPS_PER_SUBMIT: u32 = 8;

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

/// Timestamps for the substeps of a run's first submission ([`super::Solver::step_timed`]): the
/// app's pass timer. A run's first submission holds at most [`SUBSTEPS_PER_SUBMIT`] substeps.
pub trait SubstepTimer {
    /// Where substep `index` of the first submission writes its timestamps.
    fn timestamps(&self, index: u32) -> PassTimestamps<'_>;
    /// Records, at the end of the first submission, the copy of its `substeps` substeps'
    /// timestamps to where they are read.
    fn resolve(&self, encoder: &mut wgpu::CommandEncoder, substeps: u32);
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
    /// As `Threads`, for a pass that runs in rounds ([`MpmPass::takes_round`]): `round` is its
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

impl Dispatch {
    /// This dispatch of `pass` within a substep: a fixed-size one becomes indirect, from the
    /// gated entry of its size ([`Gate`]), which `clock_gate` empties once the frame has ended.
    /// The ones already indirect (sized by `bin_dispatch`) are emptied by `clock_gate` too.
    /// `bin_dispatch` stays as it is: it writes the indirect arguments, so it cannot read its own
    /// from them; it checks the clock itself.
    fn gated(self, pass: MpmPass) -> Dispatch {
        match (self, gate_of(pass)) {
            (Dispatch::Threads(_), Some(gate)) => Dispatch::Indirect(gate.offset()),
            (Dispatch::Round { round, .. }, Some(gate)) => Dispatch::IndirectRound { offset: gate.offset(), round },
            (dispatch, _) => dispatch,
        }
    }
}

/// Dispatches of one page ([`SimState`]), run with its bind groups.
pub type PageRun<'a> = (&'a SimState, Vec<(MpmPass, Dispatch)>);

/// The runs of `dispatches` of each page, in page order.
pub fn page_runs<'a>(
    pages: &'a [SimState],
    dispatches: impl Fn(&SimState) -> Vec<(MpmPass, Dispatch)>,
) -> Vec<PageRun<'a>> {
    pages.iter().map(|page| (page, dispatches(page))).collect()
}

/// Records one compute pass labelled `label` running `dispatches` in order over `state` (wgpu
/// puts a barrier between dispatches that share writable buffers), with timestamps around the
/// whole pass.
pub fn record_passes(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
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
        // Group 1 is in the layout of bin_dispatch alone (MpmPass::writes_dispatch_args); a
        // dispatch whose layout lacks it does not count it as bound, so indirect_args is storage
        // for bin_dispatch only and indirect arguments for the rest.
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

/// Threads of a one-thread-per-item dispatch of `pass` over `state` ([`gate_threads`] of its
/// [`gate_of`], or a single one). The passes dispatched from the indirect arguments
/// ([`dispatch_of`]) are not sized here.
pub fn thread_count(pass: MpmPass, state: &SimState) -> u32 {
    gate_of(pass).map_or(1, |gate| gate_threads(gate, state))
}

/// The size class of a one-thread-per-item dispatch of `pass`: one thread per fixed-point word
/// (grid_clear), grid node (grid_update), eight per pool block (bin_cell_offsets), a fixed number
/// striding over a list (bin_clear), else one per particle; `None` for the passes of a single
/// thread (bin_dispatch and the clock's).
pub fn gate_of(pass: MpmPass) -> Option<Gate> {
    match pass {
        MpmPass::GridClear => Some(Gate::GridWords),
        MpmPass::GridUpdate => Some(Gate::Nodes),
        MpmPass::BinClear => Some(Gate::BinClear),
        MpmPass::BinCellOffsets => Some(Gate::CellOffsets),
        MpmPass::BinDispatch | MpmPass::ClockAdvance | MpmPass::ClockGate => None,
        _ => Some(Gate::Particles),
    }
}

/// Threads of a dispatch of size class `gate` over `state`.
pub fn gate_threads(gate: Gate, state: &SimState) -> u32 {
    match gate {
        Gate::GridWords => state.grid_fixed_words(),
        Gate::Nodes => state.node_count,
        Gate::BinClear => state.block_count.min(bins::CLEAR_THREADS),
        Gate::CellOffsets => state.grid_storage.pool_blocks() * bins::REACHED_BLOCKS,
        Gate::Particles => state.particle_count,
    }
}

/// How `pass` is dispatched: the passes that run per block take their workgroup counts from the
/// indirect arguments `bin_dispatch` wrote (per occupied block: p2g_tiled, its subgroup variant,
/// g2p2g, and bin_offsets's eight threads; per touched block: grid_update_blocks and p2g_gather),
/// the others one thread per item ([`thread_count`]).
pub fn dispatch_of(pass: MpmPass, state: &SimState) -> Dispatch {
    match pass {
        MpmPass::P2gTiled | MpmPass::P2gTiledSubgroup | MpmPass::G2p2g => Dispatch::Indirect(bins::P2G_ARGS_OFFSET),
        MpmPass::GridUpdateBlocks | MpmPass::P2gGather => Dispatch::Indirect(bins::UPDATE_ARGS_OFFSET),
        MpmPass::BinOffsets => Dispatch::Indirect(bins::OFFSETS_ARGS_OFFSET),
        _ => Dispatch::Threads(thread_count(pass, state)),
    }
}

/// Records one compute pass of `pass`, dispatched as [`dispatch_of`] says.
pub fn record_pass(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    pass: MpmPass,
    timestamps: Option<PassTimestamps>,
) {
    record_passes(encoder, kernels, state, pass.name(), &[(pass, dispatch_of(pass, state))], timestamps);
}

/// One stage of a substep as recorded: the timestamp slot it reports in ([`SolverPath::stage_names`]),
/// its label and its dispatches, page by page.
struct Stage<'a> {
    slot: u32,
    label: &'static str,
    runs: Vec<PageRun<'a>>,
}

impl<'a> Stage<'a> {
    /// Stage `slot` running `dispatches` of each page.
    fn each(
        slot: u32,
        label: &'static str,
        pages: &'a [SimState],
        dispatches: impl Fn(&SimState) -> Vec<(MpmPass, Dispatch)>,
    ) -> Self {
        Self { slot, label, runs: page_runs(pages, dispatches) }
    }

    /// The sort of each page ([`bins::sort_runs`]); each page's reorder clock ticks here, once per
    /// recorded substep.
    fn sort(pages: &'a [SimState]) -> Self {
        Self { slot: 0, label: "sort", runs: bins::sort_runs(pages, |page| page.reorder.tick()) }
    }

    /// `self` with `first` (a dispatch over the shared grid) ahead of its runs.
    fn after(mut self, page: &'a SimState, first: (MpmPass, Dispatch)) -> Self {
        self.runs.insert(0, (page, vec![first]));
        self
    }
}

/// The stages of substep `index` of a run of `count` over `pages`, in the order they run (see
/// [`record_substep`]), `fused` or not, each dispatch gated ([`Dispatch::gated`]) and the clock's
/// passes ahead of the sort (or grid_clear) stage.
fn substep_stages<'a>(kernels: &Kernels, pages: &'a [SimState], index: u32, count: u32, fused: bool) -> Vec<Stage<'a>> {
    let first = &pages[0];
    // One page bins its particles and updates the blocks they touch, leaving grid_fixed zeroed
    // behind it. With several, each page has bins of its own and their lists of touched blocks
    // overlap: each page's blocks are updated, leaving the sums in place (a block two pages touch
    // is updated twice, from the same sums), and the grid is cleared whole at the substep's start.
    let paged = pages.len() > 1;
    let clear = grid_clear::dispatch(first);
    let update = match first.path {
        SolverPath::Naive => {
            Stage { slot: 2, label: "grid_update", runs: vec![(first, vec![grid_update::dispatch(first)])] }
        }
        _ => Stage::each(2, "grid_update_blocks", pages, |page| vec![grid_update_blocks::dispatch(page)]),
    };
    let mut stages = match first.path {
        SolverPath::Naive => vec![
            Stage { slot: 0, label: "grid_clear", runs: vec![(first, vec![clear])] },
            Stage::each(1, "p2g", pages, |page| vec![p2g::dispatch(page)]),
            update,
        ],
        // The sorted path, and the first substep of a fused run.
        _ if !fused || index == 0 => {
            let p2g = sorted_p2g(kernels, first);
            let sort = if paged { Stage::sort(pages).after(first, clear) } else { Stage::sort(pages) };
            vec![sort, Stage::each(1, p2g.name(), pages, |page| sorted_p2g_dispatches(p2g, page)), update]
        }
        // g2p2g runs on the bins of the previous positions; the sort after it bins the new ones,
        // whose stencils grid_update_blocks must visit.
        _ => {
            let g2p2g = Stage::each(1, "g2p2g", pages, |page| vec![g2p2g::dispatch(page)]);
            vec![if paged { g2p2g.after(first, clear) } else { g2p2g }, Stage::sort(pages), update]
        }
    };
    stages.push(if !fused || index + 1 == count {
        Stage::each(3, "g2p", pages, |page| vec![g2p::dispatch(page)])
    } else {
        // The fused path's g2p is in g2p2g: with timestamps, an empty pass fills its slot.
        Stage { slot: 3, label: "g2p (in g2p2g)", runs: Vec::new() }
    });
    for stage in &mut stages {
        for (_, dispatches) in &mut stage.runs {
            for (pass, dispatch) in dispatches.iter_mut() {
                *dispatch = dispatch.gated(*pass);
            }
        }
    }
    // The clock reads the state the substep steps: on the fused path that is after g2p2g (the
    // previous substep's g2p), which the sort stage follows.
    if let Some(sort) = stages.iter_mut().find(|stage| stage.slot == 0) {
        sort.runs.splice(0..0, clock_runs(pages));
    }
    stages
}

/// The clock's passes of a substep ([`super::clock`]): `clock_stats` over every page (gated: it
/// runs while the frame's last substep did), `clock_advance` once, `clock_gate` for every page.
fn clock_runs(pages: &[SimState]) -> Vec<PageRun<'_>> {
    let stats = |page| (page, vec![(MpmPass::ClockStats, Dispatch::Indirect(Gate::Particles.offset()))]);
    let mut runs: Vec<PageRun> = pages.iter().map(stats).collect();
    runs.push((&pages[0], vec![(MpmPass::ClockAdvance, Dispatch::Threads(1))]));
    runs.extend(pages.iter().map(|page| (page, vec![(MpmPass::ClockGate, Dispatch::Threads(1))])));
    runs
}

/// Records substep `index` of a run of `count` substeps recorded back to back (one collider frame,
/// with nothing between them that changes the state) over `pages` (one simulation:
/// [`SimState::new_pages`]) on their [`SolverPath`]: the clock's passes, which choose its dt and
/// whether it runs ([`super::clock`]), then four stages (see [`SolverPath::stage_names`]):
/// grid_clear → p2g → grid_update → g2p, or sort → the [`sorted_p2g`] kernel →
/// grid_update_blocks → g2p, where the sort of the substeps [`super::reorder::ReorderClock`] picks
/// also moves the particles into block order. Every dispatch after the clock's is indirect and
/// empty once the frame has ended. Where `fused` (the fused path, on a frame of a planned number
/// of substeps: its g2p2g needs the next substep's dt before the state it steps exists) the run's
/// first substep is sort → the sorted P2G kernel → grid_update_blocks, each later one g2p2g (the
/// previous substep's g2p and this one's P2G) → sort → grid_update_blocks, and the last one ends
/// with g2p, so the particles are complete after the run as on the other paths; the clock's
/// passes follow g2p2g, so that they measure the state the substep steps.
///
/// Each particle pass runs once per page, and all add into and read the one grid. With more than
/// one page the binned paths clear the grid at the start of the substep (before the sort, or
/// before g2p2g), and grid_update_blocks runs over each page's touched blocks leaving the sums in
/// place (`keep_grid_sums`), since the pages' blocks overlap.
///
/// With `timestamps`, each stage is a compute pass of its own, and stage `k` writes queries
/// `first + 2k` and `first + 2k + 1`; a stage the fused path leaves out of a substep writes them
/// around an empty pass. Without, the whole substep is one compute pass: recording a pass costs
/// the host more than its dispatches (docs/performance.md, "Recording while the GPU runs").
pub fn record_substep(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    pages: &[SimState],
    index: u32,
    count: u32,
    fused: bool,
    timestamps: Option<PassTimestamps>,
) {
    let stages = substep_stages(kernels, pages, index, count, fused);
    if let Some(t) = timestamps {
        for stage in &stages {
            let at = PassTimestamps { query_set: t.query_set, first: t.first + 2 * stage.slot };
            record_runs(encoder, kernels, stage.label, &stage.runs, Some(at));
        }
    } else {
        let runs: Vec<_> = stages.into_iter().flat_map(|stage| stage.runs).collect();
        record_runs(encoder, kernels, "substep", &runs, None);
    }
}

/// The P2G kernel the sorted path runs: the state's choice ([`SimState::p2g`]) where the kernels
/// have it (`p2g_tiled_subgroup` needs subgroups), else `p2g_tiled`.
pub fn sorted_p2g(kernels: &Kernels, state: &SimState) -> MpmPass {
    if kernels.has(state.p2g()) { state.p2g() } else { MpmPass::P2gTiled }
}

/// Records the sorted path's P2G stage with the kernel [`sorted_p2g`] names, as one compute pass.
pub fn record_sorted_p2g(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &SimState,
    timestamps: Option<PassTimestamps>,
) {
    let pass = sorted_p2g(kernels, state);
    record_passes(encoder, kernels, state, pass.name(), &sorted_p2g_dispatches(pass, state), timestamps);
}

/// The dispatches of the sorted path's P2G stage with kernel `pass`.
fn sorted_p2g_dispatches(pass: MpmPass, state: &SimState) -> Vec<(MpmPass, Dispatch)> {
    match pass {
        MpmPass::P2gGather => p2g_gather::dispatches(state).into(),
        pass => vec![p2g_tiled::dispatch(pass, state)],
    }
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
