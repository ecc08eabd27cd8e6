//! Two rules of the scene format that serde's derive cannot state: every section is a JSON object
//! with named fields (the derive also takes a list of the values in field order, so a bare
//! 13-number list would pass for a scene), and no field is `null` (an optional field left out has
//! its default; `null` would mean the same through serde, but nothing in the format is written so).
//!
//! Checked after typed parsing by walking the document as written next to the parsed scene written
//! back: where the scene has an object, the document must have one too.

use serde_json::Value;

use super::error::SceneError;

/// Checks `doc` (the document as written) against `canonical` (the scene it parsed to, serialised).
/// `source` names the scene in messages.
pub(crate) fn check(doc: &Value, canonical: &Value, source: &str) -> Result<(), SceneError> {
    let mut path = String::new();
    match walk(doc, Some(canonical), &mut path) {
        None => Ok(()),
        Some(found) => {
            let field = if path.is_empty() { "the scene".to_string() } else { path };
            let message = match found {
                Found::List => "expected an object with named fields ({\"name\": value, ...}), found a list",
                Found::Null => "null is not a value of the scene format; leave the field out to get its default",
            };
            Err(SceneError::Shape { source_name: source.to_string(), field, message: message.to_string() })
        }
    }
}

enum Found {
    List,
    Null,
}

/// The first place, depth first, where `doc` has a null or a list where `canonical` has an object;
/// `path` is left naming it. `canonical` is `None` under fields the scene does not write back (an
/// optional field at its default), where only nulls are looked for.
fn walk(doc: &Value, canonical: Option<&Value>, path: &mut String) -> Option<Found> {
    match (doc, canonical) {
        (Value::Null, _) => Some(Found::Null),
        (Value::Array(_), Some(Value::Object(_))) => Some(Found::List),
        (Value::Object(fields), _) => {
            for (key, value) in fields {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                let inner = canonical.and_then(|c| c.get(key));
                if let Some(found) = walk(value, inner, path) {
                    return Some(found);
                }
                path.truncate(len);
            }
            None
        }
        (Value::Array(items), _) => {
            let inner = canonical.and_then(Value::as_array);
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(found) = walk(item, inner.and_then(|c| c.get(i)), path) {
                    return Some(found);
                }
                path.truncate(len);
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_for_objects_and_nulls_are_named_by_path() {
        let canonical = json!({"domain": {"size": [1, 1, 1]}, "emitters": [{"shape": "box"}]});
        let err = |doc: Value| check(&doc, &canonical, "x.json").unwrap_err().to_string();
        assert_eq!(
            err(json!({"domain": [[1, 1, 1]]})),
            "x.json: domain: expected an object with named fields ({\"name\": value, ...}), found a list"
        );
        assert!(err(json!({"emitters": [["box"]]})).starts_with("x.json: emitters[0]: expected an object"));
        assert!(err(json!([1, 2])).starts_with("x.json: the scene: expected an object"));
        assert!(err(json!({"max_speed": null})).starts_with("x.json: max_speed: null is not a value"));
        assert!(err(json!({"extra": {"deep": [null]}})).starts_with("x.json: extra.deep[0]: null"));
        assert!(check(&json!({"domain": {"size": [1, 1, 1]}}), &canonical, "x.json").is_ok());
    }
}
