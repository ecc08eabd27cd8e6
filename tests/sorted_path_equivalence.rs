//! The sorted and fused paths (src/sim/sort/bins.rs, the sorted P2G kernels, grid_update_blocks,
//! g2p2g) compute the same grid and the same particles as the naive path, bit for bit, because
//! all add the same integers: run side by side, switched mid-run, and after a sort run alone.
//! Split from `tests/sorted_path.rs` (the sort itself); scenes in `sorted_scenes/`.

mod common;
mod sorted_scenes;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sorted_scenes::{H, awkward_cases, base_node, busy_scene, params, scattered, sorted_solver};

#[test]
fn both_paths_compute_the_same_grid_and_particles_bit_for_bit() {
    let gpu = common::gpu();
    let particles = busy_scene();
    let mut naive = Solver::new(&gpu, params(), &particles).expect("solver");
    naive.set_path(&gpu, SolverPath::Naive).expect("path");
    let sorted = sorted_solver(&gpu, &particles);

    // One P2G: the same integer sums in every node.
    for solver in [&naive, &sorted] {
        solver.run_pass(&gpu, MpmPass::GridClear);
        solver.run_pass(&gpu, MpmPass::P2g);
    }
    common::assert_ran_on(&gpu, &naive, SolverPath::Naive);
    common::assert_ran_on(&gpu, &sorted, SolverPath::Sorted);
    let (a, b) = (naive.read_grid_fixed(&gpu).expect("grid"), sorted.read_grid_fixed(&gpu).expect("grid"));
    let filled = a.iter().filter(|n| n[0] != 0).count();
    // The block covers 16³ cells (about 18³ nodes with its stencils), the loose particles 27 nodes each.
    assert!(filled > 6_000, "the scene must fill many nodes, filled {filled}");
    assert!(a == b, "the fixed-point grids differ");

    // 30 substeps on each path from the same start: identical particles.
    let mut naive = Solver::new(&gpu, params(), &particles).expect("solver");
    naive.set_path(&gpu, SolverPath::Naive).expect("path");
    let sorted = sorted_solver(&gpu, &particles);
    naive.step(&gpu, 30);
    sorted.step(&gpu, 30);
    common::assert_ran_on(&gpu, &naive, SolverPath::Naive);
    common::assert_ran_on(&gpu, &sorted, SolverPath::Sorted);
    let (a, b) = (naive.read_particles(&gpu).expect("particles"), sorted.read_particles(&gpu).expect("particles"));
    let moved = a.iter().zip(&particles).filter(|(p, q)| p.position != q.position).count();
    assert_eq!(moved, particles.len(), "every particle should have moved");
    let differing = a.iter().zip(&b).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{differing} of {} particles differ between the paths", a.len());
}

#[test]
fn switching_paths_mid_run_keeps_the_simulation_identical() {
    // The naive path leaves its sums in the grid; switching to the sorted path must clear them.
    // Every sorted P2G kernel: p2g_gather (lavapipe's default) stores its sums over what the grid
    // held, so only the kernels that add to it show sums left behind.
    let gpu = common::gpu();
    let particles = busy_scene();
    let mut reference = Solver::new(&gpu, params(), &particles).expect("solver");
    reference.set_path(&gpu, SolverPath::Naive).expect("path");
    let segments = [SolverPath::Naive, SolverPath::Sorted, SolverPath::Naive, SolverPath::Sorted];
    for _ in segments {
        reference.step(&gpu, 5);
    }
    common::assert_ran_on(&gpu, &reference, SolverPath::Naive);
    let a = reference.read_particles(&gpu).expect("particles");
    for kernel in MpmPass::SORTED_P2G {
        let mut switched = Solver::new(&gpu, params(), &particles).expect("solver");
        assert_eq!(switched.set_p2g(&gpu, kernel), kernel, "this adapter cannot run {}", kernel.name());
        switched.set_path(&gpu, SolverPath::Naive).expect("path");
        for (segment, path) in segments.into_iter().enumerate() {
            switched.set_path(&gpu, path).expect("path");
            switched.step(&gpu, 5);
            // A naive segment after a sorted one leaves no trace of its own, so only the first
            // naive segment and the sorted ones are checked.
            if segment == 0 || path == SolverPath::Sorted {
                common::assert_ran_on(&gpu, &switched, path);
            }
        }
        let b = switched.read_particles(&gpu).expect("particles");
        assert!(a == b, "switching paths changed the result with {}", kernel.name());
    }
}

#[test]
fn a_sort_run_alone_leaves_nothing_behind_for_later_steps_on_any_path() {
    // A sort run alone (run_pass) leaves counts in the cell counters that only a grid update
    // zeroes; neither a step on the naive path nor a switch back to the sorted path may carry them
    // into the next sort, whose particles would then be placed past their blocks' ranges.
    let gpu = common::gpu();
    let particles = busy_scene();
    // Lone passes: a sort and then another bin_count; a sort, then a bin_clear (which forgets the
    // sort's touched list) and a grid update (which then visits no block, so zeroes no cell
    // counter). Each is followed by steps on the naive path and back (set_path clears the cell
    // counters), and by steps on the sorted path straight away.
    let lone: [&[MpmPass]; 2] =
        [&[MpmPass::GridClear, MpmPass::BinCount], &[MpmPass::GridClear, MpmPass::BinClear, MpmPass::GridUpdate]];
    let run = |passes: &[MpmPass], via_naive: bool| {
        let mut solver = sorted_solver(&gpu, &particles);
        for &pass in passes {
            solver.run_pass(&gpu, pass);
        }
        if via_naive {
            solver.set_path(&gpu, SolverPath::Naive).expect("path");
        }
        solver.step(&gpu, 3);
        solver.set_path(&gpu, SolverPath::Sorted).expect("path");
        solver.step(&gpu, 3);
        solver.read_particles(&gpu).expect("particles")
    };
    for via_naive in [true, false] {
        let reference = run(&[], via_naive);
        for passes in lone {
            let after = run(passes, via_naive);
            let differing = reference.iter().zip(&after).filter(|(a, b)| a != b).count();
            let names: Vec<_> = passes.iter().map(|p| p.name()).collect();
            assert_eq!(
                differing,
                0,
                "{differing} of {} particles differ after {names:?} run alone (via the naive path: {via_naive})",
                reference.len()
            );
        }
    }
}

#[test]
fn the_fused_path_matches_the_sorted_path_bit_for_bit() {
    // g2p2g computes the particles g2p would write and adds the integers p2g_tiled would add, the
    // stress on both paths coming from the plasticity step's SVD of the new F (kept in
    // particle_stress by g2p, used in registers by g2p2g). Runs of 1 (no g2p2g), 7 and 24
    // substeps; cases as in the kernel test, plus fast particles that move more than a cell per
    // substep, whose stencils leave g2p2g's tile (they scatter straight to the grid): a dropped
    // scatter shows.
    let gpu = common::gpu();
    let mut rng = StdRng::seed_from_u64(43);
    // 40 m/s in random directions with dt = 1e-3 s: 2.6 cells per substep. Without elasticity
    // (E = 0, so τ = 0 exactly on both paths): with it that dt would be unstable where particles
    // meet.
    let mut fast = scattered(800, 44);
    for p in &mut fast {
        let d = Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
        p.velocity = (40.0 * d.normalize_or(Vec3::X)).to_array();
    }
    let mut fast_params = common::params(64, H, 1e-3);
    fast_params.material.youngs_modulus = 0.0;
    let mut cases: Vec<_> = awkward_cases().into_iter().map(|(case, particles)| (case, particles, params())).collect();
    cases.push(("fast", fast, fast_params));
    for (case, particles, params) in cases {
        let mut solvers = [SolverPath::Sorted, SolverPath::Fused].map(|path| {
            let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
            solver.set_path(&gpu, path).expect("path");
            solver
        });
        for run in [1, 7, 24] {
            for solver in &mut solvers {
                solver.step(&gpu, run);
            }
            if case == "fast" && run == 1 {
                // The case does what it says: most particles moved more than a cell on some axis.
                let after = solvers[0].read_particles(&gpu).expect("particles");
                let far = after
                    .iter()
                    .zip(&particles)
                    .filter(|(a, b)| (Vec3::from(a.position) - Vec3::from(b.position)).abs().max_element() > H as f32);
                let far = far.count();
                assert!(far > particles.len() / 2, "fast: only {far} particles moved more than a cell");
                // And many of them left g2p2g's tile, the 8³ nodes from one node before the block
                // their old position was binned in, so the straight-to-grid scatter is exercised.
                let grid = &fast_params.grid;
                let left = after.iter().zip(&particles).filter(|(a, b)| {
                    let corner = base_node(grid, b.position) / 4 * 4 - glam::IVec3::ONE;
                    let t = base_node(grid, a.position) - corner;
                    t.min_element() < 0 || t.max_element() + 2 > 7
                });
                let left = left.count();
                assert!(left > particles.len() / 10, "fast: only {left} stencils left the tile");
                eprintln!("fast: {far} particles moved more than a cell, {left} stencils left the tile");
            }
        }
        let stats = solvers.each_ref().map(|s| s.stats(&gpu).expect("stats"));
        let n = particles.len() as u32;
        assert_eq!(stats[0].fused_particles, 0, "{case}: the sorted path ran g2p2g");
        // g2p2g advances every particle in each substep of a run but the first: 6 + 23.
        assert_eq!(stats[1].fused_particles, 29 * n, "{case}: g2p2g did not advance every particle");
        assert_eq!(
            (stats[0].nonfinite_count, stats[0].overflow_count),
            (stats[1].nonfinite_count, stats[1].overflow_count),
            "{case}: the paths counted differently"
        );
        let [a, b] = solvers.each_ref().map(|s| s.read_particles(&gpu).expect("particles"));
        let moved = a.iter().zip(&particles).filter(|(p, q)| p.position != q.position).count();
        assert!(moved > particles.len() / 2, "{case}: only {moved} particles moved");
        let (mut dv, mut df, mut dx) = (0f32, 0f32, 0f32);
        for (p, q) in a.iter().zip(&b) {
            dv = dv.max((Vec3::from(p.velocity) - Vec3::from(q.velocity)).abs().max_element());
            dx = dx.max((Vec3::from(p.position) - Vec3::from(q.position)).abs().max_element());
            for c in 0..3 {
                df = df.max(
                    (Vec3::from_slice(&p.deformation[c][..3]) - Vec3::from_slice(&q.deformation[c][..3]))
                        .abs()
                        .max_element(),
                );
            }
            assert_eq!((p.mass, p.volume, p.material), (q.mass, q.volume, q.material), "{case}");
        }
        eprintln!("{case}: fused − sorted after 31 substeps: v {dv:.2e} m/s, F {df:.2e}, x {dx:.2e} m");
        // Both paths take τ from the same SVD (the plasticity step's, kept in particle_stress by g2p
        // and used in registers by g2p2g) and add the same integers, so they agree bit for bit.
        let differing = a.iter().zip(&b).filter(|(p, q)| p != q).count();
        assert_eq!(differing, 0, "{case}: {differing} of {} particles differ between the paths", a.len());
        common::assert_ran_on(&gpu, &solvers[1], SolverPath::Fused);
    }
}
