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
    // (src/sim/solver/mixed.rs): a scene of it needs liquid from the start (were the first
    // particles all snow, the water step would take them for water). The scene's own material
    // matters only where an emitter takes it.
    let kind_of = |e: &super::emitter::Emitter| e.material().unwrap_or(&scene.material).kind;
    let from_start = |e: &&super::emitter::Emitter| e.pour().is_none_or(|p| p.start <= 0.0);
    if !scene.emitters.iter().filter(from_start).any(|e| kind_of(e) == MaterialKind::Liquid) {
        let mut kinds: Vec<String> =
            scene.emitters.iter().filter(from_start).map(|e| format!("{:?}", kind_of(e)).to_lowercase()).collect();
        kinds.dedup();
        let value = if kinds.is_empty() { "no emitter at time 0".to_string() } else { kinds.join(", ") };
        return Err(SceneError::invalid(
            source,
            "material.kind",
            value,
            "liquid, for one emitter at least that fills at time 0: integrator.kind \"flip\" steps the \
             liquid as water (other materials step by MPM beside it)",
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
