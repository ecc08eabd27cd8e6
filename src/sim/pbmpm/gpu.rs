//! PB-MPM on the GPU: the order of a step's passes, page by page. The passes are the
//! [`Owner::Pbmpm`](crate::sim::passes::Owner) rows of [`crate::sim::passes::PASSES`] (WGSL in
//! `shaders/mpm/pbmpm/`), plus the shared `grid_clear` and `g2p`; the CPU twin they follow is
//! [`super::cpu`].
//!
//! The GPU keeps a step's displacement `d` and affine displacement `D` in velocity units, `d/dt`
//! in the velocity stream and `D/dt` in the affine stream, so that the explicit integrator's
//! fixed-point scatter, grid conditions and gather apply unchanged; the constraint impulse `Λ`
//! lives in the particles' scratch for the step. One step:
//!
//! 1. `pb_clock` (one thread): the step's dt, collider blend and gravity kick;
//! 2. on the binned paths, the sort of each page ([`bins::sort_runs`]; it also moves the particles
//!    into block order when the page's reorder clock says so): particles keep their positions
//!    through a step's iterations, so one sort per step bins them for all of its iterations;
//! 3. `pb_begin` (per particle): `v += g·kick` (`pb_clock` sets `kick = (dt_prev + dt)/2`),
//!    `Λ = 0` (after the sort, whose reorder uses the scratch that holds `Λ`);
//! 4. `grid_clear` on the naive path (the binned paths' grid passes leave the grid zeroed, except
//!    with several pages, which clear it after every iteration);
//! 5. `iterations` times: `pb_iterate` (per particle: gather from the second iteration on, as the
//!    clock's `pb_gathering` says, project, scatter with global atomics) or, on the binned paths,
//!    `pb_iterate_tiled` (the same per particle, one workgroup per occupied block, scattering
//!    through a workgroup-memory tile); then `pb_grid` (per node: grid conditions, sums zeroed)
//!    or, on the binned paths, `pb_grid_blocks` (the same over the blocks the sort listed as
//!    touched; it also zeroes the sort's cell counters);
//! 6. `g2p` (per particle, shared with the explicit integrator): the last gather, `F_E ← (I + D)F_E`,
//!    plasticity, cracking, `x += d`.
//!
//! It runs on the dense grid. The fused path runs as the sorted one: PB-MPM has no g2p of one
//! step to fuse with the next step's scatter while the step's iterations lie between them.

use super::{PbSolver, PbmpmSettings};
use crate::sim::page::ParticlePage;
use crate::sim::page::sizes::{NEWTON_LEVELS, newton_level_nodes};
use crate::sim::params::SolverParams;
use crate::sim::passes::MpmPass;
use crate::sim::pipelines::Kernels;
use crate::sim::record::{Dispatch, PageRun, dispatch_of, item_threads, page_runs, record_runs};
use crate::sim::sort::bins::{self, SolverPath};

/// Steps recorded into one command buffer before it is submitted. A PB-MPM step has about four
/// times the dispatches of an explicit substep and a frame only a few steps, so the explicit
/// integrator's batch of 8 would leave the GPU idle while the host records most of a frame; in
/// batches of 2 the GPU starts on the first steps while the host records the rest.
pub const STEPS_PER_SUBMIT: u32 = 2;

/// The dispatches of one step over `pages` as `settings` say, as runs of one compute pass.
pub fn step_runs<'a>(pages: &'a [ParticlePage], settings: &PbmpmSettings, params: &SolverParams) -> Vec<PageRun<'a>> {
    // The Newton–PCG passes index the dense grid and need its vectors; on a sparse grid, or a dense
    // one too large for the vectors to be bound, the step runs the constraint iterations
    // (docs/pbmpm.md says so).
    match settings.solver {
        PbSolver::Newton if pages[0].has_newton_buffer() => {
            newton_step_runs(pages, settings.iterations, settings.newton_steps_for(params))
        }
        _ => constraint_step_runs(pages, settings.iterations),
    }
}

/// A time step of `newton` Newton–PCG steps ([`super::cpu::newton::step`] with at most
/// `iterations` CG iterations each; the passes of those past the tolerance return at once,
/// `newton_stopped`): the clock, the sort on the binned paths (the shared g2p gathers in its
/// order), `pb_begin`, the prediction, then per Newton step the force and residual at its point
/// (the prediction, then `pb_newton_relinearize`'s), the preconditioner, then per iteration the
/// operator, α and the update, and (but for the last) the preconditioner, β and the next
/// direction, the time step's last instead the residual it leaves; the nodes' velocities and the
/// shared g2p. Particle passes run per page, in stored order with global atomics but for the
/// operator's on the binned paths (a tile per occupied block); node passes once, over the dense
/// grid (each of the preconditioner's over its level).
fn newton_step_runs(pages: &[ParticlePage], iterations: u32, newton: u32) -> Vec<PageRun<'_>> {
    let first = &pages[0];
    let at = |pass: MpmPass, page: &ParticlePage| (pass, dispatch_of(pass, page));
    // The preconditioner's passes run a thread per node of their level (the round).
    let round = |pass: MpmPass, round: u32| {
        let threads = match pass {
            MpmPass::PbNewtonReduce => 1,
            MpmPass::PbNewtonRestrict | MpmPass::PbNewtonProlong => newton_level_nodes(first.node_dims, round) as u32,
            _ => item_threads(crate::sim::indirect::Items::Nodes, first),
        };
        (pass, Dispatch::Round { threads, round })
    };
    let mut runs: Vec<PageRun> = vec![(first, vec![at(MpmPass::PbClock, first)])];
    if first.path != SolverPath::Naive {
        runs.extend(bins::sort_runs(pages, |page| page.reorder.tick()));
    }
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbBegin, page)]));
    runs.push((first, vec![at(MpmPass::GridClear, first)]));
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbNewtonPredict, page)]));
    runs.push((first, vec![at(MpmPass::PbNewtonBegin, first)]));
    if first.path != SolverPath::Naive {
        runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbNewtonCounters, page)]));
    }
    let precondition = |beta_round: u32| {
        let mut d: Vec<(MpmPass, Dispatch)> = (1..NEWTON_LEVELS).map(|l| round(MpmPass::PbNewtonRestrict, l)).collect();
        d.extend((0..NEWTON_LEVELS).rev().map(|l| round(MpmPass::PbNewtonProlong, l)));
        d.push(round(MpmPass::PbNewtonReduce, beta_round));
        d.push(at(MpmPass::PbNewtonDirection, first));
        d
    };
    // On the binned paths the operator's particle pass scatters through a tile per occupied block,
    // as the constraint iterations' pb_iterate_tiled does.
    let apply = if first.path == SolverPath::Naive { MpmPass::PbNewtonApply } else { MpmPass::PbNewtonApplyTiled };
    for step in 0..newton.max(1) {
        if step > 0 {
            runs.push((first, vec![at(MpmPass::PbNewtonRelinearize, first)]));
        }
        runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbNewtonForce, page)]));
        // Round 3 keeps rᵀM⁻¹r at the prediction, against which round 4 measures the last
        // iteration's residual; a later Newton step's round 5 starts its CG without it.
        let mut start = vec![at(MpmPass::PbNewtonResidual, first)];
        if step == 0 {
            start.push(round(MpmPass::PbNewtonReduce, 3));
        }
        start.extend(precondition(if step == 0 { 0 } else { 5 }));
        runs.push((first, start));
        for k in 0..iterations {
            runs.extend(page_runs(pages, |page| vec![at(apply, page)]));
            let mut d = vec![at(MpmPass::PbNewtonApplyGrid, first), round(MpmPass::PbNewtonReduce, 1)];
            d.push(at(MpmPass::PbNewtonUpdate, first));
            // The preconditioner and the next direction serve the next iteration only.
            if k + 1 < iterations {
                d.extend(precondition(2));
            } else if step + 1 == newton.max(1) {
                d.push(round(MpmPass::PbNewtonReduce, 4));
            }
            runs.push((first, d));
        }
    }
    runs.push((first, vec![at(MpmPass::PbNewtonFinish, first)]));
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbNewtonG2p, page)]));
    runs
}

/// A step of `iterations` constraint iterations over `pages`.
fn constraint_step_runs(pages: &[ParticlePage], iterations: u32) -> Vec<PageRun<'_>> {
    let first = &pages[0];
    let binned = first.path != SolverPath::Naive;
    let at = |pass: MpmPass, page: &ParticlePage| (pass, dispatch_of(pass, page));
    let mut runs: Vec<PageRun> = vec![(first, vec![at(MpmPass::PbClock, first)])];
    if binned {
        runs.extend(bins::sort_runs(pages, |page| page.reorder.tick()));
    }
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbBegin, page)]));
    // The grid is all zeros after each iteration's grid pass, except on the naive path's first
    // iteration (the explicit integrator may have left sums) and with several pages, whose grid
    // passes leave the sums in place (keep_grid_sums).
    let clear = (first, vec![at(MpmPass::GridClear, first)]);
    let paged = pages.len() > 1;
    if !binned || paged {
        runs.push(clear.clone());
    }
    for _ in 0..iterations {
        if binned {
            runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbIterateTiled, page)]));
            runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbGridBlocks, page)]));
            if paged {
                runs.push(clear.clone());
            }
        } else {
            runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbIterate, page)]));
            runs.push((first, vec![at(MpmPass::PbGrid, first)]));
        }
    }
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::G2p, page)]));
    runs
}

/// Records `steps` steps over `pages` as `settings` say among `params`'s materials, as one compute
/// pass.
pub fn record_steps(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    pages: &[ParticlePage],
    steps: u32,
    settings: &PbmpmSettings,
    params: &SolverParams,
) {
    let runs: Vec<PageRun> = (0..steps).flat_map(|_| step_runs(pages, settings, params)).collect();
    record_runs(encoder, kernels, "pbmpm", &runs, None);
}
