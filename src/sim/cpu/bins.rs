//! The CPU twin of the sorted path's bin passes (`src/sim/sort/bins.rs`): which grid block each particle
//! belongs to, how many particles each block holds, and which blocks the grid update must visit.
//! A sort has no numbers to be close to, only sets to be equal to: `tests/sorted_path.rs` checks the
//! GPU's bins against these exactly.

use glam::{UVec3, Vec3};

use crate::sim::params::GridSpec;
use crate::sim::sort::blocks::{BLOCK_CELLS, BLOCK_EDGE, block_dims};

/// The block of the stencil base node of a particle at `position`: its [`home_cell`] divided by
/// [`BLOCK_CELLS`], as `bin_count` in `shaders/mpm/` computes it.
pub fn home_block(grid: &GridSpec, position: Vec3) -> u32 {
    home_cell(grid, position) / BLOCK_CELLS
}

/// The particle's cell counter, as `home_cell` in `scatter.wgsl` computes it in f32: the position
/// (the domain's centre if it is not finite) clamped into the domain, the base node
/// `floor((x − origin)/h − 1/2)` clamped into the grid; then its block (base / [`BLOCK_EDGE`]) times
/// [`BLOCK_CELLS`] plus its base node's index within the block (x fastest). Within a block's range
/// of `particle_order` the GPU sorts particles by it.
pub fn home_cell(grid: &GridSpec, position: Vec3) -> u32 {
    let (lo, hi) = (grid.domain_min.as_vec3(), grid.domain_max().as_vec3());
    let x = if position.is_finite() { position } else { 0.5 * (lo + hi) }.clamp(lo, hi);
    let xg = (x - grid.grid_origin().as_vec3()) / grid.cell_size as f32;
    let last = grid.node_dims().as_ivec3() - 1;
    let base = (xg - 0.5).floor().as_ivec3().clamp(glam::IVec3::ZERO, last).as_uvec3();
    let (b, within) = (base / BLOCK_EDGE, base % BLOCK_EDGE);
    let d = block_dims(grid.node_dims());
    (b.x + d.x * (b.y + d.y * b.z)) * BLOCK_CELLS + within.x + BLOCK_EDGE * (within.y + BLOCK_EDGE * within.z)
}

/// Particles per block.
pub fn block_counts(grid: &GridSpec, positions: &[Vec3]) -> Vec<u32> {
    let mut counts = vec![0u32; block_dims(grid.node_dims()).element_product() as usize];
    for &x in positions {
        counts[home_block(grid, x) as usize] += 1;
    }
    counts
}

/// Whether each block is touched: it or one of its seven lower neighbours holds a particle (a
/// stencil reaches at most one block up on each axis from its base's block).
pub fn touched_blocks(grid: &GridSpec, counts: &[u32]) -> Vec<bool> {
    let d = block_dims(grid.node_dims());
    let index = |b: UVec3| (b.x + d.x * (b.y + d.y * b.z)) as usize;
    (0..counts.len() as u32)
        .map(|i| {
            let b = UVec3::new(i % d.x, (i / d.x) % d.y, i / (d.x * d.y));
            (0..8u32).any(|k| {
                let step = UVec3::new(k & 1, (k >> 1) & 1, (k >> 2) & 1);
                b.cmpge(step).all() && counts[index(b - step)] > 0
            })
        })
        .collect()
}
