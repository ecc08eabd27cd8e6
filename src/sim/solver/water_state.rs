//! What a [`super::state::Solver`] keeps of its water step (`water.rs` builds and steps it).

use crate::sim::water::gpu::{WaterGpu, WaterGrid};

/// The water step a solver holds, and what it was built for.
pub(crate) struct SolverWater {
    /// The step.
    pub(crate) water: WaterGpu,
    /// The position stream and grid it was built over.
    pub(crate) position: wgpu::Buffer,
    /// The grid it was built for.
    pub(crate) grid: WaterGrid,
    /// The colliders it was built with: [`super::state::Solver`]'s `collider_generation`, 0 for
    /// none.
    pub(crate) colliders: u64,
    /// The snow's position stream in its projection (page 0's), where water meets snow.
    pub(crate) snow: Option<wgpu::Buffer>,
    /// Frames recorded since the last status was read.
    pub(crate) unread: bool,
}
