//! What one frame shows: a read-only model built from the simulation side once per frame
//! ([`frame::Model`]), and the Stats numbers ([`stats::StatsText`]), which the panels draw from.

pub mod frame;
pub mod stats;
