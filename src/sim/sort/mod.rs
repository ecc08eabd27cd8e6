//! The sort every binned path shares: particles counted into grid blocks ([`bins`]) and, every few
//! substeps, moved into block order ([`reorder`]). The blocks' sizes and the bin passes' GPU structs
//! ([`blocks`]) and the reorder's clock and scratch size ([`reorder_clock`]) stand apart, below the
//! pages that hold the buffers and the recorder that dispatches over them.

pub mod bins;
pub mod blocks;
pub mod reorder;
pub mod reorder_clock;
