//! Emitters that keep emitting (format v4, an emitter's `pour` section): from `start` to `end` an
//! emitter fills its shape again and again, each fill a *batch* of the same particles, so that a
//! stream leaves it at its velocity: water from a spout, sand from a hopper, honey poured.
//!
//! Batch k is born at `t_k = start + k·period`. A batch moves out of the shape at the emitter's
//! speed `|v|` in `L / |v|` seconds, `L` the shape's length along `v`, so with that period the
//! batches tile a continuous stream at the fill's density; a `rate` (m³/s) below the shape's own
//! flow `V |v| / L` stretches the period to `V_batch / rate`. The state at scene time `t` holds every
//! batch born at or before `t`: the solver is given the batches born during a frame at the frame's
//! end (the app: as the next frame starts), each moved as a body thrown at `v` under gravity would
//! have moved since its birth, so where a frame boundary falls does not change the stream. That
//! makes emission a function of time alone: a bake resumed from a checkpoint, or the app's
//! timeline gone back a few frames, pours on as if it had never stopped.

use glam::{DVec3, Vec3};
use serde::{Deserialize, Serialize};

use crate::sim::params::GpuParticle;

/// An emitter's `pour` section: when it emits, and how fast.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pour {
    /// When the first batch is born, seconds of scene time (0: with the scene's other particles).
    #[serde(default)]
    pub start: f64,
    /// No batch is born at or after this time, seconds.
    pub end: f64,
    /// Volume emitted per second, m³/s; `None`: the shape's own flow, its volume times its speed
    /// over its length along its velocity (the largest rate whose batches do not overlap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
}

impl Pour {
    /// `(period, batches)`: seconds between births and how many batches are born, for a shape
    /// `length` m long along its velocity of `speed` m/s (> 0) whose fill holds `volume` m³.
    pub fn batches(&self, length: f64, speed: f64, volume: f64) -> (f64, u64) {
        let own = length / speed;
        let period = self.rate.map_or(own, |rate| (volume / rate).max(own));
        let span = (self.end - self.start) / period;
        // A window that is a whole number of periods long does not hold one more birth at its end.
        let batches = if span > 0.0 && span.is_finite() { (span - 1e-6).ceil().max(1.0) as u64 } else { 0 };
        (period, batches)
    }
}

/// The length of an axis-aligned box of edge lengths `extent` along the unit direction `dir`: how
/// far it must move along `dir` to leave the place it was in.
pub fn length_along(extent: DVec3, dir: DVec3) -> f64 {
    extent.x * dir.x.abs() + extent.y * dir.y.abs() + extent.z * dir.z.abs()
}

/// One pouring emitter's batches.
#[derive(Clone, Debug, PartialEq)]
struct Source {
    /// Its particles as each batch is born (positions at birth).
    batch: Vec<GpuParticle>,
    /// Birth time of the first batch, seconds.
    start: f64,
    /// Seconds between births.
    period: f64,
    /// Batches it makes in all.
    batches: u64,
}

impl Source {
    /// Batches born at or before `t` (none before `start`). The tolerance of a millionth of a
    /// period keeps a frame boundary that is meant to fall on a birth from missing it by rounding.
    fn born_by(&self, t: f64) -> u64 {
        let since = (t - self.start) / self.period;
        if since < -1e-6 {
            return 0;
        }
        ((since + 1e-6).floor() as u64 + 1).min(self.batches)
    }
}

/// The batches of a scene's pouring emitters ([`crate::scene::Scene::pour_schedule`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PourSchedule {
    sources: Vec<Source>,
    gravity: DVec3,
    domain: (Vec3, Vec3),
}

impl PourSchedule {
    /// A schedule of no sources under `gravity`, positions kept in the box `domain`.
    pub(crate) fn new(gravity: DVec3, domain: (Vec3, Vec3)) -> Self {
        Self { sources: Vec::new(), gravity, domain }
    }

    /// Adds an emitter of fill `batch` (positions at birth) poured as `pour` says, `length` its
    /// shape's length along its velocity `speed` m/s (> 0), `volume` its fill's volume, m³.
    pub(crate) fn add(&mut self, batch: Vec<GpuParticle>, pour: &Pour, length: f64, speed: f64, volume: f64) {
        let (period, batches) = pour.batches(length, speed, volume);
        self.sources.push(Source { batch, start: pour.start, period, batches });
    }

    /// Whether any emitter pours.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// Particles the pouring emitters make in all.
    pub fn total(&self) -> u64 {
        self.sources.iter().map(|s| s.batches * s.batch.len() as u64).sum()
    }

    /// Particles the pouring emitters have made by scene time `t`.
    pub fn made_by(&self, t: f64) -> u64 {
        self.sources.iter().map(|s| s.born_by(t) * s.batch.len() as u64).sum()
    }

    /// The particles born after `from` and at or before `to` (seconds), as they are at `to`: each
    /// batch born at `t_k` moved by `v τ + g τ²/2` and at velocity `v + g τ`, `τ = to − t_k` (kept
    /// inside the domain), in emitter order, then batch order.
    pub fn born_between(&self, from: f64, to: f64) -> Vec<GpuParticle> {
        let mut out = Vec::new();
        for s in &self.sources {
            for k in s.born_by(from)..s.born_by(to) {
                let tau = (to - (s.start + k as f64 * s.period)).max(0.0);
                let (drift, kick) = (0.5 * self.gravity * tau * tau, self.gravity * tau);
                out.extend(s.batch.iter().map(|p| {
                    let v = DVec3::from(Vec3::from(p.velocity));
                    let x = DVec3::from(Vec3::from(p.position)) + v * tau + drift;
                    let mut q = *p;
                    q.position = x.as_vec3().clamp(self.domain.0, self.domain.1).to_array();
                    q.velocity = (v + kick).as_vec3().to_array();
                    q
                }));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(pour: Pour) -> PourSchedule {
        let p = GpuParticle::new(Vec3::new(0.5, 0.5, 0.5), Vec3::new(0.0, 0.0, -2.0), 1.0, 1.0, 0);
        let mut s = PourSchedule::new(DVec3::new(0.0, 0.0, -10.0), (Vec3::ZERO, Vec3::ONE));
        // A shape 0.1 m long along its velocity of 2 m/s: a batch every 0.05 s at its own flow.
        s.add(vec![p; 3], &pour, 0.1, 2.0, 1e-3);
        s
    }

    #[test]
    fn batches_are_born_each_period_within_the_window() {
        let s = schedule(Pour { start: 0.1, end: 0.3, rate: None });
        // Births at 0.1, 0.15, 0.2, 0.25 (not 0.3): four batches of three.
        assert_eq!(s.total(), 12);
        assert_eq!(s.made_by(0.0), 0);
        assert_eq!(s.made_by(0.1), 3);
        assert_eq!(s.made_by(0.149), 3);
        assert_eq!(s.made_by(0.15), 6);
        assert_eq!(s.made_by(1.0), 12);
        // Frames of 1/30 s: every particle once, whatever the frames.
        let frames: usize = (0..30).map(|f| s.born_between(f as f64 / 30.0, (f + 1) as f64 / 30.0).len()).sum();
        assert_eq!(frames + s.born_between(-1.0, 0.0).len(), 12);
        // A rate of half the shape's own flow (1e-3 m³ over 0.05 s = 0.02 m³/s) doubles the period.
        let slow = schedule(Pour { start: 0.0, end: 0.3, rate: Some(0.01) });
        assert_eq!(slow.made_by(0.0), 3);
        assert_eq!(slow.made_by(0.099), 3);
        assert_eq!(slow.made_by(0.1), 6);
        assert_eq!(slow.total(), 9);
    }

    #[test]
    fn a_batch_moves_as_thrown_since_its_birth() {
        // Born at 0.15, handed over at 0.18: τ = 0.03 s at 2 m/s down, g = 10 m/s² down.
        let s = schedule(Pour { start: 0.1, end: 0.3, rate: None });
        let born = s.born_between(0.13, 0.18);
        assert_eq!(born.len(), 3);
        let tau: f64 = 0.03;
        let z = 0.5 - 2.0 * tau - 0.5 * 10.0 * tau * tau;
        assert!((born[0].position[2] as f64 - z).abs() < 1e-6, "{:?}", born[0].position);
        assert!((born[0].velocity[2] as f64 + 2.0 + 10.0 * tau).abs() < 1e-6, "{:?}", born[0].velocity);
        // Two batches handed over at once (born 0.1 and 0.15, at 0.16): each as thrown since its
        // birth, the older a period's travel and its extra fall further on.
        let both = s.born_between(0.0, 0.16);
        let z = |tau: f64| 0.5 - 2.0 * tau - 5.0 * tau * tau;
        let gap = (both[3].position[2] - both[0].position[2]) as f64;
        assert!((gap - (z(0.01) - z(0.06))).abs() < 1e-6, "{gap}");
    }

    #[test]
    fn a_section_reads_with_defaults_and_refuses_unknown_fields() {
        let p: Pour = serde_json::from_str(r#"{ "end": 2 }"#).expect("pour");
        assert_eq!(p, Pour { start: 0.0, end: 2.0, rate: None });
        assert!(serde_json::from_str::<Pour>(r#"{ "end": 2, "speed": 1 }"#).is_err());
    }
}
