//! Writers of small glTF files for `tests/gltf_import.rs`: a document's JSON (built with
//! `serde_json`), its one binary buffer, and the three containers: `.gltf` with an external `.bin`,
//! `.gltf` with a base64 data URI, and `.glb` (through `gltf::binary::Glb`).

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use glam::{Quat, Vec3};
use serde_json::{Value, json};

/// A glTF document's binary buffer with its buffer views and accessors, built up one array at a time.
#[derive(Default)]
pub struct Fixture {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

/// glTF component types.
const F32: u32 = 5126;
const U16: u32 = 5123;
const U8: u32 = 5121;

impl Fixture {
    /// Appends an accessor over `bytes` (in a new buffer view, 4-byte aligned as glTF requires) of
    /// `count` elements of type `ty` with components of glTF type `component_type`; returns its index.
    pub fn accessor(&mut self, bytes: &[u8], component_type: u32, count: usize, ty: &str) -> usize {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.views.push(json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() }));
        self.bin.extend_from_slice(bytes);
        let view = self.views.len() - 1;
        self.accessors.push(json!({ "bufferView": view, "componentType": component_type, "count": count, "type": ty }));
        self.accessors.len() - 1
    }

    /// An accessor of f32 elements of type `ty` (SCALAR, VEC3, VEC4 or MAT4).
    pub fn floats(&mut self, data: &[f32], ty: &str) -> usize {
        let width = match ty {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.accessor(&bytes, F32, data.len() / width, ty)
    }

    /// A POSITION accessor, with the `min` and `max` glTF requires of positions.
    pub fn positions(&mut self, positions: &[[f32; 3]]) -> usize {
        let index = self.floats(&positions.concat(), "VEC3");
        let bound = |f: fn(f32, f32) -> f32| -> Vec<f32> {
            (0..3).map(|axis| positions.iter().map(|p| p[axis]).reduce(f).unwrap_or(0.0)).collect()
        };
        self.accessors[index]["min"] = json!(bound(f32::min));
        self.accessors[index]["max"] = json!(bound(f32::max));
        index
    }

    /// An index accessor of u16.
    pub fn indices(&mut self, indices: &[u16]) -> usize {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        self.accessor(&bytes, U16, indices.len(), "SCALAR")
    }

    /// A JOINTS_0 accessor of u8.
    pub fn joints(&mut self, joints: &[[u8; 4]]) -> usize {
        self.accessor(&joints.concat(), U8, joints.len(), "VEC4")
    }

    /// The full document: `doc` plus the asset header, the buffer (at `uri`, or GLB's own chunk when
    /// `None`), the views and the accessors.
    fn document(&self, doc: &Value, uri: Option<String>) -> Vec<u8> {
        let mut doc = doc.clone();
        let mut buffer = json!({ "byteLength": self.bin.len() });
        if let Some(uri) = uri {
            buffer["uri"] = json!(uri);
        }
        doc["asset"] = json!({ "version": "2.0" });
        doc["buffers"] = json!([buffer]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        serde_json::to_vec_pretty(&doc).unwrap()
    }

    /// Writes `dir/name.gltf` and its buffer `dir/name.bin`.
    pub fn write_gltf(&self, dir: &Path, name: &str, doc: &Value) -> PathBuf {
        std::fs::write(dir.join(format!("{name}.bin")), &self.bin).unwrap();
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, self.document(doc, Some(format!("{name}.bin")))).unwrap();
        path
    }

    /// Writes `dir/name.gltf` with the buffer inside it as a base64 data URI.
    pub fn write_embedded(&self, dir: &Path, name: &str, doc: &Value) -> PathBuf {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        let path = dir.join(format!("{name}.gltf"));
        std::fs::write(&path, self.document(doc, Some(uri))).unwrap();
        path
    }

    /// Writes `dir/name.glb`: the JSON chunk and the buffer as its binary chunk.
    pub fn write_glb(&self, dir: &Path, name: &str, doc: &Value) -> PathBuf {
        let glb = gltf::binary::Glb {
            // `to_vec` computes the length itself.
            header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
            json: Cow::Owned(self.document(doc, None)),
            bin: Some(Cow::Borrowed(&self.bin)),
        };
        let path = dir.join(format!("{name}.glb"));
        std::fs::write(&path, glb.to_vec().unwrap()).unwrap();
        path
    }
}

/// Standard base64 with padding (RFC 4648), for data URIs.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut text = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            text.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char } else { '=' });
        }
    }
    text
}

/// The quaternion of a rotation by `degrees` about `axis`, as glTF writes it: (x, y, z, w).
pub fn quat(axis: Vec3, degrees: f32) -> [f32; 4] {
    Quat::from_axis_angle(axis, degrees.to_radians()).to_array()
}

/// A mesh of one non-indexed triangle.
pub fn triangle_mesh(fx: &mut Fixture, corners: &[[f32; 3]; 3]) -> Value {
    let position = fx.positions(corners);
    json!({ "primitives": [{ "attributes": { "POSITION": position } }] })
}

/// A skinned mesh 'body' on a two-joint skin 'rig': joint "root" at the origin with an identity
/// inverse bind matrix, its child "tip" at glTF (0, 1, 0) with inverse bind translate(0, −1, 0).
/// Clip 0, "bend", turns "tip" from identity to 90° about z over one second. The mesh node sits
/// at (10, 0, 0), which skinning must ignore. Written as `dir/name.glb`.
fn write_skin_document(
    fx: &mut Fixture,
    dir: &Path,
    name: &str,
    positions: &[[f32; 3]],
    indices: Option<&[u16]>,
    influences: (&[[u8; 4]], &[f32]),
) -> PathBuf {
    let position = fx.positions(positions);
    let joints = fx.joints(influences.0);
    let weights = fx.floats(influences.1, "VEC4");
    let mut primitive = json!({ "attributes": { "POSITION": position, "JOINTS_0": joints, "WEIGHTS_0": weights } });
    if let Some(indices) = indices {
        primitive["indices"] = json!(fx.indices(indices));
    }
    let identity = glam::Mat4::IDENTITY.to_cols_array();
    let tip_inverse_bind = glam::Mat4::from_translation(-Vec3::Y).to_cols_array();
    let inverse_bind = fx.floats(&[identity, tip_inverse_bind].concat(), "MAT4");
    let times = fx.floats(&[0.0, 1.0], "SCALAR");
    let turns = fx.floats(&[[0.0, 0.0, 0.0, 1.0], quat(Vec3::Z, 90.0)].concat(), "VEC4");
    let doc = json!({
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": [
            { "name": "skinned", "mesh": 0, "skin": 0, "translation": [10, 0, 0] },
            { "name": "root", "children": [2] },
            { "name": "tip", "translation": [0, 1, 0] },
        ],
        "meshes": [{ "name": "body", "primitives": [primitive] }],
        "skins": [{ "name": "rig", "joints": [1, 2], "inverseBindMatrices": inverse_bind }],
        "animations": [{
            "name": "bend",
            "channels": [{ "sampler": 0, "target": { "node": 2, "path": "rotation" } }],
            "samplers": [{ "input": times, "output": turns }],
        }],
    });
    fx.write_glb(dir, name, &doc)
}

/// The skin of [`write_skin_document`] on one triangle: vertex (0, 2, 0) on `joints_0` weighted
/// 0.25/0.75, vertex (1, 0, 0) on joint 0 alone, vertex (0, 0, 1) with weights (0, 2, 0, 0), which
/// normalise to joint 1 alone.
pub fn write_skinned(dir: &Path, name: &str, joints_0: [u8; 4]) -> PathBuf {
    let positions = [[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
    let joints = [joints_0, [0, 0, 0, 0], [0, 1, 0, 0]];
    let weights = [0.25, 0.75, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0];
    write_skin_document(&mut Fixture::default(), dir, name, &positions, None, (&joints, &weights))
}

/// The skin of [`write_skin_document`] on a `columns` × `rows` grid of vertices 1 cm apart in the
/// xy plane, two triangles per cell, blending from the root joint (row 0) to the tip (last row).
pub fn write_skinned_grid(dir: &Path, columns: u16, rows: u16) -> PathBuf {
    let mut positions = Vec::new();
    let mut weights = Vec::new();
    for row in 0..rows {
        for column in 0..columns {
            positions.push([f32::from(column) * 0.01, f32::from(row) * 0.01, 0.0]);
            let tip = f32::from(row) / f32::from(rows - 1);
            weights.extend([1.0 - tip, tip, 0.0, 0.0]);
        }
    }
    let joints = vec![[0, 1, 0, 0]; positions.len()];
    let mut indices = Vec::new();
    for row in 0..rows - 1 {
        for column in 0..columns - 1 {
            let v = row * columns + column;
            indices.extend([v, v + 1, v + columns, v + 1, v + columns + 1, v + columns]);
        }
    }
    let influences = (joints.as_slice(), weights.as_slice());
    write_skin_document(&mut Fixture::default(), dir, "grid", &positions, Some(&indices), influences)
}
