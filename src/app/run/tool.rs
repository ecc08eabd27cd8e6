//! The mouse tool: right drag grabs the snow under the cursor and carries it, release throws it;
//! with repel on (or Ctrl held) it pushes snow away instead.
//!
//! A grab starts with a pick (the nearest particle near the cursor ray) and from then on moves in
//! the plane through that point facing the camera, so the snow stays at the depth it was caught.
//! The solver's tool acts on grid nodes in a sphere around the cursor point, blending their
//! velocity toward the cursor's velocity. That velocity is measured per *simulated* second: when
//! the simulation runs slower than real time the snow still keeps up with the cursor.

use glam::Vec3;

use powder::gpu::Gpu;
use powder::sim::interaction::{Interaction, InteractionMode};
use powder::sim::{Solver, SolverError};

use crate::app::events::{ToolSettings, ViewRay};

/// Weight of the newest velocity sample (the rest is the previous estimate): smooths the jitter of
/// per-frame mouse steps without lagging a throw by more than a couple of frames.
const VELOCITY_SMOOTHING: f32 = 0.5;

/// A tool being held.
#[derive(Clone, Copy, Debug)]
struct Held {
    repel: bool,
    /// A point of the drag plane and its normal (the camera's forward vector at the start).
    plane_point: Vec3,
    plane_normal: Vec3,
    /// Where the cursor ray meets the plane now.
    center: Vec3,
    /// Cursor movement in the plane since the last frame's substeps.
    moved: Vec3,
    /// Smoothed cursor velocity, m per simulated second.
    velocity: Vec3,
}

/// The tool's settings and, while the right button is held, its state.
#[derive(Default)]
pub struct Tool {
    /// Radius, strength, repel speed.
    pub settings: ToolSettings,
    held: Option<Held>,
    /// The solver currently has a tool set (so releasing must clear it).
    applied: bool,
}

impl Tool {
    /// Whether the tool is held on some snow.
    pub fn is_held(&self) -> bool {
        self.held.is_some()
    }

    /// Picks the snow under `ray` within `pick_radius`; returns whether there was any. A miss
    /// leaves the tool idle.
    pub fn start(
        &mut self,
        gpu: &Gpu,
        solver: &Solver,
        ray: ViewRay,
        repel: bool,
        pick_radius: f32,
    ) -> Result<bool, SolverError> {
        let Some(distance) = solver.pick(gpu, ray.origin, ray.direction, pick_radius)? else {
            self.held = None;
            return Ok(false);
        };
        let point = ray.origin + ray.direction * distance;
        self.held = Some(Held {
            repel,
            plane_point: point,
            plane_normal: ray.forward,
            center: point,
            moved: Vec3::ZERO,
            velocity: Vec3::ZERO,
        });
        Ok(true)
    }

    /// Moves the tool to where `ray` meets its drag plane.
    pub fn drag(&mut self, ray: ViewRay) {
        let Some(held) = &mut self.held else { return };
        let facing = ray.direction.dot(held.plane_normal);
        if facing.abs() < 1e-4 {
            return; // the ray runs along the plane: no sensible point
        }
        let t = (held.plane_point - ray.origin).dot(held.plane_normal) / facing;
        if t > 0.0 {
            let point = ray.origin + ray.direction * t;
            held.moved += point - held.center;
            held.center = point;
        }
    }

    /// Where the held tool acts, for drawing it: centre, radius (metres) and whether it repels.
    pub fn sphere(&self) -> Option<(Vec3, f32, bool)> {
        self.held.map(|h| (h.center, self.settings.radius, h.repel))
    }

    /// Releases the tool; grabbed snow keeps its velocity.
    pub fn end(&mut self) {
        self.held = None;
    }

    /// Sets the solver's tool for the substeps of this frame, which advance `sim_advance` simulated
    /// seconds. `max_speed` bounds the target velocity.
    pub fn apply(&mut self, gpu: &Gpu, solver: &mut Solver, sim_advance: f64, max_speed: f64) {
        let settings = self.settings;
        match &mut self.held {
            Some(held) => {
                // Without substeps this frame (paused, or real time waiting for a whole dt) the
                // movement keeps accumulating for the next frame that simulates.
                if sim_advance > 0.0 {
                    let sample = held.moved / sim_advance as f32;
                    held.moved = Vec3::ZERO;
                    held.velocity = (VELOCITY_SMOOTHING * sample + (1.0 - VELOCITY_SMOOTHING) * held.velocity)
                        .clamp_length_max(0.5 * max_speed as f32);
                }
                let mode = if held.repel { InteractionMode::Repel } else { InteractionMode::Grab };
                solver.set_interaction(
                    gpu,
                    Interaction {
                        mode,
                        center: held.center,
                        radius: settings.radius,
                        velocity: held.velocity,
                        repel_speed: settings.repel_speed,
                        rate: settings.rate,
                    },
                );
                self.applied = true;
            }
            None if self.applied => {
                solver.set_interaction(gpu, Interaction::default());
                self.applied = false;
            }
            None => {}
        }
    }

    /// Forgets the tool without touching a solver (the solver was replaced).
    pub fn forget(&mut self) {
        self.held = None;
        self.applied = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dragging_moves_in_the_plane_facing_the_camera() {
        let held = Held {
            repel: false,
            plane_point: Vec3::new(0.0, 0.0, 1.0),
            plane_normal: Vec3::new(0.0, 0.0, -1.0),
            center: Vec3::new(0.0, 0.0, 1.0),
            moved: Vec3::ZERO,
            velocity: Vec3::ZERO,
        };
        let mut tool = Tool { held: Some(held), ..Tool::default() };
        let ray = ViewRay {
            origin: Vec3::new(0.5, 0.0, 0.0),
            direction: Vec3::new(0.0, 0.0, 1.0),
            forward: Vec3::new(0.0, 0.0, -1.0),
        };
        tool.drag(ray);
        let held = tool.held.expect("held");
        assert!((held.center - Vec3::new(0.5, 0.0, 1.0)).length() < 1e-6, "{}", held.center);
        assert!((held.moved - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-6);
    }
}
