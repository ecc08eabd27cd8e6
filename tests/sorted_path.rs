//! The sorted path (src/sim/sort/bins.rs, its P2G kernels, grid_update_blocks) on lavapipe: the sort
//! places every particle exactly once, in the block the CPU twin (`sim::cpu::bins`) names, for
//! awkward particle counts and placements; the sorted path computes the same grid and the same
//! particles as the naive path, bit for bit, because both add the same integers (with the
//! adapter's default P2G kernel, p2g_gather on lavapipe); and all three P2G kernels agree.

mod common;

use std::collections::BTreeSet;

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::cpu::bins::{block_counts, home_block, home_cell, touched_blocks};
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::{BLOCK_CELLS, BLOCK_EDGE, SolverPath, block_dims};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const H: f64 = 1.0 / 64.0;

/// 64³ cells: 69³ nodes in 18³ = 5,832 blocks, so bin_offsets runs 23 workgroups and their
/// reservations must fit together.
fn params() -> SolverParams {
    common::params(64, H, 2e-4)
}

/// A particle near node `node` (in cells), off by up to ±0.45 cells per axis: never within 0.05
/// cells of a stencil-base boundary (those lie at cell centres, node + 0.5), so f32 rounding on
/// either side cannot move it to another block.
fn near_node(node: Vec3, rng: &mut StdRng) -> GpuParticle {
    let jitter = Vec3::new(rng.random_range(-0.45..0.45), rng.random_range(-0.45..0.45), rng.random_range(-0.45..0.45));
    let volume = (0.5 * H as f32).powi(3);
    let v = Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    GpuParticle::new((node + jitter) * H as f32, v, 400.0 * volume, volume, 0)
}

/// `count` particles near random nodes of the domain's interior.
fn scattered(count: usize, seed: u64) -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let node = Vec3::new(
                rng.random_range(1..64) as f32,
                rng.random_range(1..64) as f32,
                rng.random_range(1..64) as f32,
            );
            near_node(node, &mut rng)
        })
        .collect()
}

fn sorted_solver(gpu: &Gpu, particles: &[GpuParticle]) -> Solver {
    let mut solver = Solver::new(gpu, params(), particles).expect("solver");
    solver.set_path(gpu, SolverPath::Sorted).expect("path");
    solver
}

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

/// A 0.25 m block of 8 particles per cell moving and spinning toward the floor and the x = 0 wall,
/// with random C and F beyond the yield limits, plus a few particles alone elsewhere.
fn busy_scene() -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(21);
    let mut ps = common::block(Vec3::new(0.02, 0.3, 0.02), Vec3::new(0.27, 0.55, 0.27), H as f32, 400.0, |x| {
        Vec3::new(-1.0, 0.5, -2.0) + Vec3::new(0.0, 6.0, 0.0).cross(x - Vec3::splat(0.15))
    });
    for p in &mut ps {
        let mut noise = |s: f32| glam::Mat3::from_cols_array(&std::array::from_fn(|_| rng.random_range(-s..s)));
        p.affine = common::padded(noise(5.0));
        p.deformation = common::padded(glam::Mat3::IDENTITY + noise(0.03));
    }
    ps.extend(scattered(37, 22));
    ps
}

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

/// The stencil base node of a particle at `position`, decoded from its cell counter (`home_cell`,
/// the CPU twin of the GPU's binning).
fn base_node(grid: &powder::sim::params::GridSpec, position: [f32; 3]) -> glam::IVec3 {
    let cell = home_cell(grid, Vec3::from(position));
    let (block, within) = (cell / BLOCK_CELLS, cell % BLOCK_CELLS);
    let d = block_dims(grid.node_dims());
    let b = glam::UVec3::new(block % d.x, (block / d.x) % d.y, block / (d.x * d.y));
    let w =
        glam::UVec3::new(within % BLOCK_EDGE, (within / BLOCK_EDGE) % BLOCK_EDGE, within / (BLOCK_EDGE * BLOCK_EDGE));
    (b * BLOCK_EDGE + w).as_ivec3()
}

/// The busy block (runs of up to 8 particles per cell); a cloud of 3,001 particles in one cell;
/// and scattered particles, 60 of them outside the domain or with NaN positions (clamped to the
/// domain's faces and centre).
fn awkward_cases() -> [(&'static str, Vec<GpuParticle>); 3] {
    let mut rng = StdRng::seed_from_u64(31);
    let cloud: Vec<_> = (0..3_001).map(|_| near_node(Vec3::new(20.0, 33.0, 41.0), &mut rng)).collect();
    let mut strays = scattered(500, 32);
    for (k, p) in strays.iter_mut().enumerate().take(60) {
        p.position = match k % 3 {
            0 => [-0.3, 0.5, 2.0],
            1 => [f32::NAN, 0.2, 0.2],
            _ => [0.5, 1.0 + k as f32, 0.5],
        };
    }
    [("busy block", busy_scene()), ("one cell", cloud), ("strays", strays)]
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

/// Raw GPU buffer as `T`s, in the GPU's storage order.
fn raw<T: bytemuck::Pod>(gpu: &Gpu, buffer: &wgpu::Buffer, count: usize) -> Vec<T> {
    let all: Vec<T> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(buffer).expect("readback"));
    all[..count].to_vec()
}

#[test]
fn the_reorder_moves_every_particle_once_into_block_order() {
    // After a sort, the rounds of reorder + reorder_copy must leave the particle at place k the
    // k-th in block order (so particle_order becomes the identity), move all of a particle's data
    // (every share: position, velocity, Jp, material, id; C; F; τ) together, and
    // lose or duplicate none: the readback, put back by particle_id, is the upload byte for byte
    // (NaN positions included, hence bytes rather than ==). Inputs in random order, so the
    // reorder moves nearly every particle.
    let gpu = common::gpu();
    let mut rng = StdRng::seed_from_u64(71);
    let mut cases: Vec<_> = awkward_cases().into_iter().collect();
    cases.push(("4,099 scattered", scattered(4_099, 72)));
    for (case, mut particles) in cases {
        use rand::seq::SliceRandom;
        particles.shuffle(&mut rng);
        // A C and an F of each particle's own, so that each share of the streams (C, F, and τ,
        // which the upload computes from F) is told apart from its neighbours'.
        for (i, p) in particles.iter_mut().enumerate() {
            let s = 1e-3 * (i % 97) as f32;
            p.deformation = [[1.0 + s, 0.5 * s, 0.0, 0.0], [0.0, 1.0 - s, 0.25 * s, 0.0], [s, 0.0, 1.0, 0.0]];
            p.affine = [[i as f32, 0.0, -s, 0.0], [0.0, 2.0 * s, 0.0, 0.0], [0.0, 0.0, -(i as f32), 0.0]];
            p.strength = 1.0 + i as f32;
        }
        let n = particles.len();
        let solver = sorted_solver(&gpu, &particles);
        let stress_before: Vec<[[f32; 4]; 2]> = raw(&gpu, &solver.pages()[0].particles.stress, n);
        // GridClear sorts; Reorder runs every round of the reorder.
        for pass in [MpmPass::GridClear, MpmPass::Reorder] {
            solver.run_pass(&gpu, pass);
        }
        let state = &solver.pages()[0];
        let order: Vec<u32> = raw(&gpu, &state.particle_order, n);
        assert!(order.iter().copied().eq(0..n as u32), "{case}: particle_order is not the identity after reorder");
        let ids: Vec<u32> = raw(&gpu, &state.particles.id, n);
        let mut sorted_ids = ids.clone();
        sorted_ids.sort_unstable();
        assert!(sorted_ids.iter().copied().eq(0..n as u32), "{case}: particle_id is not a permutation");
        // Shuffled particles over many cells must move; in a single cell any order is block order
        // (bin_scatter places a cell's particles as its threads arrive), so they need not.
        let moved = ids.iter().enumerate().filter(|&(k, &id)| k as u32 != id).count();
        if case != "one cell" {
            assert!(moved > n / 2, "{case}: only {moved} of {n} particles moved");
        }

        // Every stream moved with its particle: the raw streams at place k hold particle ids[k].
        let position: Vec<[f32; 4]> = raw(&gpu, &state.particles.position, n);
        let deformation: Vec<[[f32; 4]; 3]> = raw(&gpu, &state.particles.deformation, n);
        // particle_plastic: Jp, material, damage, strength.
        let plastic: Vec<[u32; 4]> = raw(&gpu, &state.particles.plastic, n);
        for k in 0..n {
            let p = &particles[ids[k] as usize];
            assert_eq!(bytemuck::bytes_of(&position[k])[..12], *bytemuck::bytes_of(&p.position), "{case}: place {k}");
            assert_eq!(deformation[k], p.deformation, "{case}: place {k}");
            assert_eq!(plastic[k][1], p.material, "{case}: place {k}");
            assert_eq!(f32::from_bits(plastic[k][3]), p.strength, "{case}: place {k}");
        }
        // τ is not read back with the particles; it moved in a round of its own.
        let stress: Vec<[[f32; 4]; 2]> = raw(&gpu, &state.particles.stress, n);
        assert!(stress_before.iter().any(|s| s[0][0] != 0.0), "{case}: τ is zero, so the check below would be empty");
        for k in 0..n {
            let before = &stress_before[ids[k] as usize];
            assert!(bytemuck::bytes_of(&stress[k]) == bytemuck::bytes_of(before), "{case}: τ at place {k}");
        }
        let back = solver.read_particles(&gpu).expect("particles");
        assert!(bytemuck::cast_slice::<_, u8>(&back) == bytemuck::cast_slice::<_, u8>(&particles), "{case}: readback");

        // Block order: each block's range of places holds that block's particles, in cell order.
        let bins = solver.read_bins(&gpu).expect("bins");
        assert_eq!(bins.order, ids, "{case}: read_bins names particles by their host index");
        let grid = params().grid;
        for (b, bin) in bins.bins.iter().enumerate().filter(|(_, bin)| bin.count > 0) {
            let places = bin.offset as usize..(bin.offset + bin.count) as usize;
            let cells: Vec<u32> = places.map(|k| home_cell(&grid, Vec3::from_slice(&position[k][..3]))).collect();
            assert!(cells.iter().all(|&c| c / BLOCK_CELLS == b as u32), "{case}: block {b} holds another's particle");
            assert!(cells.is_sorted(), "{case}: block {b} is not in cell order");
        }

        // Sorting particles that are in block order: most of bin_count's workgroups now count
        // into their first or last thread's block in workgroup memory. The counts stay the twin's.
        solver.run_pass(&gpu, MpmPass::GridClear);
        let again = solver.read_bins(&gpu).expect("bins");
        let positions: Vec<Vec3> = particles.iter().map(|p| Vec3::from(p.position)).collect();
        let counts = block_counts(&grid, &positions);
        assert!(again.bins.iter().map(|b| b.count).eq(counts), "{case}: block counts of a sort in block order");
        assert_eq!(again.header.particle_total as usize, n, "{case}: particles placed by a sort in block order");
        let mut again_order = again.order.clone();
        again_order.sort_unstable();
        assert!(again_order.iter().copied().eq(0..n as u32), "{case}: the second sort's order is not a permutation");
        for (b, bin) in again.bins.iter().enumerate().filter(|(_, bin)| bin.count > 0) {
            for &i in &again.order[bin.offset as usize..(bin.offset + bin.count) as usize] {
                assert_eq!(home_block(&grid, positions[i as usize]), b as u32, "{case}: second sort, particle {i}");
            }
        }
    }
}

#[test]
fn reordering_changes_no_result() {
    // The sums are integers and each particle's update its own, so where particles are stored
    // cannot matter: naive, sorted without reorder, sorted reordering every substep or every 7th,
    // and fused reordering every 3rd give the same particles bit for bit, over runs of 1, 7 and 16
    // substeps (the fused path's runs restart at each step call). Particles in random order.
    use rand::seq::SliceRandom;
    let gpu = common::gpu();
    let mut particles = busy_scene();
    particles.shuffle(&mut StdRng::seed_from_u64(73));
    let setups = [
        (SolverPath::Naive, 0),
        (SolverPath::Sorted, 0),
        (SolverPath::Sorted, 1),
        (SolverPath::Sorted, 7),
        (SolverPath::Fused, 3),
    ];
    let results: Vec<Vec<GpuParticle>> = setups
        .iter()
        .map(|&(path, interval)| {
            let mut solver = Solver::new(&gpu, params(), &particles).expect("solver");
            solver.set_path(&gpu, path).expect("path");
            solver.set_reorder_interval(&gpu, interval);
            for run in [1, 7, 16] {
                solver.step(&gpu, run);
            }
            common::assert_ran_on(&gpu, &solver, path);
            let ids: Vec<u32> = raw(&gpu, &solver.pages()[0].particles.id, particles.len());
            let moved = ids.iter().enumerate().filter(|&(k, &id)| k as u32 != id).count();
            if interval == 0 {
                assert_eq!(moved, 0, "{path:?} without reorder moved particles");
            } else {
                assert!(moved > particles.len() / 2, "{path:?} every {interval}: only {moved} particles moved");
            }
            solver.read_particles(&gpu).expect("particles")
        })
        .collect();
    let moved = results[0].iter().zip(&particles).filter(|(p, q)| p.position != q.position).count();
    assert_eq!(moved, particles.len(), "every particle should have moved");
    for (setup, result) in setups.iter().zip(&results).skip(1) {
        let differing = results[0].iter().zip(result).filter(|(p, q)| p != q).count();
        assert_eq!(differing, 0, "{setup:?}: {differing} of {} particles differ from the naive path", particles.len());
    }
}
