//! Reading a scene: the file's text parsed, the files it refers to loaded, every field checked.

use std::path::Path;

use super::assets::SceneAssets;
use super::error::SceneError;
use super::format::{BUILTIN_DEFAULT_JSON, Scene};
use super::{shape, validate};

impl Scene {
    /// Reads, parses and validates the scene file at `path`, and loads the files it refers to
    /// (relative to the scene file's folder).
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let text = crate::fsio::read_text_limited(path, crate::fsio::SCENE_FILE_LIMIT)
            .map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_json_at(&text, &path.display().to_string(), base)
    }

    /// Parses and validates scene JSON whose relative paths start from the working directory.
    /// `source` names the text in messages (usually a file name). A UTF-8 byte order mark at the
    /// start is ignored, as when reading a file.
    pub fn from_json(text: &str, source: &str) -> Result<Scene, SceneError> {
        Self::from_json_at(text, source, Path::new("."))
    }

    /// Parses scene JSON, loads the files it refers to (relative to `base_dir`) and validates it.
    pub fn from_json_at(text: &str, source: &str, base_dir: &Path) -> Result<Scene, SceneError> {
        // Editors on Windows start files with a byte order mark; it is not part of the JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let parse = |e: serde_json::Error| SceneError::parse(source, &e);
        let mut scene: Scene = serde_json::from_str(text).map_err(parse)?;
        let doc: serde_json::Value = serde_json::from_str(text).map_err(parse)?;
        scene.check_shape(&doc, source)?;
        scene.assets = SceneAssets::load(&scene.colliders, &scene.emitters, base_dir, None, source)?;
        scene.validate(source)?;
        Ok(scene)
    }

    /// The built-in default scene: `scenes/snowball_wall.json`, compiled into the binary.
    pub fn builtin_default() -> Scene {
        Self::from_json(BUILTIN_DEFAULT_JSON, "<built-in default scene>")
            .expect("the built-in default scene is valid (tested in tests/scene_files.rs)")
    }

    /// Checks every field against its allowed range, that emitters lie inside the domain, and that
    /// each emitter makes at least one particle. `source` names the scene in messages.
    pub fn validate(&self, source: &str) -> Result<(), SceneError> {
        validate::validate(self, source)
    }

    /// Refuses a `doc` (the JSON this scene was parsed from) that writes a section as a list of
    /// values or a field as `null` ([`shape`]).
    pub(crate) fn check_shape(&self, doc: &serde_json::Value, source: &str) -> Result<(), SceneError> {
        let canonical = serde_json::to_value(self).map_err(|e| SceneError::Shape {
            source_name: source.to_string(),
            field: "the scene".to_string(),
            message: e.to_string(),
        })?;
        shape::check(doc, &canonical, source)
    }
}
