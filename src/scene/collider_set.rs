//! A scene's colliders as a [`ColliderSet`]: each collider's description with the model its
//! `gltf` shape names and the clip that animates it, on the scene's grid.

use crate::collider::config::ColliderShape;
use crate::collider::set::{ColliderSet, PlacedCollider};

use super::error::SceneError;
use super::format::Scene;

impl ColliderSet {
    /// The colliders of `scene` on its grid. Fails if a glTF model the scene names is not loaded
    /// or an animation clip is missing (both of which loading and validating the scene rule out).
    /// `source` names the scene in messages.
    pub fn from_scene(scene: &Scene, source: &str) -> Result<Self, SceneError> {
        let mut placed = Vec::new();
        for (i, config) in scene.colliders.iter().enumerate() {
            let model = match &config.shape {
                ColliderShape::Gltf { path } => {
                    Some(scene.assets.model(path).cloned().ok_or_else(|| SceneError::Asset {
                        source_name: source.to_string(),
                        field: format!("colliders[{i}].shape.path"),
                        message: format!("{} was not loaded", path.display()),
                    })?)
                }
                _ => None,
            };
            let clip = match (&model, &config.animation) {
                (Some(m), Some(a)) => Some(m.find_animation(&a.clip).map_err(|e| SceneError::Asset {
                    source_name: source.to_string(),
                    field: format!("colliders[{i}].animation.clip"),
                    message: e.to_string(),
                })?),
                _ => None,
            };
            placed.push(PlacedCollider { config: config.clone(), model, clip });
        }
        Ok(ColliderSet::new(placed, scene.grid_spec()))
    }
}
