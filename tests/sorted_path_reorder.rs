//! The binned paths' reorder (src/sim/sort/reorder.rs): it moves every particle once into the
//! block order of the sort's CPU twin, and a reordered run is bit-identical to one that is not.
//! Split from `tests/sorted_path.rs`; scenes in `sorted_scenes/`.

mod common;
mod sorted_scenes;

use glam::Vec3;
use powder::sim::Solver;
use powder::sim::cpu::bins::{block_counts, home_block, home_cell};
use powder::sim::params::GpuParticle;
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::{BLOCK_CELLS, SolverPath};
use rand::SeedableRng;
use rand::rngs::StdRng;
use sorted_scenes::{awkward_cases, busy_scene, params, raw, scattered, sorted_solver};

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
