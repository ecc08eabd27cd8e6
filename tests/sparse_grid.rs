//! The sparse grid (`sim::grid_pool`), on lavapipe: the sorted path on a pool of blocks computes
//! the same particles, bit for bit, as on the dense grid, with every sorted P2G kernel, over
//! pages, with a collider, and while its pool grows. Each particle's fixed-point contributions are
//! the same integers wherever its nodes are stored, and integer sums do not depend on their order,
//! so any difference is a node stored in the wrong place, a block without a pool block, or a pool
//! block shared by two grid blocks.

use powder::sim::solver::SolverOptions;

mod common;

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::grid_pool::{GridMode, GridStorage, grid_blocks, pool_blocks_for, touched_block_count};
use powder::sim::page::StateError;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;
use powder::sim::{Solver, SolverError};

const H: f64 = 1.0 / 32.0;

fn params() -> SolverParams {
    common::params(32, H, 2e-4)
}

/// [`common::two_blocks`]: two blocks of snow far apart. Their blocks, not the space between them,
/// are what a sparse grid stores.
fn scene() -> Vec<GpuParticle> {
    common::two_blocks(9)
}

/// A solver on the sorted path with its grid stored as `mode`, pages of `page` particles,
/// reordering every third substep.
fn solver(gpu: &Gpu, params: SolverParams, particles: &[GpuParticle], page: Option<u32>, mode: GridMode) -> Solver {
    let mut solver = Solver::with_options(
        gpu,
        params,
        particles,
        SolverOptions { page_capacity: page, grid_mode: mode, ..Default::default() },
    )
    .expect("solver");
    solver.set_path(gpu, SolverPath::Sorted).expect("the sorted path");
    solver.set_reorder_interval(gpu, 3);
    solver
}

/// Asserts both solvers' particles are the same bit for bit, naming how many differ and `what`.
fn assert_same_particles(gpu: &Gpu, dense: &Solver, sparse: &Solver, what: &str) -> Vec<GpuParticle> {
    let (a, b) = (dense.read_particles(gpu).expect("particles"), sparse.read_particles(gpu).expect("particles"));
    assert_eq!(a.len(), b.len(), "{what}: particle counts");
    let differing = a.iter().zip(&b).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{what}: {differing} of {} particles differ", a.len());
    a
}

/// Runs `frames` frames of `substeps` substeps on both solvers, each frame after `stable_dt` (where
/// a sparse pool grows), and returns the largest pool-block demand a frame of the sparse one
/// reported and the largest pool it had then.
fn run_frames(gpu: &Gpu, dense: &mut Solver, sparse: &mut Solver, frames: u32, substeps: u32) -> (u32, u32) {
    let (mut peak, mut pool) = (0, 0);
    for _ in 0..frames {
        dense.stable_dt(gpu, 0.4).expect("stats");
        let before = sparse.grid_storage().pool_blocks();
        let (_, stats) = sparse.stable_dt(gpu, 0.4).expect("stats");
        (peak, pool) = (peak.max(stats.grid_blocks_peak), pool.max(before));
        assert!(
            stats.grid_blocks_peak <= before,
            "a frame needed {} pool blocks of {before}: nodes were skipped",
            stats.grid_blocks_peak
        );
        dense.step(gpu, substeps);
        sparse.step(gpu, substeps);
    }
    (peak, pool)
}

#[test]
fn a_sparse_grid_steps_the_particles_of_a_dense_one_with_every_sorted_p2g_kernel() {
    let gpu = common::gpu();
    let particles = scene();
    let touched = touched_block_count(&params().grid, particles.iter().map(|p| Vec3::from(p.position)));
    for kernel in MpmPass::SORTED_P2G {
        let mut dense = solver(&gpu, params(), &particles, None, GridMode::Dense);
        let mut sparse = solver(&gpu, params(), &particles, None, GridMode::Sparse);
        let used = dense.set_p2g(&gpu, kernel);
        assert_eq!(sparse.set_p2g(&gpu, kernel), used);
        // The pool: twice the blocks the particles touch, a fraction of the grid's 1,000.
        assert_eq!(dense.grid_storage(), GridStorage::Dense);
        let pool = pool_blocks_for(&params().grid, touched);
        assert_eq!(sparse.grid_storage(), GridStorage::Sparse { pool_blocks: pool });
        assert!(pool < grid_blocks(&params().grid) / 2, "{touched} touched blocks, a pool of {pool}");
        assert!(sparse.gpu_bytes() < dense.gpu_bytes());

        // One P2G: the grid read back through the block map is the dense grid's, node for node.
        for solver in [&dense, &sparse] {
            solver.run_pass(&gpu, MpmPass::GridClear);
            solver.run_pass(&gpu, MpmPass::P2g);
        }
        let (a, b) = (dense.read_grid_fixed(&gpu).expect("grid"), sparse.read_grid_fixed(&gpu).expect("grid"));
        assert!(a.iter().map(|n| n[0]).sum::<i64>() > 0, "no mass on the grid");
        assert!(a == b, "{}: the fixed-point grids differ", used.name());
        // The grid update zeroes the sums it read, as the sorted path expects at a substep's start.
        for solver in [&dense, &sparse] {
            solver.run_pass(&gpu, MpmPass::GridUpdate);
        }

        // Frames of 1, 7 and 16 substeps; the grid velocities of the last substep agree wherever a
        // particle's stencil reached (the dense grid keeps stale velocities elsewhere).
        let what = format!("{} on a sparse grid", used.name());
        for run in [1, 7, 16] {
            run_frames(&gpu, &mut dense, &mut sparse, 1, run);
            assert_same_particles(&gpu, &dense, &sparse, &format!("{what}, {run} substeps"));
        }
        let (a, b) = (dense.read_grid_velocity(&gpu).expect("grid"), sparse.read_grid_velocity(&gpu).expect("grid"));
        let massive = b.iter().filter(|n| n[3] > 0.0).count();
        assert!(massive > 300, "{massive} nodes with mass");
        assert!(a.iter().zip(&b).all(|(a, b)| b[3] == 0.0 || a == b), "{what}: grid velocities differ");
        // And no node was lost: the sparse grid holds all the particles' mass (f32 sums of about a
        // thousand node masses: a relative 1e-5 covers their rounding).
        let (grid_mass, particle_mass) =
            (b.iter().map(|n| n[3] as f64).sum::<f64>(), particles.iter().map(|p| p.mass as f64).sum::<f64>());
        assert!(
            (grid_mass / particle_mass - 1.0).abs() < 1e-5,
            "{what}: grid mass {grid_mass}, particles {particle_mass}"
        );
    }
}

#[test]
fn a_sparse_grid_over_three_pages_steps_like_a_dense_one_page() {
    // The first page's sort empties the block map; the other pages' sorts add pool blocks for
    // the blocks only they touch. A page that emptied the map again, or gave a block a second
    // pool block, would lose a page's sums.
    let gpu = common::gpu();
    let particles = scene();
    let mut dense = solver(&gpu, params(), &particles, None, GridMode::Dense);
    let mut sparse = solver(&gpu, params(), &particles, Some(1000), GridMode::Sparse);
    assert_eq!(sparse.pages().len(), 3);
    // A block two pages touch takes one pool block: the first substep's sorts ask for as many as
    // the particles touch in all.
    let touched = touched_block_count(&params().grid, particles.iter().map(|p| Vec3::from(p.position)));
    dense.step(&gpu, 1);
    sparse.step(&gpu, 1);
    assert_eq!(sparse.stats(&gpu).expect("stats").grid_blocks_peak, touched);
    run_frames(&gpu, &mut dense, &mut sparse, 3, 8);
    assert_same_particles(&gpu, &dense, &sparse, "three pages on a sparse grid");
}

#[test]
fn a_collider_on_a_sparse_grid_acts_as_on_a_dense_one() {
    // The collider fields stay dense: the grid update reads them by the node's place in the
    // domain, not in the pool.
    let gpu = common::gpu();
    let particles = scene();
    let p = params();
    let frames = common::ramp(&p);
    let mut dense = solver(&gpu, p, &particles, None, GridMode::Dense);
    let mut sparse = solver(&gpu, p, &particles, None, GridMode::Sparse);
    for solver in [&mut dense, &mut sparse] {
        solver.set_colliders(&gpu, Some(&frames)).expect("colliders");
    }
    let free = solver(&gpu, p, &particles, None, GridMode::Dense);
    run_frames(&gpu, &mut dense, &mut sparse, 4, 8);
    let after = assert_same_particles(&gpu, &dense, &sparse, "with a collider");
    // The ramp acted: without it the particles end elsewhere.
    free.step(&gpu, 32);
    let moved = free.read_particles(&gpu).expect("particles").iter().zip(&after).filter(|(a, b)| a != b).count();
    assert!(moved > 100, "only {moved} particles felt the ramp");
}

/// A ball of 8 particles per cell, radius 3 cells, at the domain's centre, flying apart at
/// `speed` m/s: the blocks it touches grow from a few dozen to hundreds.
fn burst(speed: f32) -> Vec<GpuParticle> {
    let c = Vec3::splat(0.5);
    let r = 3.0 * H as f32;
    let mut ps = common::block(c - r, c + r, H as f32, 400.0, |x| (x - c).normalize_or_zero() * speed);
    ps.retain(|p| Vec3::from(p.position).distance(c) < r);
    ps
}

#[test]
fn the_pool_grows_between_frames_as_the_snow_spreads() {
    // Frames of 10 substeps at 8 m/s: 0.5 cells a frame, so the demand never outruns the pool's
    // margin (room to move a block in any direction) within one frame, and the pool grows between frames once a
    // frame needed three quarters of it. Nothing is skipped, so the particles match the dense
    // grid's bit for bit.
    let gpu = common::gpu();
    let particles = burst(8.0);
    let mut dense = solver(&gpu, params(), &particles, None, GridMode::Dense);
    let mut sparse = solver(&gpu, params(), &particles, None, GridMode::Sparse);
    let first = sparse.grid_storage().pool_blocks();
    let touched = touched_block_count(&params().grid, particles.iter().map(|p| Vec3::from(p.position)));
    assert_eq!(first, pool_blocks_for(&params().grid, touched));
    let (peak, _) = run_frames(&gpu, &mut dense, &mut sparse, 30, 10);
    let last = sparse.grid_storage().pool_blocks();
    assert!(last > first, "the pool stayed at {first} blocks (demand up to {peak})");
    assert!(peak > first, "the snow's demand {peak} never passed the first pool {first}");
    assert_same_particles(&gpu, &dense, &sparse, "while the pool grew");
}

#[test]
fn a_frame_that_outruns_the_pool_is_reported_and_the_pool_grows_past_it() {
    // One frame of 60 substeps at 20 m/s: the ball spreads 7.7 cells, past twice its first blocks,
    // before the pool can grow. The substeps that ran out skip the nodes past the pool's end; the
    // report says how many blocks they needed, and the pool grows to twice that.
    let gpu = common::gpu();
    let particles = burst(20.0);
    let mut sparse = solver(&gpu, params(), &particles, None, GridMode::Sparse);
    // Without reorders particle_order is the last sort's own (a reorder resets it to identity).
    sparse.set_reorder_interval(&gpu, 0);
    let first = sparse.grid_storage().pool_blocks();
    sparse.step(&gpu, 60);
    // The last sort itself ran out, and placed every particle once, those of blocks without a pool
    // block too (by their block's cursor, without cell counters).
    let touched = sparse.read_bin_headers(&gpu).expect("bin headers")[0].touched_count;
    assert!(touched > first, "the last sort touched {touched} blocks, within the pool of {first}");
    let mut order = sparse.read_bins(&gpu).expect("bins").order;
    order.sort_unstable();
    assert!(order.iter().copied().eq(0..particles.len() as u32), "the sort lost or doubled particles");
    let (_, stats) = sparse.stable_dt(&gpu, 0.4).expect("stats");
    assert!(stats.grid_blocks_peak > first, "demand {} within the pool {first}", stats.grid_blocks_peak);
    let grown = sparse.grid_storage().pool_blocks();
    assert_eq!(grown, pool_blocks_for(&params().grid, stats.grid_blocks_peak));
    // The report restarts; the next frame fits the grown pool and the state stays finite.
    sparse.step(&gpu, 10);
    let (_, stats) = sparse.stable_dt(&gpu, 0.4).expect("stats");
    assert!(stats.grid_blocks_peak <= grown, "{} of {grown}", stats.grid_blocks_peak);
    let after = sparse.read_particles(&gpu).expect("particles");
    assert!(after.iter().all(common::particle_is_finite));
}

#[test]
fn a_grid_too_large_for_a_dense_binding_runs_sparse_on_the_sorted_path_only() {
    // 200³ cells: 205³ nodes of 32 bytes are 276 MB, past lavapipe's 128 MiB binding, so the
    // dense grid is refused; the solver's automatic choice stores the snow's blocks instead, and
    // the snow falls as it would on any grid (free fall: the block's mean velocity after n
    // substeps is −g·n·dt, to f32 rounding).
    let gpu = common::gpu();
    let h = 1.0 / 200.0;
    let mut params = common::params(200, h, 1e-4);
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(400.0, h, params.max_speed);
    let lo = Vec3::splat(0.5);
    let particles = common::block(lo, lo + 8.0 * h as f32, h as f32, 400.0, |_| Vec3::ZERO);
    let dense = Solver::with_options(
        &gpu,
        params,
        &particles,
        SolverOptions { page_capacity: None, grid_mode: GridMode::Dense, ..Default::default() },
    );
    assert!(matches!(dense, Err(SolverError::State(StateError::GridTooLarge { .. }))), "the dense grid fit");
    let mut solver = Solver::with_options(
        &gpu,
        params,
        &particles,
        SolverOptions { page_capacity: None, grid_mode: GridMode::Auto, ..Default::default() },
    )
    .expect("a sparse grid");
    assert!(solver.grid_storage().is_sparse());
    assert_eq!(solver.path(), SolverPath::Sorted);
    solver.step(&gpu, 20);
    let after = solver.read_particles(&gpu).expect("particles");
    let vz = common::mean(&after, |p| p.velocity[2] as f64);
    let expected = -9.81 * 20.0 * 1e-4;
    assert!((vz - expected).abs() < 1e-5, "mean vz {vz}, free fall {expected}");
    // Other paths need a dense grid, which does not fit: refused, and the sorted path keeps running.
    for path in [SolverPath::Naive, SolverPath::Fused] {
        match solver.set_path(&gpu, path) {
            Err(SolverError::State(StateError::NeedsDenseGrid { reason, .. })) => {
                assert!(reason.contains("allows at most"), "{reason}");
            }
            other => panic!("{path:?}: {other:?}"),
        }
        assert_eq!(solver.path(), SolverPath::Sorted);
    }
}

#[test]
fn a_simulation_on_another_path_moves_to_the_sorted_path_when_its_grid_turns_sparse() {
    // The fused path on a 32³ grid (dense), rebuilt onto the 200³ grid that only fits sparse on
    // lavapipe: the sparse grid runs the sorted path, so the solver moves to it.
    let gpu = common::gpu();
    let lo = Vec3::splat(0.5);
    let particles = common::block(lo, lo + 8.0 * H as f32, H as f32, 400.0, |_| Vec3::ZERO);
    let mut solver = Solver::with_options(
        &gpu,
        params(),
        &particles,
        SolverOptions { page_capacity: None, grid_mode: GridMode::Auto, ..Default::default() },
    )
    .expect("solver");
    solver.set_path(&gpu, SolverPath::Fused).expect("the fused path on a dense grid");
    assert_eq!(solver.grid_storage(), GridStorage::Dense);
    let h = 1.0 / 200.0;
    let mut fine = common::params(200, h, 1e-4);
    fine.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(400.0, h, fine.max_speed);
    solver.rebuild_grid(&gpu, fine).expect("the 200³ grid, sparse");
    assert!(solver.grid_storage().is_sparse());
    assert_eq!(solver.path(), SolverPath::Sorted);
    assert_eq!(solver.particle_count(), particles.len() as u32);
}

/// Bytes of every buffer the solver's pages hold (shared ones once), against which
/// `Solver::gpu_bytes` is checked.
fn allocated_bytes(solver: &Solver) -> u64 {
    let first = &solver.pages()[0];
    let shared =
        [&first.grid_fixed, &first.grid_velocity, &first.pb_solve, &first.block_slots, &first.status, &first.pick_ray];
    let shared: u64 = shared.iter().map(|b| b.size()).sum::<u64>()
        + first.colliders.iter().map(|b| b.size()).sum::<u64>()
        + first.collider_surfaces.size()
        + first.clock.size();
    let pages: u64 = solver
        .pages()
        .iter()
        .map(|page| {
            let own = [
                &page.params,
                &page.particles.id,
                &page.reorder_scratch,
                &page.bin_header,
                &page.block_bins,
                &page.block_lists,
                &page.particle_order,
                &page.cell_bins,
                &page.scatter_sources,
                &page.indirect_args,
            ];
            page.particles.buffers().iter().map(|b| b.size()).sum::<u64>() + own.iter().map(|b| b.size()).sum::<u64>()
        })
        .sum();
    shared + pages
}

#[test]
fn the_memory_a_sparse_solver_reports_is_what_it_allocated() {
    // gpu_bytes (the capacity check's count) against the buffers' sizes, within the small buffers it
    // rounds (uniform blocks, counters, the substep clock): on a sparse grid without and with
    // a collider (whose fields it counts only once they are set), over pages, and after the pool
    // grew.
    let gpu = common::gpu();
    let particles = scene();
    let p = params();
    let close = |solver: &Solver, what: &str| {
        let (reported, allocated) = (solver.gpu_bytes(), allocated_bytes(solver));
        assert!(reported.abs_diff(allocated) < 32 * 1024, "{what}: reported {reported}, allocated {allocated}");
    };
    let mut sparse = solver(&gpu, p, &particles, Some(1000), GridMode::Sparse);
    close(&sparse, "sparse, three pages");
    let frames = common::ramp(&p);
    sparse.set_colliders(&gpu, Some(&frames)).expect("colliders");
    close(&sparse, "sparse, with a collider");
    let pool = sparse.grid_storage().pool_blocks();
    assert_eq!(sparse.fit_grid_pool(&gpu, pool), Some(pool_blocks_for(&p.grid, pool)));
    close(&sparse, "sparse, after the pool grew");
    let mut dense = solver(&gpu, p, &particles, None, GridMode::Dense);
    dense.set_colliders(&gpu, Some(&frames)).expect("colliders");
    close(&dense, "dense, with a collider");
}
