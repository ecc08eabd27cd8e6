//! The sort every binned path shares: particles counted into grid blocks ([`bins`]) and, every few
//! substeps, moved into block order ([`reorder`]).

pub mod bins;
pub mod reorder;
