//! glTF import on broken, hostile and unusual-but-valid files: every out-of-range index is an
//! error and never a panic, buffers are read only from the glTF file's folder and never from
//! devices or pipes, what the spec allows and powder can use loads, and what powder cannot read
//! is refused with the real reason first.

#[path = "data/gltf/fixture.rs"]
#[allow(dead_code)] // this file uses part of the fixture shared with gltf_import.rs
mod fixture;

use std::path::{Path, PathBuf};

use fixture::{Fixture, triangle_mesh};
use glam::Vec3;
use powder::mesh::{GltfError, GltfModel};
use serde_json::{Value, json};

/// The glTF component type of i16.
const I16: u32 = 5122;

fn message(path: &Path) -> String {
    match GltfModel::load(path) {
        Ok(_) => panic!("{} loaded", path.display()),
        Err(e) => e.to_string(),
    }
}

/// Rewrites the JSON of the `.gltf` at `path` through `edit`.
fn edit(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    edit(&mut doc);
    std::fs::write(path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// One triangle (glTF (0,0,0), (1,0,0), (0,1,0)) on node 0, as `dir/name.gltf` with `name.bin`.
fn triangle(dir: &Path, name: &str) -> PathBuf {
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let doc = json!({ "scene": 0, "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh] });
    fx.write_gltf(dir, name, &doc)
}

#[test]
fn unresolved_positions_of_the_validator_suite_is_refused_naming_mesh_primitive_and_index() {
    // glTF-Validator test/base/data/mesh/unresolved_positions.gltf, byte for byte in content.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unresolved_positions.gltf");
    let doc =
        json!({ "asset": { "version": "2.0" }, "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }] });
    std::fs::write(&path, doc.to_string()).unwrap();
    let expected = "mesh 0 primitive 0: POSITION names accessor 0, but the file has no accessors";
    assert_eq!(message(&path), format!("{}: {expected}", path.display()));
}

/// A file that uses every kind of index glTF has: scenes, node children, meshes, skins, cameras,
/// attributes, indices, morph targets, materials, textures, samplers, images, animation channels
/// and samplers, sparse accessors, buffer views and buffers.
fn every_index(dir: &Path) -> PathBuf {
    let mut fx = Fixture::default();
    let corners = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let position = fx.positions(&corners);
    let joints = fx.joints(&[[0, 1, 0, 0]; 3]);
    let weights = fx.floats(&[[1.0, 0.0, 0.0, 0.0]; 3].concat(), "VEC4");
    let indices = fx.indices(&[0, 1, 2]);
    let inverse_bind = fx.floats(&[glam::Mat4::IDENTITY.to_cols_array(); 2].concat(), "MAT4");
    let times = fx.floats(&[0.0, 1.0], "SCALAR");
    let moves = fx.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "VEC3");
    let morph = fx.floats(&[0.0; 9], "VEC3");
    let doc = json!({
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "children": [1], "mesh": 0, "camera": 0 }, { "mesh": 1, "skin": 0 }],
        "cameras": [{ "type": "perspective", "perspective": { "yfov": 1.0, "znear": 0.1 } }],
        "meshes": [
            { "primitives": [{ "attributes": { "POSITION": position }, "indices": indices, "material": 0,
                               "targets": [{ "POSITION": morph }] }] },
            { "primitives": [{ "attributes": { "POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights } }] },
        ],
        "skins": [{ "joints": [0, 1], "inverseBindMatrices": inverse_bind, "skeleton": 0 }],
        "animations": [{ "channels": [{ "sampler": 0, "target": { "node": 0, "path": "translation" } }],
                         "samplers": [{ "input": times, "output": moves }] }],
        "materials": [{ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } }],
        "textures": [{ "source": 0, "sampler": 0 }],
        "samplers": [{}],
        "images": [{ "bufferView": 0, "mimeType": "image/png" }],
    });
    let path = fx.write_gltf(dir, "every_index", &doc);
    // A sparse accessor: one element of `moves` replaced at the index `indices` holds first.
    edit(&path, |doc| {
        let sparse = json!({ "count": 1, "indices": { "bufferView": indices, "componentType": 5123 },
                             "values": { "bufferView": moves } });
        let accessors = doc["accessors"].as_array_mut().unwrap();
        accessors
            .push(json!({ "bufferView": moves, "componentType": 5126, "count": 2, "type": "VEC3", "sparse": sparse }));
        doc["meshes"][0]["primitives"][0]["targets"][0]["NORMAL"] = json!(accessors.len() - 1);
    });
    path
}

/// JSON pointers to every index in `value`: fields that name an object of another array.
fn index_pointers(value: &Value, pointer: String, key: &str, out: &mut Vec<String>) {
    const INDEX_KEYS: &[&str] = &[
        "scene",
        "mesh",
        "skin",
        "camera",
        "material",
        "indices",
        "sampler",
        "source",
        "index",
        "bufferView",
        "buffer",
        "node",
        "input",
        "output",
        "skeleton",
        "inverseBindMatrices",
        "POSITION",
        "NORMAL",
        "JOINTS_0",
        "WEIGHTS_0",
    ];
    const INDEX_ARRAYS: &[&str] = &["nodes", "children", "joints"];
    match value {
        Value::Number(_) if INDEX_KEYS.contains(&key) => out.push(pointer),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let key = if INDEX_ARRAYS.contains(&key) && item.is_number() { "index" } else { "" };
                index_pointers(item, format!("{pointer}/{i}"), key, out);
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                index_pointers(field, format!("{pointer}/{name}"), name, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_index_out_of_range_is_an_error_naming_the_file_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let path = every_index(dir.path());
    let original: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    GltfModel::load(&path).unwrap_or_else(|e| panic!("the uncorrupted file must load: {e}"));

    let mut pointers = Vec::new();
    index_pointers(&original, String::new(), "", &mut pointers);
    assert!(pointers.len() >= 30, "{} indices found: {pointers:?}", pointers.len());
    let mut failures = Vec::new();
    for pointer in &pointers {
        for bad in [99u64, u64::from(u32::MAX) - 1] {
            let mut doc = original.clone();
            *doc.pointer_mut(pointer).unwrap() = json!(bad);
            std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
            // The loader must not panic; catching it here lists every index that does.
            match std::panic::catch_unwind(|| GltfModel::load(&path).map(|_| ())) {
                Err(_) => failures.push(format!("{pointer} = {bad}: panicked")),
                Ok(Ok(())) => failures.push(format!("{pointer} = {bad}: loaded")),
                Ok(Err(e)) => {
                    let message = e.to_string();
                    if !message.starts_with(&path.display().to_string()) || !message.contains(&bad.to_string()) {
                        failures.push(format!("{pointer} = {bad}: {message}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn buffer_uris_resolve_only_inside_the_gltf_folder() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("model");
    std::fs::create_dir(&dir).unwrap();
    let path = triangle(&dir, "tri");
    let set_uri = |uri: &str| edit(&path, |doc| doc["buffers"][0]["uri"] = json!(uri));

    // Percent-encoded names and sub-folders inside the folder load.
    std::fs::create_dir(dir.join("sub dir")).unwrap();
    std::fs::copy(dir.join("tri.bin"), dir.join("sub dir/tri copy.bin")).unwrap();
    set_uri("sub%20dir/../sub%20dir/tri%20copy.bin");
    assert_eq!(GltfModel::load(&path).unwrap().rest_mesh().positions.len(), 3);

    // The same bytes one folder up, reached by `..`, by an encoded `..`, by a link, or by an
    // absolute path or a file URI, are refused naming the buffer and its URI.
    std::fs::copy(dir.join("tri.bin"), root.path().join("secret.bin")).unwrap();
    std::os::unix::fs::symlink(root.path().join("secret.bin"), dir.join("link.bin")).unwrap();
    let outside = root.path().canonicalize().unwrap().join("secret.bin");
    let absolute = outside.display().to_string();
    let folder = dir.canonicalize().unwrap();
    let only = "powder reads buffers only from the glTF file's folder or data URIs";
    let resolved = format!("resolves to {}, outside {}; {only}", outside.display(), folder.display());
    let file_uri = format!("file://{absolute}");
    for (uri, why) in [
        ("../secret.bin", resolved.clone()),
        ("%2E%2E/secret.bin", resolved.clone()),
        ("link.bin", resolved),
        (absolute.as_str(), format!("is an absolute path; {only}")),
        (file_uri.as_str(), format!("is not a relative path; {only}")),
    ] {
        set_uri(uri);
        assert_eq!(message(&path), format!("{}: buffer 0 ('{uri}'): {why}", path.display()));
    }
    set_uri("../../../../../../../../etc/passwd");
    let refused = message(&path);
    assert!(
        refused.contains("buffer 0 ('../../../../../../../../etc/passwd'): resolves to /etc/passwd, outside"),
        "{refused}"
    );
}

#[test]
fn devices_and_pipes_are_refused_at_once_as_gltf_and_as_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let not_regular = "not a regular file (a device, pipe or socket); powder reads only regular files";
    let zero = Path::new("/dev/zero");
    assert_eq!(message(zero), format!("/dev/zero: cannot read the file: {not_regular}"));

    let fifo = dir.path().join("pipe.glb");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert!(matches!(GltfModel::load(&fifo), Err(GltfError::Io { .. })));

    // A buffer that is a pipe inside the folder: refused before it is opened (opening blocks).
    let path = triangle(dir.path(), "tri");
    let bin_pipe = dir.path().join("pipe.bin");
    assert!(std::process::Command::new("mkfifo").arg(&bin_pipe).status().unwrap().success());
    edit(&path, |doc| doc["buffers"][0]["uri"] = json!("pipe.bin"));
    let expected =
        format!("buffer 0 ('pipe.bin'): cannot read {}: {not_regular}", bin_pipe.canonicalize().unwrap().display());
    assert_eq!(message(&path), format!("{}: {expected}", path.display()));
}

/// A triangle whose positions are i16 (normalised or not) and whose node scales them back, as
/// gltfpack writes, in a file that requires KHR_mesh_quantization and two material extensions.
#[test]
fn quantized_positions_and_material_extensions_load() {
    let dir = tempfile::tempdir().unwrap();
    for normalized in [true, false] {
        let mut fx = Fixture::default();
        // Each vertex takes 8 bytes: 3 × i16 and the 2 bytes of padding vertex attributes need.
        let corners: [[i16; 4]; 3] = [[0, 0, 0, 0], [32767, 0, -32767, 0], [0, 16384, 0, 0]];
        let bytes: Vec<u8> = corners.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
        let position = fx.accessor(&bytes, I16, 3, "VEC3");
        let scale = if normalized { 2.0 } else { 2.0 / 32767.0 };
        let doc = json!({
            "extensionsUsed": ["KHR_mesh_quantization", "KHR_texture_transform", "KHR_materials_unlit"],
            "extensionsRequired": ["KHR_mesh_quantization", "KHR_texture_transform", "KHR_materials_unlit"],
            "scenes": [{ "nodes": [0] }],
            "nodes": [{ "mesh": 0, "scale": [scale, scale, scale] }],
            "meshes": [{ "primitives": [{ "attributes": { "POSITION": position }, "material": 0 }] }],
            "materials": [{ "extensions": { "KHR_materials_unlit": {} }, "pbrMetallicRoughness": {
                "baseColorTexture": { "index": 0, "extensions": { "KHR_texture_transform": { "scale": [2, 2] } } } } }],
            "textures": [{ "extensions": { "EXT_texture_webp": { "source": 0 } } }],
            "images": [{ "uri": "missing.webp" }],
        });
        let path = fx.write_gltf(dir.path(), "quantized", &doc);
        edit(&path, |doc| {
            doc["bufferViews"][0]["byteStride"] = json!(8);
            doc["accessors"][0]["normalized"] = json!(normalized);
            doc["accessors"][0]["min"] = json!([0, 0, -32767]);
            doc["accessors"][0]["max"] = json!([32767, 16384, 0]);
        });
        let mesh = GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}")).rest_mesh();
        // glTF (2, 0, −2) and (0, 2·16384/32767, 0) after the node's scale; powder is (x, −z, y).
        let expected = [Vec3::ZERO, Vec3::new(2.0, 2.0, 0.0), Vec3::new(0.0, 0.0, 2.0 * 16384.0 / 32767.0)];
        for (got, want) in mesh.positions.iter().zip(expected) {
            assert!((*got - want).abs().max_element() < 1e-5, "normalized {normalized}: {got} vs {want}");
        }
    }
}

#[test]
fn compressed_or_unknown_required_extensions_are_refused_first_naming_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    // A Draco file: its accessors have no bufferView, its primitive the compressed data. Powder
    // must name Draco, not the accessors.
    let draco = dir.path().join("draco.gltf");
    let doc = json!({
        "asset": { "version": "2.0" },
        "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_materials_unlit", "KHR_draco_mesh_compression"],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1,
            "extensions": { "KHR_draco_mesh_compression": { "bufferView": 0, "attributes": { "POSITION": 0 } } } }] }],
        "accessors": [{ "componentType": 5126, "count": 3, "type": "VEC3" }, { "componentType": 5123, "count": 3, "type": "SCALAR" }],
        "bufferViews": [{ "buffer": 0, "byteLength": 10 }],
        "buffers": [{ "byteLength": 10, "uri": "draco.bin" }],
    });
    std::fs::write(&draco, doc.to_string()).unwrap();
    let expected = "requires the glTF extension KHR_draco_mesh_compression, for Draco-compressed meshes, which \
                    powder cannot decode; export without Draco";
    assert_eq!(message(&draco), format!("{}: {expected}", draco.display()));

    let path = triangle(dir.path(), "tri");
    edit(&path, |doc| doc["extensionsRequired"] = json!(["EXT_meshopt_compression"]));
    assert!(
        matches!(GltfModel::load(&path), Err(GltfError::Extension { name, .. }) if name == "EXT_meshopt_compression")
    );
    edit(&path, |doc| doc["extensionsRequired"] = json!(["VENDOR_warp_space"]));
    let unknown = "requires the glTF extension VENDOR_warp_space, which powder does not know, so it cannot tell \
                   how the extension changes the geometry";
    assert_eq!(message(&path), format!("{}: {unknown}", path.display()));
}

#[test]
fn accessors_without_data_are_zeros() {
    // The translation clip's output has neither bufferView nor sparse: all zeros, so the animated
    // node sits at the origin although its rest translation is (5, 0, 0).
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let times = fx.floats(&[0.0, 1.0], "SCALAR");
    let doc = json!({
        "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0, "translation": [5, 0, 0] }], "meshes": [mesh],
        "animations": [{ "channels": [{ "sampler": 0, "target": { "node": 0, "path": "translation" } }],
                         "samplers": [{ "input": times, "output": times + 1 }] }],
    });
    let path = fx.write_gltf(dir.path(), "zeros", &doc);
    edit(&path, |doc| {
        doc["accessors"].as_array_mut().unwrap().push(json!({ "componentType": 5126, "count": 2, "type": "VEC3" }));
    });
    let model = GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.rest_mesh().positions[0], Vec3::X * 5.0);
    assert_eq!(model.mesh_at(Some(0), 0.5).positions, vec![Vec3::ZERO, Vec3::X, Vec3::Z]);

    // Zeros cost nothing in the file, so their count is bounded like a buffer's bytes.
    edit(&path, |doc| doc["accessors"][2]["count"] = json!(1u64 << 40));
    let refused = message(&path);
    assert!(refused.ends_with("accessor 2 has no data (zeros) but its 1099511627776 elements take 13194139533312 bytes, more than the 1073741824 a buffer may hold"), "{refused}");
}

#[test]
fn channels_without_a_target_node_or_property_are_skipped_and_later_channels_keep_their_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let times = fx.floats(&[0.0, 2.0], "SCALAR");
    let slide = fx.floats(&[0.0, 0.0, 0.0, 2.0, 0.0, 0.0], "VEC3");
    let doc = json!({
        "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh],
        "animations": [{ "name": "slide",
            "channels": [{ "sampler": 0, "target": { "path": "translation" } },
                         { "sampler": 0, "target": { "node": 0, "path": "pointer",
                           "extensions": { "KHR_animation_pointer": { "pointer": "/nodes/0/scale" } } } },
                         { "sampler": 0, "target": { "node": 0, "path": "translation" } }],
            "samplers": [{ "input": times, "output": slide }] }],
    });
    let path = fx.write_gltf(dir.path(), "targetless", &doc);
    let model = GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.mesh_at(Some(0), 1.0).positions[0], Vec3::X);

    // A broken channel after the skipped one is named as the file numbers it.
    edit(&path, |doc| doc["animations"][0]["samplers"][0]["output"] = json!(times));
    let refused = message(&path);
    assert!(refused.contains("animation 'slide' channel 2: output: accessor"), "{refused}");
}

#[test]
fn glb_with_trailing_bytes_loads_and_broken_containers_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh] });
    let path = fx.write_glb(dir.path(), "tri", &doc);
    let glb = std::fs::read(&path).unwrap();

    // Bytes after the declared end are skipped, with and without a binary chunk (without one, the
    // buffer is a data URI and the bytes after the JSON chunk used to be read as a chunk).
    let json_only = gltf::binary::Glb {
        header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
        json: std::borrow::Cow::Owned(std::fs::read(fx.write_embedded(dir.path(), "tri_uri", &doc)).unwrap()),
        bin: None,
    };
    for (name, bytes) in [("trailing.glb", glb.clone()), ("trailing_json_only.glb", json_only.to_vec().unwrap())] {
        let trailing = dir.path().join(name);
        std::fs::write(&trailing, [bytes.as_slice(), b"\0\0\0\0junk after the end"].concat()).unwrap();
        let model = GltfModel::load(&trailing).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(model.rest_mesh().positions.len(), 3, "{name}");
    }

    let not_glb = dir.path().join("bad_magic.glb");
    std::fs::write(&not_glb, [b"GLTF", &glb[4..]].concat()).unwrap();
    let expected = "not a readable glTF 2.0 file: a binary file that is neither a GLB (magic 'glTF') nor JSON text";
    assert_eq!(message(&not_glb), format!("{}: {expected}", not_glb.display()));

    let cut = dir.path().join("cut.glb");
    std::fs::write(&cut, &glb[..glb.len() - 8]).unwrap();
    let expected = format!("GLB declares {} bytes but the file has {} (cut off?)", glb.len(), glb.len() - 8);
    assert_eq!(message(&cut), format!("{}: not a readable glTF 2.0 file: the {expected}", cut.display()));
}

#[test]
fn extras_of_any_type_custom_attributes_unused_empty_buffers_and_a_glb_bom_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let path = triangle(dir.path(), "tri");
    edit(&path, |doc| {
        doc["extras"] = json!(42);
        doc["meshes"][0]["primitives"][0]["attributes"]["_BATCHID"] = json!(0);
        // Without a uri a buffer of a .gltf holds nothing, which is fine while nothing reads it.
        doc["buffers"].as_array_mut().unwrap().push(json!({ "byteLength": 4 }));
    });
    assert_eq!(GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}")).rest_mesh().positions.len(), 3);

    // Once something reads it, the message names the empty buffer.
    edit(&path, |doc| doc["bufferViews"][0]["buffer"] = json!(1));
    let refused = message(&path);
    assert!(refused.ends_with("reaches past the end of buffer 1 (0 bytes)"), "{refused}");

    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh] });
    let glb = std::fs::read(fx.write_glb(dir.path(), "tri", &doc)).unwrap();
    // The JSON chunk's length grows by the 3 bytes of the mark, and so does the file's.
    let json_length = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) + 3;
    let total = glb.len() as u32 + 3;
    let bom =
        [b"glTF\x02\0\0\0", &total.to_le_bytes()[..], &json_length.to_le_bytes(), b"JSON\xEF\xBB\xBF", &glb[20..]]
            .concat();
    let path = dir.path().join("bom.glb");
    std::fs::write(&path, bom).unwrap();
    assert_eq!(GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}")).rest_mesh().positions.len(), 3);
}

#[test]
fn sparse_data_past_its_views_is_an_error_not_an_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let path = triangle(dir.path(), "tri");
    let sparse = |count: u64, offset: u64| {
        json!({ "count": count, "indices": { "bufferView": 0, "componentType": 5121, "byteOffset": offset },
                "values": { "bufferView": 0 } })
    };
    edit(&path, |doc| doc["accessors"][0]["sparse"] = sparse(1, 0));
    // Index 0 replaced by the view's first element, which it already is.
    assert_eq!(GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}")).rest_mesh().positions[0], Vec3::ZERO);

    edit(&path, |doc| doc["accessors"][0]["sparse"] = sparse(1, 1 << 63));
    let refused = message(&path);
    let expected = "mesh 0 primitive 0: POSITION: accessor 0 sparse indices: 1 elements from byte 9223372036854775808 \
                    reach past the end of buffer view 0 (36 bytes)";
    assert_eq!(refused, format!("{}: {expected}", path.display()));
    edit(&path, |doc| doc["accessors"][0]["sparse"] = sparse(5, 0));
    assert!(message(&path).ends_with("accessor 0 has 3 elements but 5 sparse ones"));
}

/// Weights that are all zero (as an accessor without data reads) are fine on a mesh that no skin
/// deforms, and refused, naming the vertex and skin, where a skin does.
#[test]
fn all_zero_weights_load_without_a_skin_and_are_refused_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let position = fx.positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let joints = fx.joints(&[[0, 0, 0, 0]; 3]);
    let weights = fx.floats(&[0.0; 12], "VEC4");
    let inverse_bind = fx.floats(&glam::Mat4::IDENTITY.to_cols_array(), "MAT4");
    let mesh =
        json!({ "primitives": [{ "attributes": { "POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights } }] });
    let unskinned = json!({ "scene": 0, "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh] });
    let path = fx.write_gltf(dir.path(), "unskinned", &unskinned);
    let model = GltfModel::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.mesh_at(None, 0.0).triangles.len(), 1);

    let skinned = json!({
        "scene": 0, "scenes": [{ "nodes": [0, 1] }],
        "nodes": [{ "mesh": 0, "skin": 0 }, {}],
        "meshes": [mesh],
        "skins": [{ "joints": [1], "inverseBindMatrices": inverse_bind }],
    });
    let path = fx.write_gltf(dir.path(), "skinned", &skinned);
    let msg = message(&path);
    assert!(msg.contains("skinned.gltf") && msg.contains("WEIGHTS_0 of vertex 0 is all 0"), "{msg}");
}
