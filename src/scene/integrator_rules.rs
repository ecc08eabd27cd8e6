//! The scene's rules for its integrator: the settings' ranges, and what a water scene may hold.

use super::error::SceneError;
use super::format::Scene;
use crate::sim::material::MaterialKind;

/// The integrator's settings in their ranges; under `flip` every material liquid and the volume
/// correction's rest packing the scene's own.
pub(crate) fn integrator_rules(scene: &Scene, source: &str) -> Result<(), SceneError> {
    if let Err(e) = scene.integrator.validate() {
        let (field, value, allowed) = e.parts();
        return Err(SceneError::invalid(source, format!("integrator.{field}"), &value, allowed));
    }
    let Some(water) = scene.integrator.water() else { return Ok(()) };
    // Water's step moves every particle as water: a scene of it holds nothing else. The scene's
    // own material matters only where an emitter takes it.
    let own =
        scene.emitters.iter().any(|e| e.material().is_none()).then(|| ("material.kind".to_string(), &scene.material));
    let emitters = scene
        .emitters
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((format!("emitters[{i}].material.kind"), e.material()?)));
    for (field, m) in own.into_iter().chain(emitters) {
        if m.kind != MaterialKind::Liquid {
            let kind = format!("{:?}", m.kind).to_lowercase();
            return Err(SceneError::invalid(
                source,
                field,
                kind,
                "liquid: integrator.kind \"flip\" steps every particle as water",
            ));
        }
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
