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

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use crate::sim::page::ParticlePage;
use crate::sim::passes::MpmPass;
use crate::sim::record::Dispatch;
use crate::sim::record::{Items, item_threads};

/// Substeps between reorders for a new solver (`POWDER_REORDER=N` overrides it; 0 turns the
/// reorder off). Measured in docs/performance.md.
pub const DEFAULT_INTERVAL: u32 = 64;

/// The interval a new solver starts with: [`DEFAULT_INTERVAL`] unless `POWDER_REORDER` names one.
pub fn default_interval() -> u32 {
    let Ok(value) = std::env::var("POWDER_REORDER") else {
        return DEFAULT_INTERVAL;
    };
    value.trim().parse().unwrap_or_else(|_| {
        log::warn!("POWDER_REORDER={value:?} is not a whole number of substeps (0: never); using {DEFAULT_INTERVAL}");
        DEFAULT_INTERVAL
    })
}

/// Counts recorded substeps and says which of them reorder: every `interval`-th (0: none), and
/// the first one after it is made (a new particle set goes into block order at its first sort).
#[derive(Debug)]
pub struct ReorderClock {
    interval: u32,
    /// Substeps since the last reorder. Atomic only so that substeps can be recorded through a
    /// shared reference; there is one recorder at a time.
    since: AtomicU32,
}

impl ReorderClock {
    /// A clock whose first tick reorders (where `interval` > 0).
    pub fn new(interval: u32) -> Self {
        Self { interval, since: AtomicU32::new(u32::MAX) }
    }

    /// Substeps between reorders (0: never).
    pub fn interval(&self) -> u32 {
        self.interval
    }

    /// Changes the interval; the substeps counted since the last reorder still count.
    pub fn set_interval(&mut self, interval: u32) {
        self.interval = interval;
    }

    /// Counts one substep and says whether it reorders.
    pub fn tick(&self) -> bool {
        if self.interval == 0 {
            return false;
        }
        let since = self.since.load(Relaxed).saturating_add(1);
        let due = since >= self.interval;
        self.since.store(if due { 0 } else { since }, Relaxed);
        due
    }
}

/// Rounds of a reorder: the shares of a particle's streams moved one after another
/// (`shaders/mpm/reorder.wgsl` lists them).
pub const ROUNDS: u32 = 4;

/// Bytes of the scratch per particle: the widest share (C or F, three 16-byte columns), the
/// `REORDER_SLOTS` slots of `types.wgsl`.
pub const SCRATCH_BYTES_PER_PARTICLE: u64 = 48;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn ticks(clock: &ReorderClock, n: usize) -> Vec<bool> {
        (0..n).map(|_| clock.tick()).collect()
    }

    #[test]
    fn the_clock_reorders_at_once_then_every_interval() {
        let (t, f) = (true, false);
        assert_eq!(ticks(&ReorderClock::new(3), 7), [t, f, f, t, f, f, t]);
        assert_eq!(ticks(&ReorderClock::new(1), 3), [t, t, t]);
        assert_eq!(ticks(&ReorderClock::new(0), 3), [f, f, f]);
        // Two substeps into an interval of 4, a change to 3 reorders at the next one.
        let mut clock = ReorderClock::new(4);
        assert_eq!(ticks(&clock, 3), [t, f, f]);
        clock.set_interval(3);
        assert_eq!(ticks(&clock, 4), [t, f, f, t]);
        // Turned off and on again, it picks up where it was.
        clock.set_interval(0);
        assert_eq!(ticks(&clock, 2), [f, f]);
        clock.set_interval(2);
        assert_eq!(ticks(&clock, 2), [f, t]);
    }
}
