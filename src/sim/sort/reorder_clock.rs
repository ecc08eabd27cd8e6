//! When the binned paths reorder the particles ([`ReorderClock`]) and what a reorder's scratch
//! takes: the parts of [`super::reorder`] that the pages and the capacity check need, kept apart
//! from its dispatches, which need the pages.

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

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
