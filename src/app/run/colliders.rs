//! The scene's colliders in the app: handed to the solver once per frame for the frame's simulated
//! span, drawn at the current time, and an animation clock the user can hold and scrub.
//!
//! Collider time is the stepper's simulated time plus an offset the time scrubber sets. Holding
//! the animation freezes collider time (the snow keeps simulating against colliders that stand
//! still, with zero surface velocity); playing again continues from the held time.

use glam::Vec3;

use powder::collider::set::ColliderSet;
use powder::gpu::Gpu;
use powder::mesh::TriangleMesh;
use powder::runner::upload_colliders;
use powder::scene::{Scene, SceneError};
use powder::sim::params::GridSpec;
use powder::sim::{Solver, SolverError};

/// The scrubber's range when the colliders move by keyframes or clips of no length, seconds.
const DEFAULT_ANIMATION_RANGE: f64 = 10.0;

/// Collider time as a function of simulated time: `sim_time + offset` while playing, a fixed
/// time while held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AnimationClock {
    playing: bool,
    offset: f64,
    held: f64,
}

impl Default for AnimationClock {
    fn default() -> Self {
        Self { playing: true, offset: 0.0, held: 0.0 }
    }
}

impl AnimationClock {
    /// Collider time at simulated time `sim_time`, seconds.
    pub fn time(&self, sim_time: f64) -> f64 {
        if self.playing { sim_time + self.offset } else { self.held }
    }

    /// Whether collider time follows simulated time.
    pub fn playing(&self) -> bool {
        self.playing
    }

    /// Plays or holds the animation, continuing from where it is at `sim_time`.
    pub fn set_playing(&mut self, on: bool, sim_time: f64) {
        if on == self.playing {
            return;
        }
        if on {
            self.offset = self.held - sim_time;
        } else {
            self.held = self.time(sim_time);
        }
        self.playing = on;
    }

    /// Makes collider time `t` at simulated time `sim_time` (playing or held).
    pub fn scrub(&mut self, t: f64, sim_time: f64) {
        if self.playing {
            self.offset = t - sim_time;
        } else {
            self.held = t;
        }
    }

    /// Time back to zero with the simulation (a reset); playing or held stays as it was.
    pub fn restart(&mut self) {
        (self.offset, self.held) = (0.0, 0.0);
    }
}

/// The colliders of the running scene and what the solver and the renderer last got.
pub struct SceneColliders {
    set: ColliderSet,
    clock: AnimationClock,
    count: usize,
    range: f64,
    /// The collider frame last given to the solver, to skip giving a held pose again.
    uploaded: Option<(f64, f64)>,
    /// The collider time of the meshes last drawn; `None` until they are drawn at all.
    drawn_at: Option<f64>,
    /// Giving the solver the colliders failed once; the snow runs without them (said once).
    failed: bool,
}

impl SceneColliders {
    /// The colliders of `scene` (named `source` in errors).
    pub fn new(scene: &Scene, source: &str) -> Result<Self, SceneError> {
        let set = ColliderSet::from_scene(scene, source)?;
        // The scrubber covers the longest clip after its start and the last keyframe.
        let clip_end = set.clip_duration().map(|d| {
            let start = scene.colliders.iter().filter_map(|c| c.animation.as_ref()).map(|a| a.offset);
            d + start.fold(0.0, f64::max)
        });
        let key_end = scene.colliders.iter().filter_map(|c| c.keyframes.as_ref()?.keys.last()).map(|k| k.time);
        let end = key_end.chain(clip_end).fold(0.0, f64::max);
        let range = if end > 0.0 { end } else { DEFAULT_ANIMATION_RANGE };
        Ok(Self {
            set,
            clock: AnimationClock::default(),
            count: scene.colliders.len(),
            range,
            uploaded: None,
            drawn_at: None,
            failed: false,
        })
    }

    /// Gives the solver the collider frame of the substeps about to run: simulated time
    /// `sim_time` to `sim_time + span`. Static colliders go once (again after the solver dropped
    /// them: a reset or a new grid); a held animation goes once per pose.
    pub fn upload(&mut self, gpu: &Gpu, solver: &mut Solver, sim_time: f64, span: f64) -> Result<(), SolverError> {
        if self.set.is_empty() || self.failed {
            return Ok(());
        }
        let (t0, t1) = (self.clock.time(sim_time), self.clock.time(sim_time + span));
        if solver.collider_count() > 0 && self.uploaded == Some((t0, t1)) && t0 == t1 {
            return Ok(());
        }
        let result = upload_colliders(gpu, solver, &mut self.set, t0, t1);
        self.failed = result.is_err();
        self.uploaded = Some((t0, t1));
        result
    }

    /// The meshes to draw now (simulated time `sim_time`), if they changed since the last call:
    /// always the first time (an empty list then removes the previous scene's), then whenever an
    /// animated collider's time moved.
    pub fn meshes_to_draw(&mut self, sim_time: f64) -> Option<Vec<TriangleMesh>> {
        let t = self.clock.time(sim_time);
        let stale = match self.drawn_at {
            None => true,
            Some(drawn) => self.set.is_animated() && drawn != t,
        };
        if !stale {
            return None;
        }
        self.drawn_at = Some(t);
        Some(self.set.meshes_at(t))
    }

    /// Each collider's bounding box at simulated time `sim_time`, in scene order (`None` for one
    /// with nothing to draw).
    pub fn bounds(&self, sim_time: f64) -> Vec<Option<(Vec3, Vec3)>> {
        self.set.meshes_at(self.clock.time(sim_time)).iter().map(TriangleMesh::bounds).collect()
    }

    /// Time back to zero (a reset: the solver has dropped its colliders).
    pub fn restart(&mut self) {
        self.clock.restart();
        (self.uploaded, self.drawn_at, self.failed) = (None, None, false);
    }

    /// The simulation moved to `grid` (the solver has dropped its colliders).
    pub fn set_grid(&mut self, grid: GridSpec) {
        self.set.set_grid(grid);
        (self.uploaded, self.drawn_at, self.failed) = (None, None, false);
    }

    /// Plays or holds the animation at simulated time `sim_time`.
    pub fn set_playing(&mut self, on: bool, sim_time: f64) {
        self.clock.set_playing(on, sim_time);
    }

    /// Moves the animation to collider time `t` at simulated time `sim_time`.
    pub fn scrub(&mut self, t: f64, sim_time: f64) {
        self.clock.scrub(t, sim_time);
    }

    /// Takes over the play/hold choice of `old` (a reloaded scene), from time zero.
    pub fn keep_choices_of(&mut self, old: &SceneColliders) {
        self.clock.playing = old.clock.playing;
    }

    /// The animation clock.
    pub fn clock(&self) -> &AnimationClock {
        &self.clock
    }
    /// Colliders in the scene.
    pub fn count(&self) -> usize {
        self.count
    }
    /// Whether any collider moves (the animation controls are shown).
    pub fn is_animated(&self) -> bool {
        self.set.is_animated()
    }
    /// The time scrubber's range, seconds: the end of the longest clip or the last keyframe.
    pub fn range(&self) -> f64 {
        self.range
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holding_freezes_collider_time_and_playing_continues_from_it() {
        let mut clock = AnimationClock::default();
        assert_eq!(clock.time(0.5), 0.5, "playing from the start follows simulated time");
        clock.set_playing(false, 0.5);
        assert_eq!((clock.time(0.5), clock.time(2.0)), (0.5, 0.5), "held");
        clock.scrub(1.25, 2.0);
        assert_eq!(clock.time(3.0), 1.25, "scrubbed while held");
        clock.set_playing(true, 3.0);
        assert_eq!(clock.time(3.0), 1.25, "no jump when playing again");
        assert!((clock.time(3.5) - 1.75).abs() < 1e-12);
        clock.scrub(0.0, 4.0);
        assert!((clock.time(4.5) - 0.5).abs() < 1e-12, "scrubbed while playing");
        clock.restart();
        assert_eq!(clock.time(0.0), 0.0);
    }
}
