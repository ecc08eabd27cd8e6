//! The sort's lists across substeps (src/sim/sort/bins.rs), on lavapipe. `bin_clear` empties only the
//! blocks the last sort listed as touched, not every block of the domain, so anything an earlier
//! sort left outside that list would survive into later ones: a stale count (particles placed
//! twice or past their ranges), a stale touched mark (a touched block left off the list, so its
//! nodes are never updated), a stale entry of a sparse grid's map (two grid blocks sharing a pool
//! block). Here particles fly across many blocks between sorts, and after each run the bins of the
//! last sort must be exactly those of the positions it sorted, with nothing else set anywhere.

use powder::sim::solver::SolverOptions;

mod common;

use std::collections::BTreeSet;

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::cpu::bins::{home_block, touched_blocks};
use powder::sim::grid_pool::GridMode;
use powder::sim::page::ParticlePage;
use powder::sim::params::{GpuParticle, GridSpec, SolverParams};
use powder::sim::sort::bins::{GpuBinHeader, GpuBlockBin, SolverPath};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const H: f64 = 1.0 / 64.0;
/// Substeps between the first look at the bins and the last: at 20 m/s and dt = 2·10⁻⁴ s a
/// particle crosses 0.26 cells a substep, so 40 substeps take it across two or three 4-cell blocks.
const SUBSTEPS: u32 = 40;

fn params() -> SolverParams {
    common::params(64, H, 2e-4)
}

/// `count` particles in a cloud filling the box [0.15, 0.4)³, flying together at 20 m/s toward
/// (+x, +y, +z) with up to ±2 m/s of spread per axis. In 40 substeps it moves 0.16 m, 2.5 blocks
/// along each axis: most blocks it starts in are empty by then, and its size barely changes (a
/// sparse grid's first pool holds it throughout).
fn cloud(count: usize, seed: u64) -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(seed);
    let volume = (0.5 * H as f32).powi(3);
    let heading = Vec3::new(3.0, 2.0, 1.0).normalize() * 20.0;
    (0..count)
        .map(|_| {
            let mut draw = |lo: f32, hi: f32| Vec3::from_array(std::array::from_fn(|_| rng.random_range(lo..hi)));
            let x = draw(0.15, 0.4);
            GpuParticle::new(x, heading + draw(-2.0, 2.0), 400.0 * volume, volume, 0)
        })
        .collect()
}

/// A page's bins as the last sort left them.
struct PageBins {
    header: GpuBinHeader,
    bins: Vec<GpuBlockBin>,
    occupied: Vec<u32>,
    touched: Vec<u32>,
}

fn read_page_bins(gpu: &Gpu, page: &ParticlePage) -> PageBins {
    let read = gpu.read_buffers(&[&page.bin_header, &page.block_bins, &page.block_lists]).expect("bins");
    let header: GpuBinHeader = bytemuck::pod_read_unaligned(&read[0]);
    let bins: Vec<GpuBlockBin> = bytemuck::pod_collect_to_vec(&read[1]);
    let lists: Vec<u32> = bytemuck::pod_collect_to_vec(&read[2]);
    let blocks = bins.len();
    PageBins {
        header,
        occupied: lists[..(header.occupied_count as usize).min(blocks)].to_vec(),
        touched: lists[blocks..blocks + (header.touched_count as usize).min(blocks)].to_vec(),
        bins,
    }
}

/// Whether f32 rounding may put a particle at `x` into either of two blocks: its position in
/// cells, less a half, is within 10⁻⁴ cells of a whole number on some axis (the GPU and the CPU
/// twin compute it with different operations; positions are ~1 here, f32 resolves 10⁻⁵ cells).
fn on_a_boundary(grid: &GridSpec, x: Vec3) -> bool {
    let xg = (x - grid.grid_origin().as_vec3()) / grid.cell_size as f32 - 0.5;
    let off = (xg - xg.round()).abs();
    off.min_element() < 1e-4
}

/// Checks one page's bins against the `positions` its last sort binned: every particle counted
/// once, in its own block; the occupied list exactly the blocks with particles; the touched list
/// exactly the blocks the CPU twin names from those counts; the touched marks set on those blocks
/// and no others; no cursor left set. Returns the occupied blocks.
fn check_page(gpu: &Gpu, grid: &GridSpec, page: &ParticlePage, positions: &[Vec3], what: &str) -> BTreeSet<u32> {
    let b = read_page_bins(gpu, page);
    let n = positions.len();
    assert_eq!(b.header.particle_total as usize, n, "{what}: particles placed");
    let total: u64 = b.bins.iter().map(|bin| bin.count as u64).sum();
    assert_eq!(total, n as u64, "{what}: the blocks' counts add up to {total}, not the page's {n} particles");

    let mut want_counts = vec![0u32; b.bins.len()];
    let mut unsure = 0;
    for &x in positions {
        want_counts[home_block(grid, x) as usize] += 1;
        unsure += on_a_boundary(grid, x) as u32;
    }
    let counts: Vec<u32> = b.bins.iter().map(|bin| bin.count).collect();
    let wrong = counts.iter().zip(&want_counts).map(|(&a, &w)| a.abs_diff(w)).sum::<u32>();
    assert!(
        wrong <= 2 * unsure,
        "{what}: counts differ from the CPU twin's by {wrong} ({unsure} particles on a boundary)"
    );

    let occupied: BTreeSet<u32> = b.occupied.iter().copied().collect();
    assert_eq!(occupied.len(), b.occupied.len(), "{what}: an occupied block is listed twice");
    let with_particles: BTreeSet<u32> = (0..counts.len() as u32).filter(|&k| counts[k as usize] > 0).collect();
    assert_eq!(occupied, with_particles, "{what}: the occupied list is not the blocks with particles");

    let touched: BTreeSet<u32> = b.touched.iter().copied().collect();
    assert_eq!(touched.len(), b.touched.len(), "{what}: a touched block is listed twice");
    let reached = touched_blocks(grid, &counts);
    let want_touched: BTreeSet<u32> = (0..reached.len() as u32).filter(|&k| reached[k as usize]).collect();
    assert_eq!(touched, want_touched, "{what}: the touched list is not the blocks the occupied ones reach");
    let marked: BTreeSet<u32> = (0..b.bins.len() as u32).filter(|&k| b.bins[k as usize].listed != 0).collect();
    assert_eq!(marked, touched, "{what}: touched marks set off the touched list");
    assert_eq!(b.header.listed_touched, b.header.touched_count, "{what}: bin_dispatch's copy of the touched count");
    assert!(b.bins.iter().all(|bin| bin.cursor == 0), "{what}: a cursor is set on a grid with pool blocks for all");
    occupied
}

/// Steps `solver` one substep, then [`SUBSTEPS`] more, and checks every page's bins after each run
/// (the positions the last sort binned are those before its substep). Returns the occupied blocks
/// of the first page after the first and after the last run, and the final particles.
fn fly(gpu: &Gpu, solver: &Solver, what: &str) -> (BTreeSet<u32>, BTreeSet<u32>, Vec<GpuParticle>) {
    let grid = solver.params().grid;
    let mut seen = Vec::new();
    for run in [1, SUBSTEPS] {
        if run > 1 {
            solver.step(gpu, run - 1);
        }
        let before = solver.read_particles(gpu).expect("particles");
        solver.step(gpu, 1);
        let mut start = 0;
        for (k, page) in solver.pages().iter().enumerate() {
            let end = start + page.particle_count as usize;
            let positions: Vec<Vec3> = before[start..end].iter().map(|p| Vec3::from(p.position)).collect();
            let occupied = check_page(gpu, &grid, page, &positions, &format!("{what}, page {k}, after {run}"));
            if k == 0 {
                seen.push(occupied);
            }
            start = end;
        }
    }
    let last = seen.pop().expect("two runs");
    (seen.pop().expect("two runs"), last, solver.read_particles(gpu).expect("particles"))
}

#[test]
fn the_bins_of_each_sort_are_those_of_its_particles_wherever_earlier_ones_were() {
    let gpu = common::gpu();
    let particles = cloud(3_000, 17);
    let mut solver = Solver::with_options(
        &gpu,
        params(),
        &particles,
        SolverOptions { page_capacity: None, grid_mode: GridMode::Dense, ..Default::default() },
    )
    .expect("solver");
    solver.set_path(&gpu, SolverPath::Sorted).expect("the sorted path");
    let (first, last, _) = fly(&gpu, &solver, "dense grid");
    // The premise: blocks the first sort filled were empty by the last one, so only bin_clear
    // could have emptied their bins.
    let emptied = first.difference(&last).count();
    assert!(
        emptied * 4 > first.len(),
        "only {emptied} of {} blocks emptied: the particles did not move on",
        first.len()
    );
}

#[test]
fn a_sparse_grid_over_pages_maps_exactly_the_touched_blocks_of_the_last_sort() {
    let gpu = common::gpu();
    let particles = cloud(3_000, 18);
    let mut dense = Solver::with_options(
        &gpu,
        params(),
        &particles,
        SolverOptions { page_capacity: Some(1_100), grid_mode: GridMode::Dense, ..Default::default() },
    )
    .expect("solver");
    dense.set_path(&gpu, SolverPath::Sorted).expect("the sorted path");
    let sparse = Solver::with_options(
        &gpu,
        params(),
        &particles,
        SolverOptions { page_capacity: Some(1_100), grid_mode: GridMode::Sparse, ..Default::default() },
    )
    .expect("solver");
    assert_eq!((dense.pages().len(), sparse.pages().len()), (3, 3), "three pages of particles");
    let (.., on_dense) = fly(&gpu, &dense, "dense grid, three pages");
    let (first, last, on_sparse) = fly(&gpu, &sparse, "sparse grid, three pages");
    assert!(first.difference(&last).count() * 4 > first.len(), "the particles did not move on");

    // The map: an entry (stored one up) for each block some page listed as touched in the last
    // sort, each a pool block of its own, and zero everywhere else.
    let slots: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&sparse.pages()[0].block_slots).expect("map"));
    let touched: BTreeSet<u32> = sparse.pages().iter().flat_map(|page| read_page_bins(&gpu, page).touched).collect();
    let mapped: BTreeSet<u32> = (0..slots.len() as u32).filter(|&b| slots[b as usize] != 0).collect();
    assert_eq!(mapped, touched, "map entries off the last sort's touched blocks");
    let pool = sparse.grid_storage().pool_blocks();
    let places: BTreeSet<u32> = mapped.iter().map(|&b| slots[b as usize] - 1).collect();
    assert_eq!(places.len(), mapped.len(), "two grid blocks share a pool block");
    assert!(places.iter().all(|&p| p < pool), "a block past the pool of {pool}");
    // And the particles are those of the dense grid, bit for bit (tests/sparse_grid.rs says why).
    let differing = on_dense.iter().zip(&on_sparse).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "{differing} of {} particles differ from the dense grid's", on_dense.len());
}
