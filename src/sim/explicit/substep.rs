//! The order of the explicit integrator's passes in one substep, on each path (naive, sorted,
//! fused), page by page. How each pass is dispatched is its row of the pass table
//! ([`crate::sim::record::dispatch_of`]).

use crate::sim::page::ParticlePage;
use crate::sim::passes::MpmPass;
use crate::sim::pipelines::Kernels;
use crate::sim::record::{
    Dispatch, Items, PageRun, PassTimestamps, dispatch_of, items_of, page_runs, record_passes, record_runs,
};
use crate::sim::sort::bins::{self, SolverPath};

/// Substeps recorded into one command buffer before it is submitted. The GPU starts on a
/// submission only once it is recorded, and recording a substep costs the host a good part of what
/// the GPU takes to run one; in submissions of a few substeps the host records the next while the
/// GPU runs the last (docs/performance.md, "Recording while the GPU runs").
pub const SUBSTEPS_PER_SUBMIT: u32 = 8;

/// Timestamps for the substeps of a run's first submission ([`crate::sim::Solver::step_timed`]): the
/// app's pass timer. A run's first submission holds at most [`SUBSTEPS_PER_SUBMIT`] substeps.
pub trait SubstepTimer {
    /// Where substep `index` of the first submission writes its timestamps.
    fn timestamps(&self, index: u32) -> PassTimestamps<'_>;
    /// Records, at the end of the first submission, the copy of its `substeps` substeps'
    /// timestamps to where they are read.
    fn resolve(&self, encoder: &mut wgpu::CommandEncoder, substeps: u32);
}

/// `pass` with its dispatch over `page`.
fn at(pass: MpmPass, page: &ParticlePage) -> (MpmPass, Dispatch) {
    (pass, dispatch_of(pass, page))
}

/// This dispatch of `pass` within a substep: a fixed-size one becomes indirect, from the gated
/// entry of its size class ([`Items`]), which `clock_gate` empties once the frame has ended. The
/// ones already indirect (sized by `bin_dispatch`) are emptied by `clock_gate` too. `bin_dispatch`
/// stays as it is: it writes the indirect arguments, so it cannot read its own from them; it checks
/// the clock itself.
fn gated(pass: MpmPass, dispatch: Dispatch) -> Dispatch {
    match (dispatch, items_of(pass)) {
        (Dispatch::Threads(_), Some(items)) => Dispatch::Indirect(items.offset()),
        (Dispatch::Round { round, .. }, Some(items)) => Dispatch::IndirectRound { offset: items.offset(), round },
        (dispatch, _) => dispatch,
    }
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
        pages: &'a [ParticlePage],
        dispatches: impl Fn(&ParticlePage) -> Vec<(MpmPass, Dispatch)>,
    ) -> Self {
        Self { slot, label, runs: page_runs(pages, dispatches) }
    }

    /// The sort of each page ([`bins::sort_runs`]); each page's reorder clock ticks here, once per
    /// recorded substep.
    fn sort(pages: &'a [ParticlePage]) -> Self {
        Self { slot: 0, label: "sort", runs: bins::sort_runs(pages, |page| page.reorder.tick()) }
    }

    /// `self` with `first` (a dispatch over the shared grid) ahead of its runs.
    fn after(mut self, page: &'a ParticlePage, first: (MpmPass, Dispatch)) -> Self {
        self.runs.insert(0, (page, vec![first]));
        self
    }
}

/// The stages of substep `index` of a run of `count` over `pages`, in the order they run (see
/// [`record_substep`]), `fused` or not, each dispatch gated ([`gated`]) and the clock's
/// passes ahead of the sort (or grid_clear) stage.
fn substep_stages<'a>(
    kernels: &Kernels,
    pages: &'a [ParticlePage],
    index: u32,
    count: u32,
    fused: bool,
) -> Vec<Stage<'a>> {
    let first = &pages[0];
    // One page bins its particles and updates the blocks they touch, leaving grid_fixed zeroed
    // behind it. With several, each page has bins of its own and their lists of touched blocks
    // overlap: each page's blocks are updated, leaving the sums in place (a block two pages touch
    // is updated twice, from the same sums), and the grid is cleared whole at the substep's start.
    let paged = pages.len() > 1;
    let clear = at(MpmPass::GridClear, first);
    let update = match first.path {
        SolverPath::Naive => {
            Stage { slot: 2, label: "grid_update", runs: vec![(first, vec![at(MpmPass::GridUpdate, first)])] }
        }
        _ => Stage::each(2, "grid_update_blocks", pages, |page| vec![at(MpmPass::GridUpdateBlocks, page)]),
    };
    let mut stages = match first.path {
        SolverPath::Naive => vec![
            Stage { slot: 0, label: "grid_clear", runs: vec![(first, vec![clear])] },
            Stage::each(1, "p2g", pages, |page| vec![at(MpmPass::P2g, page)]),
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
            let g2p2g = Stage::each(1, "g2p2g", pages, |page| vec![at(MpmPass::G2p2g, page)]);
            vec![if paged { g2p2g.after(first, clear) } else { g2p2g }, Stage::sort(pages), update]
        }
    };
    stages.push(if !fused || index + 1 == count {
        Stage::each(3, "g2p", pages, |page| vec![at(MpmPass::G2p, page)])
    } else {
        // The fused path's g2p is in g2p2g: with timestamps, an empty pass fills its slot.
        Stage { slot: 3, label: "g2p (in g2p2g)", runs: Vec::new() }
    });
    for stage in &mut stages {
        for (_, dispatches) in &mut stage.runs {
            for (pass, dispatch) in dispatches.iter_mut() {
                *dispatch = gated(*pass, *dispatch);
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
fn clock_runs(pages: &[ParticlePage]) -> Vec<PageRun<'_>> {
    let stats = |page| (page, vec![(MpmPass::ClockStats, Dispatch::Indirect(Items::Particles.offset()))]);
    let mut runs: Vec<PageRun> = pages.iter().map(stats).collect();
    runs.push((&pages[0], vec![(MpmPass::ClockAdvance, Dispatch::Threads(1))]));
    runs.extend(pages.iter().map(|page| (page, vec![(MpmPass::ClockGate, Dispatch::Threads(1))])));
    runs
}

/// Records substep `index` of a run of `count` substeps recorded back to back (one collider frame,
/// with nothing between them that changes the state) over `pages` (one simulation:
/// [`ParticlePage::new_pages`]) on their [`SolverPath`]: the clock's passes, which choose its dt and
/// whether it runs ([`super::clock`]), then four stages (see [`SolverPath::stage_names`]):
/// grid_clear → p2g → grid_update → g2p, or sort → the [`sorted_p2g`] kernel →
/// grid_update_blocks → g2p, where the sort of the substeps [`crate::sim::sort::reorder::ReorderClock`] picks
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
    pages: &[ParticlePage],
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

/// The P2G kernel the sorted path runs: the state's choice ([`ParticlePage::p2g`]) where the kernels
/// have it (`p2g_tiled_subgroup` needs subgroups), else `p2g_tiled`.
pub fn sorted_p2g(kernels: &Kernels, state: &ParticlePage) -> MpmPass {
    if kernels.has(state.p2g()) { state.p2g() } else { MpmPass::P2gTiled }
}

/// Records the sorted path's P2G stage with the kernel [`sorted_p2g`] names, as one compute pass.
pub fn record_sorted_p2g(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    state: &ParticlePage,
    timestamps: Option<PassTimestamps>,
) {
    let pass = sorted_p2g(kernels, state);
    record_passes(encoder, kernels, state, pass.name(), &sorted_p2g_dispatches(pass, state), timestamps);
}

/// The dispatches of the sorted path's P2G stage with kernel `pass`.
fn sorted_p2g_dispatches(pass: MpmPass, state: &ParticlePage) -> Vec<(MpmPass, Dispatch)> {
    match pass {
        // p2g_sources over every particle, then p2g_gather over the touched blocks.
        MpmPass::P2gGather => vec![at(MpmPass::P2gSources, state), at(MpmPass::P2gGather, state)],
        pass => vec![at(pass, state)],
    }
}
