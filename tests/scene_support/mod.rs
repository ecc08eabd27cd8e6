//! What the scene-file tests share: a valid scene document to break in one place, and assertions
//! on the error each kind of bad input gets.

// Each test file uses some of these; the rest would warn as unused there.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use powder::scene::{Scene, SceneError};
use serde_json::{Value, json};

pub fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

/// A valid scene document to break in one place per test.
pub fn base() -> Value {
    json!({
        "version": 1,
        "domain": { "size": [2.0, 1.0, 1.0] },
        "grid": { "resolution": 20 },
        "emitters": [
            { "shape": "sphere", "center": [0.5, 0.5, 0.5], "radius": 0.2, "velocity": [3, 0, 0] },
            { "shape": "box", "min": [1.2, 0.2, 0.0], "max": [1.8, 0.8, 0.4] }
        ]
    })
}

pub fn load(doc: &Value) -> Result<Scene, SceneError> {
    Scene::from_json(&doc.to_string(), "x.json")
}

pub fn modified(edit: impl FnOnce(&mut Value)) -> Result<Scene, SceneError> {
    let mut doc = base();
    edit(&mut doc);
    load(&doc)
}

/// Asserts an `Invalid` error on `field` whose message states `allowed`.
pub fn assert_invalid(result: Result<Scene, SceneError>, field: &str, allowed: &str) {
    let err = result.expect_err("scene should be rejected");
    let message = err.to_string();
    match &err {
        SceneError::Invalid { field: f, allowed: a, source_name, .. } => {
            assert_eq!((f.as_str(), a.as_str(), source_name.as_str()), (field, allowed, "x.json"));
        }
        other => panic!("expected Invalid for {field}, got {other:?}"),
    }
    assert!(message.starts_with("x.json: ") && message.contains(field) && message.contains(allowed));
}

pub fn assert_parse(text: &str, needles: &[&str]) -> (usize, usize) {
    let err = Scene::from_json(text, "x.json").expect_err("should not parse");
    let message = err.to_string();
    let SceneError::Parse { line, column, .. } = err else { panic!("expected Parse, got {err:?}") };
    assert!(message.starts_with(&format!("x.json:{line}:{column}: ")), "{message}");
    for n in needles {
        assert!(message.contains(n), "{message:?} lacks {n:?}");
    }
    (line, column)
}

/// `base()` with the value at JSON pointer `pointer` set (object keys are added if missing).
pub fn with(pointer: &str, value: Value) -> Result<Scene, SceneError> {
    let (parent, key) = pointer.rsplit_once('/').expect("a JSON pointer");
    modified(|d| match d.pointer_mut(parent).expect("pointer into base()") {
        Value::Array(items) => items[key.parse::<usize>().expect("an index")] = value,
        object => object[key] = value,
    })
}
