//! From a glTF file's JSON to a `gltf::Document` that the crate's readers can walk without
//! panicking, accepting what the glTF 2.0 spec allows and powder can use.
//!
//! The steps, in order: required extensions (so a file powder cannot read says why first), parsing,
//! every index checked against its array (the crate's validation indexes a POSITION accessor
//! unchecked and never checks a channel's target node), accessors without data given zeros, then
//! the crate's own validation.

use std::path::Path;

use gltf::json::{self, Root};
use serde_json::{Value, json};

use super::error::label;
use super::indices::check_indices;
use crate::fsio::GLTF_FILE_LIMIT;

/// A parsed document and what loading it needs to know besides.
pub(crate) struct Parsed {
    pub document: gltf::Document,
    /// The buffer added to hold the zeros of accessors that have neither `bufferView` nor `sparse`.
    pub zero_buffer: Option<usize>,
    /// For each animation, the file's index of each channel kept (channels without a target node
    /// are dropped), so messages name channels as the file numbers them.
    pub channel_numbers: Vec<Vec<usize>>,
}

/// Why loading failed, before buffers are read.
pub(crate) enum Refusal {
    /// Not JSON, or JSON that is not a glTF document.
    Parse(String),
    /// A required extension powder cannot honour: its name and why.
    Extension(String, String),
    /// A glTF document whose content is wrong.
    Invalid(String),
}

/// Required extensions that change what powder reads in ways it cannot follow, with the reason.
const REFUSED: &[(&str, &str)] = &[
    ("KHR_draco_mesh_compression", "Draco-compressed meshes, which powder cannot decode; export without Draco"),
    ("EXT_meshopt_compression", "meshoptimizer-compressed buffers, which powder cannot decode; export without them"),
    ("KHR_meshopt_compression", "meshoptimizer-compressed buffers, which powder cannot decode; export without them"),
    ("EXT_mesh_gpu_instancing", "GPU-instanced nodes, which powder does not import"),
];

/// Whether powder honours required extension `name`: quantized positions are read, and materials,
/// textures, lights and metadata play no part in a collider or emitter.
fn honoured(name: &str) -> bool {
    const PREFIXES: &[&str] = &["KHR_materials_", "KHR_texture_", "EXT_texture_", "MSFT_texture_"];
    matches!(name, "KHR_mesh_quantization" | "KHR_lights_punctual" | "KHR_xmp_json_ld")
        || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
}

/// The target paths of glTF 2.0 animation channels.
const NODE_PROPERTIES: &[&str] = &["translation", "rotation", "scale", "weights"];

/// The largest element any accessor has (a MAT4 of f32): the zeros one sparse value needs.
const ZEROS: usize = 64;

/// Parses the JSON document of the file at `path` (used in warnings).
pub(crate) fn parse(text: &[u8], path: &Path) -> Result<Parsed, Refusal> {
    let mut value: Value =
        serde_json::from_slice(text).map_err(|e| Refusal::Parse(format!("the JSON does not parse: {e}")))?;
    check_required_extensions(&value)?;
    let (dropped, channel_numbers) = drop_unreadable_channels(&mut value, path);
    // Without changes the text is parsed again, so errors keep their line and column.
    let root: Result<Root, _> = if dropped {
        serde_json::from_value(value)
    } else {
        drop(value);
        serde_json::from_slice(text)
    };
    let mut root = root.map_err(|e| Refusal::Parse(format!("not a glTF 2.0 document: {e}")))?;
    check_indices(&root, &channel_numbers).map_err(Refusal::Invalid)?;
    let zero_buffer = fill_dataless_accessors(&mut root).map_err(Refusal::Invalid)?;
    validate(&root).map_err(Refusal::Invalid)?;
    Ok(Parsed { document: gltf::Document::from_json_without_validation(root), zero_buffer, channel_numbers })
}

fn check_required_extensions(value: &Value) -> Result<(), Refusal> {
    let required = value.get("extensionsRequired").and_then(Value::as_array).into_iter().flatten();
    for name in required.filter_map(Value::as_str) {
        if let Some((_, reason)) = REFUSED.iter().find(|(refused, _)| *refused == name) {
            return Err(Refusal::Extension(name.into(), format!("for {reason}")));
        }
        if !honoured(name) {
            let reason = "which powder does not know, so it cannot tell how the extension changes the geometry";
            return Err(Refusal::Extension(name.into(), reason.into()));
        }
    }
    Ok(())
}

/// Removes animation channels powder cannot follow, with a warning each: those whose target names
/// no node, and those whose target path is not a node property (KHR_animation_pointer's `pointer`),
/// both allowed for extensions powder does not read. Returns whether any went, and the file's
/// numbers of the channels kept.
fn drop_unreadable_channels(value: &mut Value, path: &Path) -> (bool, Vec<Vec<usize>>) {
    let mut dropped = false;
    let Some(animations) = value.get_mut("animations").and_then(Value::as_array_mut) else {
        return (false, Vec::new());
    };
    let numbers = animations
        .iter_mut()
        .enumerate()
        .map(|(a, animation)| {
            let name = label("animation", a, animation.get("name").and_then(Value::as_str));
            let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) else {
                return Vec::new();
            };
            let (total, mut n) = (channels.len(), 0);
            let mut kept = Vec::new();
            channels.retain(|channel| {
                n += 1;
                // A missing or malformed target is left for the parser to report.
                let Some(target) = channel.get("target").filter(|target| target.is_object()) else {
                    kept.push(n - 1);
                    return true;
                };
                let skipped = match target.get("path").and_then(Value::as_str) {
                    _ if target.get("node").is_none() => "has no target node".to_string(),
                    Some(property) if !NODE_PROPERTIES.contains(&property) => {
                        format!("animates {property:?}, not a node property")
                    }
                    _ => {
                        kept.push(n - 1);
                        return true;
                    }
                };
                log::warn!("{}: {name} channel {} {skipped}; skipped", path.display(), n - 1);
                false
            });
            dropped |= kept.len() < total;
            kept
        })
        .collect();
    (dropped, numbers)
}

/// Gives every accessor with neither `bufferView` nor `sparse` the zeros the spec says it holds,
/// as a sparse accessor of one zero element over zero base data, so the crate's readers read it
/// like any other. Returns the index of the added buffer of zeros, if one was needed.
fn fill_dataless_accessors(root: &mut Root) -> Result<Option<usize>, String> {
    let dataless: Vec<usize> = (root.accessors.iter().enumerate())
        .filter(|(_, accessor)| accessor.buffer_view.is_none() && accessor.sparse.is_none())
        .map(|(a, _)| a)
        .collect();
    if dataless.is_empty() {
        return Ok(None);
    }
    for &a in &dataless {
        let accessor = &root.accessors[a];
        // Zeros cost nothing in the file, so their count is bounded as a buffer's bytes are.
        let (json::validation::Checked::Valid(kind), json::validation::Checked::Valid(ty)) =
            (&accessor.component_type, &accessor.type_)
        else {
            continue;
        };
        let bytes = accessor.count.0.saturating_mul((kind.0.size() * ty.multiplicity()) as u64);
        if bytes > GLTF_FILE_LIMIT {
            return Err(format!(
                "{} has no data (zeros) but its {} elements take {bytes} bytes, more than the {GLTF_FILE_LIMIT} a \
                 buffer may hold",
                label("accessor", a, accessor.name.as_deref()),
                accessor.count.0
            ));
        }
    }
    let (buffer, view) = (root.buffers.len(), root.buffer_views.len());
    // Constant JSON of the crate's own types: these conversions cannot fail.
    root.buffers.push(serde_json::from_value(json!({ "byteLength": ZEROS })).expect("a valid buffer"));
    let view_json = json!({ "buffer": buffer, "byteLength": ZEROS });
    root.buffer_views.push(serde_json::from_value(view_json).expect("a valid buffer view"));
    let sparse = json!({ "count": 1, "indices": { "bufferView": view, "componentType": 5121 }, "values": { "bufferView": view } });
    let sparse: json::accessor::sparse::Sparse = serde_json::from_value(sparse).expect("a valid sparse accessor");
    for a in dataless {
        root.accessors[a].sparse = Some(sparse.clone());
    }
    Ok(Some(buffer))
}

/// The `gltf` crate's validation, less what powder checks itself (required extensions) or does not
/// use (the `min` and `max` the spec asks of POSITION accessors: powder takes its own bounds).
fn validate(root: &Root) -> Result<(), String> {
    use json::validation::Validate;
    let mut errors = Vec::new();
    root.validate(root, json::Path::new, &mut |path, error| {
        let path = path();
        let path = path.as_str();
        let bounds = path.ends_with(r#"attributes["POSITION"].min"#) || path.ends_with(r#"attributes["POSITION"].max"#);
        if !path.starts_with("extensionsRequired") && !bounds {
            errors.push(format!("{path}: {error}"));
        }
    });
    const SHOWN: usize = 4;
    match errors.len() {
        0 => Ok(()),
        n => {
            let more = if n > SHOWN { format!("; and {} more", n - SHOWN) } else { String::new() };
            Err(format!("the document breaks the glTF 2.0 schema: {}{more}", errors[..n.min(SHOWN)].join("; ")))
        }
    }
}
