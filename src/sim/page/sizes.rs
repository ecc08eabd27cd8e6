//! Bytes of a page's buffers that the capacity check counts before any is made
//! ([`crate::sim::capacity`]): the grid's nodes, the cell counters and `p2g_gather`'s sources.

use crate::collider::field::GpuColliderNode;
use crate::sim::explicit::GpuScatterSource;
use crate::sim::grid_pool::GridStorage;
use crate::sim::passes::MpmPass;
use crate::sim::sort::blocks::BLOCK_CELLS;

/// Bytes per grid node in the fixed-point buffer: mass and three momentum components, each a
/// 64-bit sum kept in two i32 words.
pub const GRID_FIXED_NODE_BYTES: u64 = 32;
/// Bytes per grid node in the velocity buffer: `vec4<f32>`.
pub const GRID_VELOCITY_NODE_BYTES: u64 = 16;

// A collider frame takes no more bytes per node than grid_fixed, so a grid the capacity check
// admits (grid_fixed within one binding) has room for its colliders, a binding per frame.
const _: () = assert!(size_of::<GpuColliderNode>() as u64 <= GRID_FIXED_NODE_BYTES);

/// Bytes of one page's cell counters ([`BLOCK_CELLS`] u32 per block): every block of the grid's
/// `block_count` on a dense grid, every pool block on a sparse one.
pub fn cell_bins_bytes(block_count: u32, storage: GridStorage) -> u64 {
    let blocks = match storage {
        GridStorage::Dense => block_count,
        GridStorage::Sparse { pool_blocks } => pool_blocks,
    };
    4 * BLOCK_CELLS as u64 * blocks as u64
}

/// Bytes of `scatter_sources` for the sorted P2G kernel `p2g`: one [`GpuScatterSource`] per
/// particle for `p2g_gather`, else a single placeholder entry (a binding cannot be empty).
pub fn scatter_sources_bytes(p2g: MpmPass, particle_count: u32) -> u64 {
    let entries = if p2g == MpmPass::P2gGather { particle_count.max(1) } else { 1 };
    entries as u64 * size_of::<GpuScatterSource>() as u64
}

/// Bytes per particle of `scatter_sources` with the sorted P2G kernel `p2g` (0 but for `p2g_gather`).
pub fn scatter_source_bytes_per_particle(p2g: MpmPass) -> u64 {
    if p2g == MpmPass::P2gGather { size_of::<GpuScatterSource>() as u64 } else { 0 }
}

/// Levels of the Newton–PCG preconditioner on the GPU: the grid and three coarser ones
/// (`NEWTON_LEVELS` in `shaders/mpm/pbmpm/newton.wgsl`; the twin's
/// [`crate::sim::pbmpm::cpu::newton::NewtonSettings::levels`] default).
pub const NEWTON_LEVELS: u32 = 4;

/// Header entries of the Newton–PCG buffer (`NEWTON_HEAD` in `shaders/mpm/pbmpm/newton.wgsl`):
/// the CG scalars, the residual norms, the stop flag.
pub const NEWTON_HEAD: u64 = 3;

/// Entries (16 bytes each) of the Newton–PCG buffer `pb_solve` for a dense grid of `node_dims`
/// nodes, laid out as `newton.wgsl` says: [`NEWTON_HEAD`] of header, 5 per node, 2 per node of
/// each coarse level (each level a node at every other node of the one below, `d / 2 + 1` along an axis), and one
/// partial sum per workgroup of a node dispatch (as `record::dispatch_size` spills it).
pub fn newton_solve_len(node_dims: glam::UVec3) -> u64 {
    let nodes = |d: glam::UVec3| d.x as u64 * d.y as u64 * d.z as u64;
    let mut len = NEWTON_HEAD + 5 * nodes(node_dims);
    for level in 1..NEWTON_LEVELS {
        len += 2 * newton_level_nodes(node_dims, level);
    }
    let groups = nodes(node_dims).div_ceil(crate::sim::params::WORKGROUP_SIZE as u64) as u32;
    let (x, y) = crate::sim::params::spill_workgroups(groups);
    len + x as u64 * y as u64
}

/// Nodes of level `level` of the Newton–PCG preconditioner over a grid of `node_dims` nodes (level 0
/// is the grid): each level has a node at every other node of the one below, `d / 2 + 1` along an
/// axis (`level_dims` in `newton.wgsl`).
pub fn newton_level_nodes(node_dims: glam::UVec3, level: u32) -> u64 {
    let d = (0..level).fold(node_dims, |d, _| d / 2 + glam::UVec3::ONE);
    d.x as u64 * d.y as u64 * d.z as u64
}
