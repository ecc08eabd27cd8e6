//! The scene's rules for its integrator: the settings' ranges, and what a water scene may hold.

use super::error::SceneError;
use super::format::Scene;
use crate::sim::material::MaterialKind;

/// The integrator's settings in their ranges; under `flip` some emitter's material liquid and the
/// volume correction's rest packing the scene's own.
pub(crate) fn integrator_rules(scene: &Scene, source: &str) -> Result<(), SceneError> {
    if let Err(e) = scene.integrator.validate() {
        let (field, value, allowed) = e.parts();
        return Err(SceneError::invalid(source, format!("integrator.{field}"), &value, allowed));
    }
    let Some(water) = scene.integrator.water() else { return Ok(()) };
    // Water's step moves the liquid as water and leaves the other materials to MPM beside it
    // (src/sim/solver/mixed.rs): a scene of it needs some liquid. The scene's own material matters
    // only where an emitter takes it.
    let liquid = |m: &crate::sim::material::SnowMaterial| m.kind == MaterialKind::Liquid;
    let any_liquid = scene.emitters.iter().any(|e| liquid(e.material().unwrap_or(&scene.material)));
    if !any_liquid {
        let kind = format!("{:?}", scene.material.kind).to_lowercase();
        return Err(SceneError::invalid(
            source,
            "material.kind",
            kind,
            "liquid, for one emitter at least: integrator.kind \"flip\" steps the liquid as water (other \
             materials step by MPM beside it)",
        ));
    }
    // The volume correction keeps the packing the particles start at.
    let packing = scene.particles_per_cell as f64;
    if water.particles_per_cell != packing {
        return Err(SceneError::invalid(
            source,
            "integrator.particles_per_cell",
            water.particles_per_cell,
            format!("{packing}, the scene's particles_per_cell (the packing the volume correction keeps)"),
        ));
    }
    Ok(())
}
