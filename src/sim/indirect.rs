//! The layout of a page's indirect-argument buffer: `bin_dispatch`'s entries
//! ([`blocks::INDIRECT_ARGS_BYTES`]), then one gated entry per size class of fixed-size dispatch
//! ([`Items`]), then their templates. Constants only, below the pass table ([`super::passes`]), the
//! pages that allocate the buffer ([`super::page`]) and the recorder that dispatches from it
//! ([`super::record`]).

use super::sort::blocks;

/// Index of the first gated entry in a page's indirect arguments (the entries before it are
/// `bin_dispatch`'s, [`blocks::INDIRECT_ARGS_BYTES`]); `BIN_ENTRIES` in `clock_gate.wgsl`.
pub const BIN_ENTRIES: u32 = 3;
const _: () = assert!(BIN_ENTRIES as u64 * ENTRY_BYTES == blocks::INDIRECT_ARGS_BYTES);
/// Gated entries, one per dispatch size a substep uses ([`Items`]); `GATED_ENTRIES` in
/// `clock_gate.wgsl`. Their template follows them.
pub const GATED_ENTRIES: u32 = 5;
/// Bytes of one entry of indirect arguments: workgroups x, y, z and an unused word.
pub const ENTRY_BYTES: u64 = 16;
/// Bytes of a page's indirect arguments: `bin_dispatch`'s, the gated ones and their template.
pub const INDIRECT_ARGS_BYTES: u64 = (BIN_ENTRIES + 2 * GATED_ENTRIES) as u64 * ENTRY_BYTES;

/// What a one-thread-per-item dispatch runs over: the dispatch sizes fixed by the page's state (those
/// `bin_dispatch` writes are not among them). Each has a gated entry of indirect arguments, which the
/// explicit integrator's `clock_gate` sets to its template or to zero
/// ([`super::explicit::clock`]), and a template entry holding its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Items {
    /// One thread per particle of the page.
    Particles = 0,
    /// One thread per fixed-point word of the grid (`grid_clear`).
    GridWords = 1,
    /// One thread per grid node (`grid_update`).
    Nodes = 2,
    /// `bin_clear`'s threads.
    BinClear = 3,
    /// `bin_cell_offsets`'s threads.
    CellOffsets = 4,
}

impl Items {
    /// Every size class, in entry order.
    pub const ALL: [Items; GATED_ENTRIES as usize] =
        [Items::Particles, Items::GridWords, Items::Nodes, Items::BinClear, Items::CellOffsets];

    /// Byte offset of the class's live (gated) entry in a page's indirect arguments.
    pub fn offset(self) -> u64 {
        (BIN_ENTRIES + self as u32) as u64 * ENTRY_BYTES
    }

    /// Byte offset of the class's template entry.
    pub fn template_offset(self) -> u64 {
        (BIN_ENTRIES + GATED_ENTRIES + self as u32) as u64 * ENTRY_BYTES
    }
}
