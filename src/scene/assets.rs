//! The files a scene refers to (glTF colliders and mesh emitters), loaded once when the scene
//! loads and shared by every copy of the scene.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::emitter::Emitter;
use super::error::SceneError;
use crate::collider::config::{ColliderConfig, ColliderShape};
use crate::mesh::GltfModel;

/// The glTF models of a scene, keyed by the path as written in the scene file.
#[derive(Clone, Default)]
pub struct SceneAssets {
    /// The folder relative paths start from: the scene file's folder.
    pub base_dir: PathBuf,
    models: BTreeMap<PathBuf, Arc<GltfModel>>,
}

impl fmt::Debug for SceneAssets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SceneAssets").field("base_dir", &self.base_dir).field("models", &self.models.keys()).finish()
    }
}

/// Two scenes with the same fields refer to the same files; the loaded copies need not be compared.
impl PartialEq for SceneAssets {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Every file path a scene's colliders and emitters refer to, with the field naming it.
fn referenced<'a>(colliders: &'a [ColliderConfig], emitters: &'a [Emitter]) -> Vec<(String, &'a Path)> {
    let colliders = colliders.iter().enumerate().filter_map(|(i, c)| match &c.shape {
        ColliderShape::Gltf { path } => Some((format!("colliders[{i}].shape.path"), path.as_path())),
        _ => None,
    });
    let emitters = emitters.iter().enumerate().filter_map(|(i, e)| match e {
        Emitter::Mesh { path, .. } => Some((format!("emitters[{i}].path"), path.as_path())),
        _ => None,
    });
    colliders.chain(emitters).collect()
}

impl SceneAssets {
    /// Loads every file a scene's `colliders` and `emitters` refer to, relative to `base_dir`.
    /// Files already in `previous` (the scene before an override) are reused, not read again.
    pub fn load(
        colliders: &[ColliderConfig],
        emitters: &[Emitter],
        base_dir: &Path,
        previous: Option<&SceneAssets>,
        source: &str,
    ) -> Result<SceneAssets, SceneError> {
        let mut models = BTreeMap::new();
        for (field, path) in referenced(colliders, emitters) {
            if models.contains_key(path) {
                continue;
            }
            let reused = previous.filter(|p| p.base_dir == base_dir).and_then(|p| p.models.get(path)).cloned();
            let model = match reused {
                Some(m) => m,
                None => Arc::new(GltfModel::load(&base_dir.join(path)).map_err(|e| SceneError::Asset {
                    source_name: source.to_string(),
                    field: field.clone(),
                    message: e.to_string(),
                })?),
            };
            models.insert(path.to_path_buf(), model);
        }
        Ok(SceneAssets { base_dir: base_dir.to_path_buf(), models })
    }

    /// The model loaded for `path` (as written in the scene).
    pub fn model(&self, path: &Path) -> Option<&Arc<GltfModel>> {
        self.models.get(path)
    }

    /// The files on disk, for watching them.
    pub fn files(&self) -> Vec<PathBuf> {
        self.models.keys().map(|p| self.base_dir.join(p)).collect()
    }
}
