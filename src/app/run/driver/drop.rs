//! The drop tool's work on the driver: a ball of a material preset joins the running scene.

use glam::{DVec3, Vec3};

use powder::gpu::Gpu;
use powder::scene::Emitter;
use powder::sim::params::MAX_MATERIALS;

use super::Driver;
use crate::app::events::ViewRay;
use crate::app::run::messages::Messages;

impl Driver {
    /// Drops a ball of the preset `id` where `ray` meets the snow (or the domain's floor): the
    /// ball, of the tool's radius, resting on that point, joins the scene as an emitter with the
    /// preset as its own material, and its particles join the running simulation.
    pub(super) fn drop_blob(&mut self, gpu: &Gpu, ray: ViewRay, id: &str, messages: &mut Messages) {
        let Some(preset) = powder::sim::presets::preset_by_id(id) else {
            return messages.error(format!("no ball dropped: no material preset {id:?}"));
        };
        if self.scene.emitters.len() >= MAX_MATERIALS {
            let n = self.scene.emitters.len();
            messages.error(format!("no ball dropped: the scene has {n} emitters, and materials of their own go to the first {MAX_MATERIALS}"));
            return;
        }
        let hit = match self.solver.pick(gpu, ray.origin, ray.direction, self.spacing as f32) {
            Ok(hit) => hit,
            Err(e) => return messages.error(format!("picking failed: {e}")),
        };
        let spec = self.scene.grid_spec();
        let (lo, hi) = (spec.domain_min.as_vec3(), spec.domain_max().as_vec3());
        // Nothing under the cursor: the floor of the domain, if the ray comes down to it.
        let floor = (ray.direction.z < 0.0).then(|| (lo.z - ray.origin.z) / ray.direction.z).filter(|d| *d > 0.0);
        let Some(distance) = hit.or(floor) else {
            return messages.info("no ball dropped: neither snow nor the floor under the cursor");
        };
        let radius = (self.tool.settings.radius as f64).max(2.0 * self.spacing);
        let r = radius as f32;
        let point = ray.origin + ray.direction * distance + Vec3::Z * r;
        let center = point.clamp(lo + Vec3::splat(r), (hi - Vec3::splat(r)).max(lo + Vec3::splat(r)));
        let mut scene = self.scene.clone();
        scene.version = scene.version.max(3);
        scene.emitters.push(Emitter::Sphere {
            center: center.as_dvec3(),
            radius,
            velocity: DVec3::ZERO,
            material: Some(preset.material),
            pour: None,
        });
        let index = scene.emitters.len() - 1;
        let added = scene.validate("the scene with the ball").and_then(|()| scene.emitter_particles(index, "the ball"));
        let particles = match added {
            Ok(particles) => particles,
            Err(e) => return messages.error(format!("no ball dropped: {e}")),
        };
        let mut params = *self.solver.params();
        let fresh = scene.solver_params();
        params.emitter_materials = fresh.emitter_materials;
        // The densest material present sets the fixed-point scale of the grid's mass sums.
        params.fixed_point = fresh.fixed_point;
        // The particles first: if they cannot be added, the solver keeps its state and its table.
        let result = self.solver.append_particles(gpu, &particles).and_then(|()| self.solver.set_params(gpu, params));
        match result {
            Ok(()) => {
                messages.info(format!(
                    "dropped a ball of {} ({} particles) as emitter {index}",
                    preset.name,
                    particles.len()
                ));
                self.scene = scene;
            }
            Err(e) => messages.error(format!("no ball dropped: {e}")),
        }
    }
}
