//! The sorted path's reorder: the particles themselves moved into block order, every
//! [`DEFAULT_INTERVAL`] substeps (`SimState::reorder_interval`), so that the passes that walk
//! particles in block order (the sorted P2G kernels, g2p2g, and g2p, which goes through
//! `particle_order` on the binned paths) read and write consecutive memory instead of gathering.
//! Two passes, recorded at the end of that substep's `sort` compute pass (so `powder bench`
//! counts them in the sort stage):
//!
//! | pass | file | does |
//! | --- | --- | --- |
//! | `reorder` | `shaders/mpm/reorder.wgsl` | particle `particle_order[k]` → place k of the scratch streams; `particle_order` := identity |
//! | `reorder_copy` | `shaders/mpm/reorder_copy.wgsl` | the scratch streams back into the particle streams |
//!
//! Each particle carries its index in the host's order (`particle_id`), and
//! [`super::particles::ParticleBuffers::read`] puts the particles back by it: readbacks, exports
//! and the CPU twin see the scene's order whatever the GPU did. The sums P2G makes are integers,
//! whose order does not matter, so a reordered run is bit-identical to one that is not
//! (`tests/sorted_path.rs`).
//!
//! Between reorders a particle may leave its block; the sort still finds it through
//! `particle_order`, its read is just not coalesced with its block's until the next reorder.
//! CPU twin: [`super::particles::unpermute`] and the sort's twin, which the tests combine.
//!
//! Cost: each reorder reads and writes every stream twice (gather into the scratch, copy back),
//! about 4 × 172 bytes per particle; docs/performance.md has what it saves.

use super::shaders::MpmPass;
use super::state::SimState;
use super::step::{Dispatch, thread_count};

/// Substeps between reorders for a new solver (`POWDER_REORDER=N` overrides it; 0 turns the
/// reorder off). Measured in docs/performance.md.
pub const DEFAULT_INTERVAL: u32 = 64;

/// The interval a new solver starts with: [`DEFAULT_INTERVAL`] unless `POWDER_REORDER` names one.
pub fn default_interval() -> u32 {
    std::env::var("POWDER_REORDER").ok().and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_INTERVAL)
}

/// The two dispatches of a reorder, one thread per particle each, to follow the sort's.
pub fn dispatches(state: &SimState) -> [(MpmPass, Dispatch); 2] {
    [MpmPass::Reorder, MpmPass::ReorderCopy].map(|pass| (pass, Dispatch::Threads(thread_count(pass, state))))
}
