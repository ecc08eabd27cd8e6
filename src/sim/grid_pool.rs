//! The sparse grid: grid memory that scales with the snow rather than with the domain.
//!
//! A dense grid stores every node of the domain, 48 bytes each (`grid_fixed` and `grid_velocity`),
//! and one storage binding bounds it: 405³ nodes on the H100. Snow fills a small part of most
//! domains. A sparse grid stores only a pool of blocks ([`BLOCK_EDGE`]³ nodes each) and a map from
//! every grid block to its pool block (`block_slots`, 4 bytes per block, stored one up so that 0
//! means none):
//!
//! - Each substep the sort gives the pool's blocks anew: each page's `bin_clear` empties the map
//!   entries of the blocks its last sort listed (no others are set), the first page's also the count
//!   of pool blocks handed out, and each page's `bin_offsets` then gives every block its particles'
//!   stencils touch a pool block of its own, in whatever order the workgroups take them
//!   (`shaders/mpm/bin_offsets.wgsl`).
//! - The passes find a node through `grid_place` (`types.wgsl`): its block's pool block, then the
//!   node within the block. The sorted path visits only touched blocks, so every node it reads or
//!   writes has a pool block.
//! - The pool's size is set on the host: [`pool_blocks_for`] twice the blocks the particles touch
//!   when the state is made, and [`grown_pool`] when a substep came near the end
//!   ([`crate::sim::Solver::stable_dt`] checks once a frame). A substep that needs more blocks than
//!   the pool holds skips the nodes of the blocks past its end, and counts them
//!   (`status.grid_blocks_used`), so the shortfall is reported and the pool grows before the next
//!   frame.
//!
//! Only the sorted path runs on a sparse grid: the naive path's P2G and the fused path's g2p2g
//! write nodes before the sort of their substep has given them pool blocks. The cell counters live
//! in the pool blocks too. What stays dense: the map and the block bins and lists, 28 bytes per
//! block of the domain (the sort's passes visit only the listed blocks of them), and the collider
//! fields (32 bytes per node and frame).

use std::collections::HashSet;

use glam::{UVec3, Vec3};

use super::cpu::bins::home_block;
use super::params::GridSpec;
use super::sort::blocks::{BLOCK_CELLS, BLOCK_EDGE, block_dims};

/// The fewest blocks a pool holds (256 KiB of grid), so that small scenes do not grow it at once.
pub const MIN_POOL_BLOCKS: u32 = 64;

/// How the grid's nodes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridStorage {
    /// Every node of the domain, at its place in x-fastest order.
    Dense,
    /// A pool of `pool_blocks` blocks of [`BLOCK_CELLS`] nodes, given to the touched blocks anew each
    /// substep.
    Sparse {
        /// Blocks the pool holds.
        pool_blocks: u32,
    },
}

impl GridStorage {
    /// Nodes `grid_fixed` and `grid_velocity` hold.
    pub fn stored_nodes(self, grid: &GridSpec) -> u64 {
        match self {
            GridStorage::Dense => grid.node_count(),
            GridStorage::Sparse { pool_blocks } => pool_blocks as u64 * BLOCK_CELLS as u64,
        }
    }

    /// `params.grid_pool_blocks` in the shaders: 0 on a dense grid.
    pub fn pool_blocks(self) -> u32 {
        match self {
            GridStorage::Dense => 0,
            GridStorage::Sparse { pool_blocks } => pool_blocks,
        }
    }

    /// Whether this is a sparse grid.
    pub fn is_sparse(self) -> bool {
        matches!(self, GridStorage::Sparse { .. })
    }

    /// A line for reports (the stats panel, `powder bench`): "dense", or the pool's size and, with
    /// `peak` ([`crate::sim::SolverStats::grid_blocks_peak`]), how much of it the busiest substep
    /// asked for, flagged if that was past its end.
    pub fn summary(self, peak: Option<u32>) -> String {
        match (self, peak) {
            (GridStorage::Dense, _) => "dense".to_string(),
            (GridStorage::Sparse { pool_blocks }, None) => format!("sparse: a pool of {pool_blocks} blocks"),
            (GridStorage::Sparse { pool_blocks }, Some(peak)) => {
                let over = if peak > pool_blocks { " (past the pool: nodes were skipped)" } else { "" };
                format!("sparse: {peak} of {pool_blocks} pool blocks used{over}")
            }
        }
    }
}

/// Which storage a solver asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GridMode {
    /// Dense while the dense grid fits the GPU, sparse past that (on the sorted path).
    #[default]
    Auto,
    /// Always dense.
    Dense,
    /// Always sparse (the sorted path only).
    Sparse,
}

impl GridMode {
    /// The mode named `dense`, `sparse` or `auto`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "auto" => Some(GridMode::Auto),
            "dense" => Some(GridMode::Dense),
            "sparse" => Some(GridMode::Sparse),
            _ => None,
        }
    }
}

/// Grid blocks that the stencils of particles at `positions` touch: the blocks a sparse grid's sort
/// gives pool blocks to (the rule of `bin_offsets` and the CPU twin's `touched_blocks`: a block
/// and the seven above it for each occupied block). It visits the occupied blocks, not every
/// block of the domain, which on a sparse grid's large domain is most of the work.
pub fn touched_block_count(grid: &GridSpec, positions: impl Iterator<Item = Vec3>) -> u32 {
    let d = block_dims(grid.node_dims());
    let occupied: HashSet<u32> = positions.map(|x| home_block(grid, x)).collect();
    let mut touched = HashSet::with_capacity(occupied.len() * 2);
    for b in occupied {
        let c = UVec3::new(b % d.x, (b / d.x) % d.y, b / (d.x * d.y));
        for k in 0..8u32 {
            let n = c + UVec3::new(k & 1, (k >> 1) & 1, (k >> 2) & 1);
            if n.cmplt(d).all() {
                touched.insert(n.x + d.x * (n.y + d.y * n.z));
            }
        }
    }
    touched.len() as u32
}

/// Every block of the grid: a pool this large can never run out.
pub fn grid_blocks(grid: &GridSpec) -> u32 {
    block_dims(grid.node_dims()).element_product()
}

/// The pool for substeps that need `needed` blocks, with room for the snow to spread before the
/// pool grows: twice that, and at least the blocks of a cube of `needed` blocks grown by one
/// block on every side, `(∛needed + 2)³`, the room snow needs to move one block in any direction
/// (for small snow that is more than twice: a ball in 4³ blocks crosses into 6³ of them). At
/// least [`MIN_POOL_BLOCKS`], at most every block of the grid.
pub fn pool_blocks_for(grid: &GridSpec, needed: u32) -> u32 {
    let grown_cube = ((needed as f64).cbrt() + 2.0).powi(3).ceil() as u64;
    let room = (2 * needed as u64).max(grown_cube).min(u32::MAX as u64) as u32;
    room.max(MIN_POOL_BLOCKS).min(grid_blocks(grid))
}

/// A larger pool, where a substep since the last check needed `peak` blocks of a pool of `pool`:
/// past three quarters of it, [`pool_blocks_for`] the peak. `None` while the pool has room, or
/// already holds every block.
pub fn grown_pool(grid: &GridSpec, pool: u32, peak: u32) -> Option<u32> {
    let grown = pool_blocks_for(grid, peak);
    (peak as u64 * 4 > pool as u64 * 3 && grown > pool).then_some(grown)
}

/// The place of node `node` in a sparse grid's buffers whose map is `slots` as stored (as
/// `grid_place` in `types.wgsl`), or `None` where its block has no pool block.
pub fn sparse_place(grid: &GridSpec, slots: &[u32], node: UVec3) -> Option<usize> {
    let d = block_dims(grid.node_dims());
    let b = node / BLOCK_EDGE;
    // Stored one up (`block_slot` in types.wgsl): 0 is none asked for, u32::MAX asked for past
    // the pool's end (`POOL_FULL` + 1).
    let slot = slots[(b.x + d.x * (b.y + d.y * b.z)) as usize].wrapping_sub(1);
    (slot < u32::MAX - 1).then(|| {
        let n = node % BLOCK_EDGE;
        slot as usize * BLOCK_CELLS as usize + (n.x + BLOCK_EDGE * (n.y + BLOCK_EDGE * n.z)) as usize
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn grid(cells: u32) -> GridSpec {
        GridSpec { domain_min: DVec3::ZERO, cell_size: 1.0 / cells as f64, cells: UVec3::splat(cells) }
    }

    #[test]
    fn the_count_follows_the_cpu_twins_rule() {
        // Random particles over a small grid, some near its upper edge: the count from the occupied
        // blocks is the twin's count over every block.
        use super::super::cpu::bins::{block_counts, touched_blocks};
        let g = grid(24);
        let mut state = 12345u32;
        let mut random = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let positions: Vec<Vec3> = (0..300).map(|_| Vec3::new(random(), random(), random())).collect();
        let twin = touched_blocks(&g, &block_counts(&g, &positions)).iter().filter(|&&t| t).count() as u32;
        assert_eq!(touched_block_count(&g, positions.iter().copied()), twin);
        assert!(twin > 100, "{twin}");
    }

    #[test]
    fn one_particle_touches_its_block_and_the_seven_above() {
        // 64 cells + 5 nodes of padding: 69 nodes, 18 blocks per axis. A particle in the middle of
        // a block's cells has its stencil base in that block; the stencil reaches one block up.
        let g = grid(64);
        assert_eq!(touched_block_count(&g, [Vec3::splat(0.5)].into_iter()), 8);
        // Two particles in the same block touch the same eight.
        assert_eq!(touched_block_count(&g, [Vec3::splat(0.5), Vec3::splat(0.501)].into_iter()), 8);
    }

    #[test]
    fn the_pool_doubles_what_is_needed_within_the_grid() {
        let g = grid(64);
        assert_eq!(grid_blocks(&g), 18 * 18 * 18);
        // One block: the minimum. 4³ blocks: 6³ for a move of one block. 10³: twice is more than 12³.
        assert_eq!(pool_blocks_for(&g, 1), MIN_POOL_BLOCKS);
        assert_eq!(pool_blocks_for(&g, 64), 216);
        assert_eq!(pool_blocks_for(&g, 1000), 2000);
        assert_eq!(pool_blocks_for(&g, 5000), 18 * 18 * 18);
    }

    #[test]
    fn the_pool_grows_past_three_quarters_and_not_before() {
        let g = grid(64);
        assert_eq!(grown_pool(&g, 1000, 750), None);
        assert_eq!(grown_pool(&g, 1000, 751), Some(1502));
        // A substep that ran out asked for more than the pool: the new pool is twice its demand.
        assert_eq!(grown_pool(&g, 1000, 1400), Some(2800));
        // A pool of every block has nowhere to grow.
        let all = grid_blocks(&g);
        assert_eq!(grown_pool(&g, all, all), None);
    }

    #[test]
    fn the_summary_flags_a_pool_that_ran_out() {
        let pool = GridStorage::Sparse { pool_blocks: 100 };
        assert_eq!(pool.summary(Some(60)), "sparse: 60 of 100 pool blocks used");
        assert!(pool.summary(Some(101)).ends_with("(past the pool: nodes were skipped)"));
        assert_eq!(GridStorage::Dense.summary(Some(0)), "dense");
    }

    #[test]
    fn places_follow_the_block_map() {
        let g = grid(64);
        let mut slots = vec![0; grid_blocks(&g) as usize];
        // Block (1, 0, 0) holds pool block 3, stored as 4: its node (1, 2, 3) is node
        // 1 + 4·2 + 16·3 = 57 of it.
        slots[1] = 4;
        assert_eq!(sparse_place(&g, &slots, UVec3::new(5, 2, 3)), Some(3 * 64 + 57));
        assert_eq!(sparse_place(&g, &slots, UVec3::new(0, 0, 0)), None);
        slots[0] = u32::MAX;
        assert_eq!(sparse_place(&g, &slots, UVec3::new(0, 0, 0)), None);
        slots[0] = 1;
        assert_eq!(sparse_place(&g, &slots, UVec3::new(0, 0, 0)), Some(0));
    }
}
