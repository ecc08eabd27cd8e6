//! Saving the running scene: the scene as loaded with the panel's edits (material, gravity, grid
//! resolution, integrator, time step) and a `view` section with the camera and render settings,
//! written as a scene file that loads back to the same state.

use std::path::{Path, PathBuf};

use powder::render::{Camera, RenderSettings};
use powder::scene::view::{CameraConfig, RenderConfig, ViewConfig};
use powder::scene::{ColliderShape, Emitter, SCENE_VERSION, Scene, TimeStep};

/// The scene to write at `to`: `scene` (the running one, edits included) with the time step the
/// panel uses (`auto_dt`, else `fixed_dt` seconds) and the view. Model files named relative to
/// `from_dir` (the folder of the scene file it was loaded from) are named so that they are found
/// from `to`'s folder: unchanged when both folders are the same, absolute otherwise.
pub fn scene_to_save(
    scene: &Scene,
    (auto_dt, fixed_dt): (bool, f64),
    camera: &Camera,
    render: &RenderSettings,
    from_dir: &Path,
    to: &Path,
) -> Scene {
    let mut saved = scene.clone();
    // Version 2 reads everything version 1 has; a file the app writes is always the current one.
    saved.version = SCENE_VERSION;
    saved.time.dt = if auto_dt { TimeStep::Auto } else { TimeStep::Fixed(fixed_dt) };
    saved.view = Some(ViewConfig { camera: Some(CameraConfig::of(camera)), render: Some(RenderConfig::of(render)) });
    let to_dir = folder_of(to);
    if absolute(from_dir) != absolute(&to_dir) {
        let rebase = |path: &mut PathBuf| {
            if path.is_relative() {
                *path = absolute(&from_dir.join(&*path));
            }
        };
        for emitter in &mut saved.emitters {
            if let Emitter::Mesh { path, .. } = emitter {
                rebase(path);
            }
        }
        for collider in &mut saved.colliders {
            if let ColliderShape::Gltf { path } = &mut collider.shape {
                rebase(path);
            }
        }
    }
    saved
}

/// Writes `scene` as JSON at `path` (a `.json` name is the convention, not required).
pub fn write(scene: &Scene, path: &Path) -> Result<(), String> {
    std::fs::write(path, scene.to_json() + "\n")
        .map_err(|e| format!("cannot save the scene to {}: {e}", absolute(path).display()))
}

/// The folder a file is in (`.` for a bare name).
pub fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` made absolute against the working directory (unchanged if that cannot be read).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
#[path = "save_tests.rs"]
mod tests;
