//! The sorted path (src/sim/sort/bins.rs, its P2G kernels, grid_update_blocks) on lavapipe: the sort
//! places every particle exactly once, in the block the CPU twin (`sim::cpu::bins`) names, for
//! awkward particle counts and placements; the sorted path computes the same grid and the same
//! particles as the naive path, bit for bit, because both add the same integers (with the
//! adapter's default P2G kernel, p2g_gather on lavapipe); and all three P2G kernels agree.
//!
//! The two other files of the sorted path's tests: `sorted_path_equivalence.rs` (paths and
//! kernels computing the same bits) and `sorted_path_reorder.rs` (the reorder); their shared
//! scenes are in `sorted_scenes/`.

mod common;
mod sorted_scenes;

use std::collections::BTreeSet;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::cpu::bins::{block_counts, home_block, home_cell, touched_blocks};
use powder::sim::params::GpuParticle;
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sorted_scenes::{awkward_cases, near_node, params, scattered, sorted_solver};

/// Runs one sort and checks the bins against the CPU twin: counts per block, every index once,
/// each block's range holding exactly its own particles, the occupied and touched lists, and the
/// indirect dispatch sizes.
fn check_sort(particles: &[GpuParticle], case: &str) {
    let gpu = common::gpu();
    let solver = sorted_solver(&gpu, particles);
    solver.run_pass(&gpu, MpmPass::GridClear);
    let bins = solver.read_bins(&gpu).expect("bins");
    let grid = params().grid;
    let positions: Vec<Vec3> = particles.iter().map(|p| Vec3::from(p.position)).collect();
    let counts = block_counts(&grid, &positions);
    let touched = touched_blocks(&grid, &counts);
    let n = particles.len();

    assert_eq!(bins.header.particle_total as usize, n, "{case}: particles placed");
    let mut order = bins.order.clone();
    order.sort_unstable();
    assert!(order.iter().copied().eq(0..n as u32), "{case}: particle_order is not a permutation of 0..{n}");

    for (b, (bin, &count)) in bins.bins.iter().zip(&counts).enumerate() {
        assert_eq!(bin.count, count, "{case}: block {b} count");
        if count > 0 {
            let range = &bins.order[bin.offset as usize..(bin.offset + count) as usize];
            for &i in range {
                assert_eq!(home_block(&grid, positions[i as usize]), b as u32, "{case}: particle {i} in block {b}");
            }
            // Within the block, in cell order (p2g_tiled's subgroup pre-reduction relies on it).
            let cells: Vec<u32> = range.iter().map(|&i| home_cell(&grid, positions[i as usize])).collect();
            assert!(cells.is_sorted(), "{case}: block {b}'s particles are not in cell order: {cells:?}");
        }
    }
    let occupied: BTreeSet<u32> = bins.occupied.iter().copied().collect();
    let want_occupied: BTreeSet<u32> = (0..counts.len() as u32).filter(|&b| counts[b as usize] > 0).collect();
    assert_eq!(bins.occupied.len(), occupied.len(), "{case}: an occupied block is listed twice");
    assert_eq!(occupied, want_occupied, "{case}: occupied blocks");
    let listed: BTreeSet<u32> = bins.touched.iter().copied().collect();
    let want_touched: BTreeSet<u32> = (0..touched.len() as u32).filter(|&b| touched[b as usize]).collect();
    assert_eq!(bins.touched.len(), listed.len(), "{case}: a touched block is listed twice");
    assert_eq!(listed, want_touched, "{case}: touched blocks");
    // Below 65,536 blocks the dispatches are one row of exactly one workgroup per block.
    assert_eq!(bins.dispatch_args[0][..3], [occupied.len() as u32, 1, 1], "{case}: p2g_tiled workgroups");
    assert_eq!(bins.dispatch_args[1][..3], [listed.len() as u32, 1, 1], "{case}: grid_update_blocks workgroups");
    // bin_offsets: eight threads per occupied block, 256 to a workgroup.
    let offsets_groups = (8 * occupied.len() as u32).div_ceil(256);
    assert_eq!(bins.dispatch_args[2][..3], [offsets_groups, 1, 1], "{case}: bin_offsets workgroups");
    eprintln!("{case}: {n} particles in {} blocks, {} touched", occupied.len(), listed.len());
}

#[test]
fn the_sort_places_every_particle_once_for_awkward_counts() {
    // One particle, one short of and one past a workgroup of 256, and a count that is no multiple
    // of anything: most blocks stay empty.
    for (count, seed) in [(1, 1), (255, 2), (257, 3), (4_099, 4)] {
        check_sort(&scattered(count, seed), &format!("{count} scattered"));
    }
}

#[test]
fn the_sort_places_every_particle_once_when_all_share_one_cell() {
    // 3,001 particles in one cell: one block holds them all, so p2g_tiled's workgroup loops over
    // them 12 times, and bin_count's and bin_scatter's atomics all hit one counter.
    let mut rng = StdRng::seed_from_u64(9);
    let node = Vec3::new(20.0, 33.0, 41.0);
    let particles: Vec<_> = (0..3_001).map(|_| near_node(node, &mut rng)).collect();
    check_sort(&particles, "one cell");
}

#[test]
fn the_sort_places_particles_outside_the_domain_and_non_finite_ones() {
    // Clamped into the domain for binning as p2g clamps them for scattering: past every wall and
    // corner, and NaN/inf positions (which p2g resets to the domain's centre).
    let mut particles = scattered(300, 5);
    let odd = [
        [-0.5, 0.5, 0.5],
        [1.5, 0.5, 0.5],
        [0.5, -3.0, 0.5],
        [0.5, 0.5, 7.0],
        [-1.0, -1.0, -1.0],
        [2.0, 2.0, 2.0],
        [f32::NAN, 0.5, 0.5],
        [0.5, f32::INFINITY, 0.5],
    ];
    for (p, x) in particles.iter_mut().zip(odd) {
        p.position = x;
    }
    check_sort(&particles, "outside and non-finite");
}

#[test]
fn every_sorted_p2g_kernel_sums_the_same_integers() {
    // lavapipe has subgroups (of 8 lanes), so all three kernels run here. The busy block has runs
    // of up to 8 particles per cell; the one-cell cloud has a single cell of 3,001 particles, so
    // subgroup runs are cut at every group of RUN_LANES lanes and one p2g_gather thread sums 3,001
    // particles; the out-of-domain and non-finite particles are clamped to the domain's faces and
    // centre, where p2g_gather must find them in the cells their stencils are based in.
    let gpu = common::gpu();
    for (case, particles) in awkward_cases() {
        let mut solvers: Vec<Solver> = MpmPass::SORTED_P2G.iter().map(|_| sorted_solver(&gpu, &particles)).collect();
        for (solver, pass) in solvers.iter_mut().zip(MpmPass::SORTED_P2G) {
            assert_eq!(solver.set_p2g(&gpu, pass), pass, "this adapter cannot run {}", pass.name());
            solver.run_pass(&gpu, MpmPass::GridClear);
            solver.run_pass(&gpu, MpmPass::P2g);
        }
        // The counters the P2G kernels add to: a non-finite particle reset once, a contribution
        // clamped once, whichever kernel ran.
        let counters: Vec<_> = solvers
            .iter()
            .map(|s| s.stats(&gpu).map(|t| (t.nonfinite_count, t.overflow_count)).expect("stats"))
            .collect();
        eprintln!("{case}: (non-finite, overflow) counts {counters:?}");
        assert!(counters.iter().all(|c| *c == counters[0]), "{case}: the kernels counted differently: {counters:?}");
        if case == "strays" {
            assert_eq!(counters[0].0, 20, "strays: the 20 NaN positions are each reset once");
        }
        let grids: Vec<_> = solvers.iter().map(|s| s.read_grid_fixed(&gpu).expect("grid")).collect();
        let filled = grids[0].iter().filter(|n| n[0] != 0).count();
        eprintln!("{case}: {filled} nodes with mass");
        assert!(filled >= 27, "{case}: the scene must fill nodes, filled {filled}");
        for (grid, pass) in grids.iter().zip(MpmPass::SORTED_P2G).skip(1) {
            let differing = grid.iter().zip(&grids[0]).filter(|(a, b)| a != b).count();
            assert_eq!(differing, 0, "{case}: {differing} nodes differ between p2g_tiled and {}", pass.name());
        }

        // The rest of the substep (grid_update_blocks also zeroes the sums, as the sorted path
        // expects on entry), then 30 more (the block moves through cells, so the runs change):
        // identical particles.
        for solver in &solvers {
            solver.run_pass(&gpu, MpmPass::GridUpdate);
            solver.run_pass(&gpu, MpmPass::G2p);
            solver.step(&gpu, 30);
        }
        let reference = solvers[0].read_particles(&gpu).expect("particles");
        for (solver, pass) in solvers.iter().zip(MpmPass::SORTED_P2G).skip(1) {
            let particles = solver.read_particles(&gpu).expect("particles");
            let differing = particles.iter().zip(&reference).filter(|(p, q)| p != q).count();
            assert_eq!(
                differing,
                0,
                "{case}: {differing} of {} particles differ from p2g_tiled's with {}",
                particles.len(),
                pass.name()
            );
        }
        common::assert_ran_on(&gpu, &solvers[2], SolverPath::Sorted);
    }
}
