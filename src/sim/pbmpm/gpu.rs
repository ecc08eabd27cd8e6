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
//! 1. `pb_clock` (one thread): the step's dt and collider blend;
//! 2. `pb_begin` (per particle): `v += g·dt`, `Λ = 0`;
//! 3. `grid_clear`;
//! 4. `iterations` times: `pb_iterate` (per particle, the iteration's index as its round: gather
//!    from the second on, project, scatter), then `pb_grid` (per node: grid conditions, sums
//!    zeroed);
//! 5. `g2p` (per particle, shared with the explicit integrator): the last gather, `F_E ← (I + D)F_E`,
//!    plasticity, cracking, `x += d`.
//!
//! It runs on the dense grid with particles in their stored order (the naive path's dispatches):
//! the sort and the fused per-block pass are not used.

use crate::sim::page::ParticlePage;
use crate::sim::passes::MpmPass;
use crate::sim::pipelines::Kernels;
use crate::sim::record::{Dispatch, Items, PageRun, dispatch_of, item_threads, page_runs, record_runs};

/// The dispatches of one step of `iterations` iterations over `pages`, as runs of one compute pass.
pub fn step_runs(pages: &[ParticlePage], iterations: u32) -> Vec<PageRun<'_>> {
    let first = &pages[0];
    let at = |pass: MpmPass, page: &ParticlePage| (pass, dispatch_of(pass, page));
    let mut runs: Vec<PageRun> = vec![(first, vec![at(MpmPass::PbClock, first)])];
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::PbBegin, page)]));
    runs.push((first, vec![at(MpmPass::GridClear, first)]));
    for round in 0..iterations {
        runs.extend(page_runs(pages, |page| {
            let threads = item_threads(Items::Particles, page);
            vec![(MpmPass::PbIterate, Dispatch::Round { threads, round })]
        }));
        runs.push((first, vec![at(MpmPass::PbGrid, first)]));
    }
    runs.extend(page_runs(pages, |page| vec![at(MpmPass::G2p, page)]));
    runs
}

/// Records `steps` steps of `iterations` iterations over `pages` as one compute pass.
pub fn record_steps(
    encoder: &mut wgpu::CommandEncoder,
    kernels: &Kernels,
    pages: &[ParticlePage],
    steps: u32,
    iterations: u32,
) {
    let runs: Vec<PageRun> = (0..steps).flat_map(|_| step_runs(pages, iterations)).collect();
    record_runs(encoder, kernels, "pbmpm", &runs, None);
}
