//! The binned paths' reorder (sorted and fused): the particles themselves moved into block order
//! every [`DEFAULT_INTERVAL`] substeps ([`ReorderClock`]), so that the passes that walk particles
//! in block order (the sorted P2G kernels and g2p2g, through `particle_order`) read and write
//! consecutive memory instead of gathering, and g2p can take the particle at its own place
//! (`SolverPath::particle_order`). Two passes, run in [`ROUNDS`] rounds at the end of that
//! substep's `sort` compute pass (so `powder bench` counts them in the sort stage):
//!
//! | pass | file | does |
//! | --- | --- | --- |
//! | `reorder` | `shaders/mpm/reorder.wgsl` | one share of particle `particle_order[k]`'s streams → place k of the scratch |
//! | `reorder_copy` | `shaders/mpm/reorder_copy.wgsl` | that share back into the streams; after the last round, order := identity |
//!
//! A round moves one share of every particle: position, velocity, Jp, material and host index;
//! then C; then F; then τ. The scratch holds one share ([`SCRATCH_BYTES_PER_PARTICLE`], the widest)
//! instead of all the streams: 48 bytes per particle instead of 172, which is 35 % less GPU memory
//! per particle in all ([`crate::sim::capacity::particle_bytes`]). The round is the passes' immediate data
//! ([`crate::sim::record::Dispatch::Round`]).
//!
//! Each particle carries its index in the host's order (`particle_id`), and
//! [`crate::sim::particles::ParticleBuffers::read`] puts the particles back by it
//! ([`crate::sim::particles::join`]): readbacks, exports and the CPU twin see the scene's order
//! whatever the GPU did. The sums P2G makes are integers, whose order does not matter, so a
//! reordered run is bit-identical to one that is not; `tests/sorted_path.rs` checks that, and that
//! a reorder moves every particle once into the block order of the sort's CPU twin.
//!
//! Between reorders a particle may leave its block; the sort still finds it through
//! `particle_order`, its read is just not coalesced with its block's until the next reorder.
//!
//! Cost: each reorder reads and writes every stream twice (gather into the scratch, copy back),
//! about 4 × 172 bytes per particle, in eight dispatches; docs/performance.md has what it costs
//! and saves.

pub use super::reorder_clock::{DEFAULT_INTERVAL, ROUNDS, ReorderClock, SCRATCH_BYTES_PER_PARTICLE, default_interval};
use crate::sim::page::ParticlePage;
use crate::sim::passes::MpmPass;
use crate::sim::record::Dispatch;
use crate::sim::record::{Items, item_threads};

/// The dispatches of a reorder, to follow the sort's: `reorder` then `reorder_copy` for each
/// round, one thread per particle each.
pub fn dispatches(state: &ParticlePage) -> Vec<(MpmPass, Dispatch)> {
    (0..ROUNDS)
        .flat_map(|round| {
            [MpmPass::Reorder, MpmPass::ReorderCopy]
                .map(|pass| (pass, Dispatch::Round { threads: item_threads(Items::Particles, state), round }))
        })
        .collect()
}
