//! The grid's blocks as the sort sees them: their size, the GPU structs of the bin passes
//! (mirrored in `shaders/mpm/types.wgsl`) and where `bin_dispatch` writes its indirect arguments.
//! Plain constants and types, below everything that sorts, records or allocates
//! ([`super::bins`] runs the sort).

use bytemuck::{Pod, Zeroable};

/// Nodes along each edge of a grid block (`BLOCK_EDGE` in `types.wgsl`).
pub const BLOCK_EDGE: u32 = 4;
/// Cell counters per block in `cell_bins` (`BLOCK_CELLS` in `types.wgsl`).
pub const BLOCK_CELLS: u32 = BLOCK_EDGE * BLOCK_EDGE * BLOCK_EDGE;
/// The blocks the stencils based in one block reach, itself included (`REACHED_BLOCKS` in
/// `types.wgsl`): `bin_offsets` runs this many threads per occupied block, and `bin_cell_offsets`
/// per pool block.
pub const REACHED_BLOCKS: u32 = 8;

/// Grid blocks along each axis of a grid of `node_dims` nodes: enough to cover every node
/// (`block_dims` in `types.wgsl`).
pub fn block_dims(node_dims: glam::UVec3) -> glam::UVec3 {
    node_dims.map(|n| n.div_ceil(BLOCK_EDGE))
}

/// Counters of the bin passes. Mirrors `BinHeader` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuBinHeader {
    /// Particles given a place in `particle_order`.
    pub particle_total: u32,
    /// Blocks holding some particle's stencil base.
    pub occupied_count: u32,
    /// Blocks some particle's stencil reaches.
    pub touched_count: u32,
    /// The touched count at the end of the last sort: the blocks the next `bin_clear` empties.
    pub listed_touched: u32,
}

/// One grid block's bin. Mirrors `BlockBin` in `shaders/mpm/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuBlockBin {
    /// Particles whose stencil base lies in the block.
    pub count: u32,
    /// First index of the block's range in `particle_order`.
    pub offset: u32,
    /// On a sparse grid, `bin_scatter`'s cursor in a block without a pool block (none: 0).
    pub cursor: u32,
    /// 1 once `bin_offsets` has listed the block as touched in this sort.
    pub listed: u32,
}

/// Byte offset of `p2g_tiled`'s arguments in the indirect buffer; `grid_update_blocks`'s (which
/// `p2g_gather` also uses) follow.
pub const P2G_ARGS_OFFSET: u64 = 0;
/// Byte offset of `grid_update_blocks`'s arguments in the indirect buffer.
pub const UPDATE_ARGS_OFFSET: u64 = 16;
/// Byte offset of `bin_offsets`'s arguments in the indirect buffer.
pub const OFFSETS_ARGS_OFFSET: u64 = 32;
/// Size of the indirect buffer: three sets of arguments (x, y, z and an unused word).
pub const INDIRECT_ARGS_BYTES: u64 = 48;
/// Threads of `bin_clear`, at most: they stride over the last sort's touched list, whose length
/// only the GPU knows. 16,384 threads take a touched list of 40,000 blocks (16M particles) in three
/// strides, and are 64 workgroups on a GPU.
pub const CLEAR_THREADS: u32 = 16_384;
