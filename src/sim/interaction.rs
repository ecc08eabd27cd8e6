//! Grabbing and pushing snow with the mouse. The force acts on the grid, in `grid_update`, so the
//! snow responds as a material: nodes inside a sphere have their velocity blended toward a target
//! (the mouse's velocity when grabbing, outward when repelling), and the stress carries that to the
//! rest of the snow.

use glam::Vec3;

/// What the user's tool does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum InteractionMode {
    /// No tool.
    #[default]
    None,
    /// Nodes in the sphere move toward `velocity` (drag to carry snow, release to throw it).
    Grab,
    /// Nodes in the sphere move outward from the centre at `repel_speed`.
    Repel,
}

impl InteractionMode {
    /// The code `grid_update.wgsl` compares against (`INTERACTION_*` in `types.wgsl`).
    pub fn gpu_code(self) -> u32 {
        match self {
            InteractionMode::None => 0,
            InteractionMode::Grab => 1,
            InteractionMode::Repel => 2,
        }
    }
}

/// The tool's state for the next substeps.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Interaction {
    /// Grab, repel or nothing.
    pub mode: InteractionMode,
    /// Centre of the sphere of influence, metres.
    pub center: Vec3,
    /// Radius of the sphere, metres.
    pub radius: f32,
    /// Target velocity of grabbed snow, m/s.
    pub velocity: Vec3,
    /// Outward speed of repelled snow, m/s.
    pub repel_speed: f32,
    /// How fast node velocities approach the target, 1/s: each substep blends by
    /// `(1 − exp(−rate·dt)) · falloff`, so the result does not depend on the substep count.
    pub rate: f32,
}

impl Interaction {
    /// The node velocity `v` of a node at `position` after the tool acted for `dt` seconds (f64, as
    /// the CPU twin uses it; `grid_update.wgsl` does the same in f32).
    pub fn apply(&self, v: glam::DVec3, position: glam::DVec3, dt: f64) -> glam::DVec3 {
        if self.mode == InteractionMode::None {
            return v;
        }
        let offset = position - self.center.as_dvec3();
        let r = offset.length();
        let radius = self.radius as f64;
        if r >= radius {
            return v;
        }
        let q = r / radius;
        let falloff = (1.0 - q * q).powi(2);
        let target = match self.mode {
            InteractionMode::Grab => self.velocity.as_dvec3(),
            _ if r > 0.0 => offset / r * self.repel_speed as f64,
            _ => glam::DVec3::ZERO,
        };
        let blend = (1.0 - (-(self.rate as f64) * dt).exp()) * falloff;
        v + (target - v) * blend
    }
}
