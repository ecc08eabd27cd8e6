//! `key=value` overrides of scene fields, e.g. `material.youngs_modulus=5e4` or
//! `emitters.0.velocity=[4,0,0]`, applied through the scene's JSON form so that every field is
//! reachable and parsed exactly as in a file.

use serde_json::Value;

use super::assets::SceneAssets;
use super::error::SceneError;
use super::format::Scene;
use super::validate;

/// What the value text of an override is.
enum Parsed {
    Json(Value),
    /// A number JSON cannot hold (NaN, ±infinity, 1e999).
    NonFinite,
}

impl Scene {
    /// Sets the field at the dotted path `key` to `value` and re-validates; on error the scene is
    /// unchanged.
    ///
    /// Path segments are object keys or list indices (`emitters.0.radius`; `emitters[0].radius`
    /// works too); a component of a 3-vector may be named `x`, `y` or `z` (`gravity.z=-3.7`). No
    /// segment may be empty (`material..density` is refused). The value is parsed as JSON (`5e4`,
    /// `[1,2,3]`, `"auto"`, `true`); text that is not JSON is taken as a string
    /// (`boundary.kind=sticky`, `time.dt=auto`), except where a number goes: there it must be a
    /// JSON number (`0.5`, not `.5` or `+0.5`), or `NaN`/`inf`, which are refused with the field's
    /// range. `null` and a list where the format wants an object are refused, as in a file.
    /// `source` names the scene in messages.
    pub fn set_value(&mut self, key: &str, value: &str, source: &str) -> Result<(), SceneError> {
        let fail = |message: String| SceneError::Override {
            source_name: source.to_string(),
            key: key.to_string(),
            value: value.to_string(),
            message,
        };
        let mut root = serde_json::to_value(&*self).map_err(|e| fail(e.to_string()))?;
        let normalized = key.replace('[', ".").replace(']', "");
        let segments: Vec<&str> = normalized.split('.').collect();
        if normalized.is_empty() {
            return Err(fail("the key is empty".to_string()));
        }
        if segments.iter().any(|s| s.is_empty()) {
            let why = "the key has an empty segment (two dots in a row, or a dot at either end); \
                       write fields as material.density or emitters.0.radius";
            return Err(fail(why.to_string()));
        }
        // Choosing a preset chooses all of the material: the scene's JSON form spells out every
        // field, which would otherwise override the preset's (`material.preset` in a file only
        // starts from it).
        if segments == ["material", "preset"] {
            root["material"] = serde_json::json!({ "preset": value.trim() });
        }
        let mut field = String::new();
        let mut slot = &mut root;
        for (n, segment) in segments.iter().enumerate() {
            let last = n + 1 == segments.len();
            slot = match slot {
                Value::Object(map) => {
                    if !field.is_empty() {
                        field.push('.');
                    }
                    field.push_str(segment);
                    // A field the scene leaves out (an optional section such as `view`, or a field
                    // of one) is added: empty, if the path goes on into it, so that the section
                    // takes its defaults for the rest. A name that is no field is refused below,
                    // when the scene is parsed back, with the fields there are.
                    let absent = if last { Value::Null } else { Value::Object(Default::default()) };
                    map.entry(segment.to_string()).or_insert(absent)
                }
                Value::Array(items) => {
                    let is_vector = items.len() == 3 && items.iter().all(Value::is_number);
                    let index = match (*segment, is_vector) {
                        ("x", true) => Some(0),
                        ("y", true) => Some(1),
                        ("z", true) => Some(2),
                        _ => segment.parse::<usize>().ok(),
                    };
                    let len = items.len();
                    let Some(item) = index.and_then(|i| items.get_mut(i)) else {
                        let what = format!("{field} has {len} entries; {segment:?} is not an index");
                        return Err(fail(what));
                    };
                    let i = index.unwrap_or_default();
                    if is_vector {
                        field.push('.');
                        field.push_str(["x", "y", "z"][i]);
                    } else {
                        field.push_str(&format!("[{i}]"));
                    }
                    item
                }
                _ => return Err(fail(format!("{field} has no field {segment:?}"))),
            };
        }
        match parse_value(value, slot).map_err(fail)? {
            Parsed::Json(v) => *slot = v,
            Parsed::NonFinite => {
                let allowed = validate::allowed_for(self, &field).unwrap_or_else(|| "a finite number".to_string());
                return Err(SceneError::invalid(source, field, value.trim(), allowed));
            }
        }
        let mut scene: Scene = serde_json::from_value(root.clone()).map_err(|e| fail(e.to_string()))?;
        scene.check_shape(&root, source)?;
        scene.assets = SceneAssets::load(
            &scene.colliders,
            &scene.emitters,
            &self.assets.base_dir.clone(),
            Some(&self.assets),
            source,
        )?;
        scene.validate(source)?;
        *self = scene;
        Ok(())
    }
}

/// `text` as JSON if it is JSON; else, where a number is expected, [`Parsed::NonFinite`] for the
/// numbers JSON cannot hold (`NaN`, `inf`, `1e999`) and an error for other numbers JSON does not
/// write (`.5`, `+5`, `5.`); else a string.
fn parse_value(text: &str, current: &Value) -> Result<Parsed, String> {
    let text = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Ok(Parsed::Json(v));
    }
    // Strings stay strings (`name=inf`), except time.dt, which holds "auto" or a number.
    let numeric = !current.is_string() || current.as_str() == Some("auto");
    match text.parse::<f64>() {
        Ok(x) if numeric && !x.is_finite() => Ok(Parsed::NonFinite),
        Ok(_) if numeric => Err(format!(
            "{text} is not a number as JSON writes it: digits with an optional leading minus, a \
             fraction after a digit and an exponent, e.g. 0.5, 5, -2e-3"
        )),
        _ => Ok(Parsed::Json(Value::String(text.to_string()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::config::TimeStep;
    use crate::scene::emitter::Emitter;

    #[test]
    fn overrides_reach_nested_fields() {
        let mut s = Scene::builtin_default();
        s.set_value("material.youngs_modulus", "5e4", "t").unwrap();
        assert_eq!(s.material.youngs_modulus, 5e4);
        s.set_value("gravity.z", "-3.7", "t").unwrap();
        assert_eq!(s.gravity.z, -3.7);
        s.set_value("time.dt", "auto", "t").unwrap();
        assert_eq!(s.time.dt, TimeStep::Auto);
        s.set_value("time.dt", "0.0005", "t").unwrap();
        assert_eq!(s.time.dt, TimeStep::Fixed(5e-4));
        s.set_value("emitters[0].velocity", "[1, 2, 3]", "t").unwrap();
        assert_eq!(s.emitters[0].velocity().to_array(), [1.0, 2.0, 3.0]);
        s.set_value("max_speed", "70", "t").unwrap();
        assert_eq!(s.max_speed, Some(70.0));
        s.set_value("name", "nan", "t").unwrap();
        assert_eq!(s.name, "nan");
        s.set_value("boundary.kind", "sticky", "t").unwrap();
    }

    #[test]
    fn bad_overrides_leave_the_scene_alone() {
        let mut s = Scene::builtin_default();
        let before = s.clone();
        let err = s.set_value("emitters.0.radius", "-inf", "cli").unwrap_err().to_string();
        assert_eq!(err, "cli: emitters[0].radius = -inf is out of range: allowed > 0");
        let err = s.set_value("time.dt", "inf", "cli").unwrap_err().to_string();
        assert_eq!(err, "cli: time.dt = inf is out of range: allowed \"auto\" or (0, 0.1]");
        let err = s.set_value("gravity.1", "NaN", "cli").unwrap_err().to_string();
        assert!(err.contains("gravity.y = NaN"), "{err}");
        assert!(matches!(s.set_value("material.nope", "1", "cli"), Err(SceneError::Override { .. })));
        assert!(matches!(s.set_value("nope.x", "1", "cli"), Err(SceneError::Override { .. })));
        assert!(matches!(s.set_value("emitters.9.radius", "1", "cli"), Err(SceneError::Override { .. })));
        assert!(matches!(s.set_value("grid.resolution", "2", "cli"), Err(SceneError::Invalid { .. })));
        assert!(matches!(s.emitters[0], Emitter::Sphere { .. }));
        assert_eq!(s, before);
    }
}
