//! Scenes on disk: opening a path (a scene file or a bare glTF model), the files to watch for
//! automatic reload, and the `scenes/*.json` files the Scene panel lists.

use std::path::{Path, PathBuf};

use powder::scene::Scene;

use crate::app::events::SceneSource;
use crate::app::run::presets::builtin_scene;

/// What [`open`] made of a source.
pub struct Opened {
    /// The scene, validated, its files loaded.
    pub scene: Scene,
    /// Its name in messages, the title and the report: the path, or the built-in scene's title.
    pub name: String,
}

/// Loads `source`: a built-in scene, a scene file (`.json`, or any other name: it is read as
/// JSON), or a `.glb`/`.gltf` model wrapped in a default scene ([`Scene::open`]). The error is one
/// line naming the file and, where there is one, the field.
pub fn open(source: &SceneSource) -> Result<Opened, String> {
    match source {
        SceneSource::Builtin(name) => {
            let scene = builtin_scene(name).map_err(|e| e.to_string())?;
            Ok(Opened { scene, name: format!("built-in scene '{name}'") })
        }
        SceneSource::File(path) => {
            let scene = Scene::open(path).map_err(|e| e.to_string())?;
            Ok(Opened { scene, name: path.display().to_string() })
        }
    }
}

/// The files whose changes reload a scene opened from `source`: the file itself and every glTF
/// file it refers to. None for built-in scenes.
pub fn watched_files(source: &SceneSource, scene: &Scene) -> Vec<PathBuf> {
    match source {
        SceneSource::Builtin(_) => Vec::new(),
        SceneSource::File(path) => std::iter::once(path.clone()).chain(scene.assets.files()).collect(),
    }
}

/// Where the command line's scene came from: `main` names a scene file by its path, so a name
/// that is an existing file is one (then it is watched and can be reloaded); anything else is the
/// built-in default.
pub fn source_of_name(name: &str) -> SceneSource {
    let path = PathBuf::from(name);
    if path.is_file() {
        SceneSource::File(path)
    } else {
        SceneSource::Builtin(crate::app::run::presets::BUILTIN_SCENES[0].0)
    }
}

/// The folders whose `*.json` files the Scene panel lists: `scenes/` in the working directory,
/// of the repository the binary was built from, and of the binary's folder and the three above
/// it; each folder once (by its canonical path), in that order.
pub fn scene_folders() -> Vec<PathBuf> {
    let mut candidates = vec![PathBuf::from("scenes"), Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")];
    if let Ok(exe) = std::env::current_exe() {
        // A checkout moved after the build (the path above is then gone): target/debug/powder
        // has it two folders up, target/<triple>/release/powder three.
        candidates.extend(exe.ancestors().skip(1).take(4).map(|dir| dir.join("scenes")));
    }
    let mut folders: Vec<PathBuf> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for dir in candidates {
        let Ok(canonical) = dir.canonicalize() else { continue };
        if canonical.is_dir() && !seen.contains(&canonical) {
            seen.push(canonical);
            folders.push(dir);
        }
    }
    folders
}

/// The `*.json` files in `folders`, sorted by name within each folder, folders in order.
pub fn scene_files(folders: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in folders {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("json")))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_scenes_are_listed_once_each() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let files = scene_files(std::slice::from_ref(&repo));
        let names: Vec<_> = files.iter().filter_map(|p| p.file_name()?.to_str()).collect();
        for expected in ["block_drop.json", "ramp_wall.json", "figure_walk.json", "blade_plow.json"] {
            assert!(names.contains(&expected), "{expected} missing from {names:?}");
        }
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted: {names:?}");
        // The working directory of `cargo test` is the repository: its scenes/ is found once.
        let folders = scene_folders();
        let canonical: Vec<_> = folders.iter().filter_map(|f| f.canonicalize().ok()).collect();
        let repo = repo.canonicalize().expect("scenes/ exists");
        assert_eq!(canonical.iter().filter(|f| **f == repo).count(), 1, "{folders:?}");
    }

    #[test]
    fn files_open_by_extension_and_errors_name_the_file_and_field() {
        let dir = tempfile::tempdir().expect("temp dir");
        let scene = dir.path().join("broken.json");
        let text = include_str!("../../../scenes/ramp_wall.json").replace("../assets/ramp.glb", "missing_ramp.glb");
        std::fs::write(&scene, text).expect("write");
        let err = open(&SceneSource::File(scene.clone())).err().expect("a missing model is refused");
        assert!(err.contains("broken.json") && err.contains("colliders[0].shape.path"), "{err}");
        assert!(err.contains("missing_ramp.glb"), "{err}");
        let ramp = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/ramp.glb");
        let opened = open(&SceneSource::File(ramp.clone())).expect("a bare model opens");
        let watched = watched_files(&SceneSource::File(ramp.clone()), &opened.scene);
        assert!(!watched.is_empty() && watched.iter().all(|f| *f == ramp), "{watched:?}");
        assert_eq!(opened.name, ramp.display().to_string());
    }
}
