//! A small glTF document builder: typed accessors over one binary buffer, written out as .glb.
//!
//! Every accessor gets its own buffer view, tightly packed and 4-byte aligned, so no view needs a
//! byte stride and every component type is aligned as the spec requires.

use std::borrow::Cow;
use std::collections::BTreeMap;

use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::animation::{Interpolation, Property};
use gltf::json::buffer::Target;
use gltf::json::validation::Checked::Valid;
use gltf::json::validation::USize64;
use gltf::json::{self, Index};

use crate::shapes::MeshData;

/// What `asset.generator` says in every file, so a file can be traced back to this program.
pub const GENERATOR: &str = "powder make_assets";

/// A glTF document being built and the bytes of its one binary buffer.
pub struct Document {
    /// The JSON part; callers push nodes, scenes, skins and animations into it directly.
    pub root: json::Root,
    bin: Vec<u8>,
}

impl Document {
    /// An empty glTF 2.0 document with one (still empty) binary buffer.
    pub fn new() -> Self {
        let mut root = json::Root {
            asset: json::Asset { generator: Some(GENERATOR.into()), version: "2.0".into(), ..Default::default() },
            ..Default::default()
        };
        root.push(json::Buffer {
            byte_length: USize64(0),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        Document { root, bin: Vec::new() }
    }

    /// Appends `bytes` as a new accessor of `count` elements.
    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        component_type: ComponentType,
        type_: Type,
        target: Option<Target>,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
    ) -> Index<json::Accessor> {
        // The spec wants each accessor's offset aligned to its component size; 4 covers all used here.
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let view = self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(self.bin.len())),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        });
        self.bin.extend_from_slice(bytes);
        let (min, max) = match bounds {
            Some((min, max)) => (Some(json::Value::from(min)), Some(json::Value::from(max))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(GenericComponentType(component_type)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(type_),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A VEC3 float accessor; with `bounded`, it carries min and max (required for POSITION).
    pub fn vec3s(&mut self, values: &[[f32; 3]], target: Option<Target>, bounded: bool) -> Index<json::Accessor> {
        let bounds = bounded.then(|| component_bounds(values));
        self.accessor(bytemuck::cast_slice(values), values.len(), ComponentType::F32, Type::Vec3, target, bounds)
    }

    /// A VEC4 float accessor (weights, rotation keyframes).
    pub fn vec4s(&mut self, values: &[[f32; 4]], target: Option<Target>) -> Index<json::Accessor> {
        self.accessor(bytemuck::cast_slice(values), values.len(), ComponentType::F32, Type::Vec4, target, None)
    }

    /// A SCALAR float accessor with min and max, as the spec requires of keyframe times.
    pub fn times(&mut self, seconds: &[f32]) -> Index<json::Accessor> {
        let bounds = component_bounds(&seconds.iter().map(|&s| [s]).collect::<Vec<_>>());
        self.accessor(
            bytemuck::cast_slice(seconds),
            seconds.len(),
            ComponentType::F32,
            Type::Scalar,
            None,
            Some(bounds),
        )
    }

    /// A MAT4 float accessor (inverse bind matrices), column-major as glTF stores them.
    pub fn mat4s(&mut self, matrices: &[[f32; 16]]) -> Index<json::Accessor> {
        self.accessor(bytemuck::cast_slice(matrices), matrices.len(), ComponentType::F32, Type::Mat4, None, None)
    }

    /// A mesh of one triangle-list primitive from `mesh`: POSITION, NORMAL, indices, and
    /// JOINTS_0 (u8) and WEIGHTS_0 (f32) when the mesh is skinned.
    pub fn mesh(&mut self, name: &str, mesh: &MeshData) -> Index<json::Mesh> {
        let array = Some(Target::ArrayBuffer);
        let mut attributes = BTreeMap::new();
        attributes.insert(Valid(json::mesh::Semantic::Positions), self.vec3s(&mesh.positions, array, true));
        attributes.insert(Valid(json::mesh::Semantic::Normals), self.vec3s(&mesh.normals, array, false));
        if !mesh.joints.is_empty() {
            let joints = bytemuck::cast_slice(&mesh.joints);
            let joints = self.accessor(joints, mesh.joints.len(), ComponentType::U8, Type::Vec4, array, None);
            attributes.insert(Valid(json::mesh::Semantic::Joints(0)), joints);
            attributes.insert(Valid(json::mesh::Semantic::Weights(0)), self.vec4s(&mesh.weights, array));
        }
        // u16 indices halve the index data; every shipped mesh has far fewer than 65 536 vertices.
        let indices: Vec<u16> =
            mesh.indices.iter().map(|&i| u16::try_from(i).expect("meshes have fewer than 65 536 vertices")).collect();
        let indices = self.accessor(
            bytemuck::cast_slice(&indices),
            indices.len(),
            ComponentType::U16,
            Type::Scalar,
            Some(Target::ElementArrayBuffer),
            None,
        );
        let primitive = json::mesh::Primitive {
            attributes,
            indices: Some(indices),
            material: None,
            mode: Valid(json::mesh::Mode::Triangles),
            targets: None,
            extensions: None,
            extras: Default::default(),
        };
        self.root.push(json::Mesh {
            name: Some(name.into()),
            primitives: vec![primitive],
            weights: None,
            extensions: None,
            extras: Default::default(),
        })
    }

    /// A node named `name` with the given fields, pushed into the document.
    pub fn node(&mut self, name: &str, node: json::Node) -> Index<json::Node> {
        self.root.push(json::Node { name: Some(name.into()), ..node })
    }

    /// Makes `nodes` the document's one scene, the one shown by default.
    pub fn scene(&mut self, nodes: Vec<Index<json::Node>>) {
        let scene = self.root.push(json::Scene { name: None, nodes, extensions: None, extras: Default::default() });
        self.root.scene = Some(scene);
    }

    /// The .glb bytes: header, JSON chunk, BIN chunk.
    pub fn into_glb(mut self) -> Vec<u8> {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.root.buffers[0].byte_length = USize64::from(self.bin.len());
        let json = json::serialize::to_vec(&self.root).expect("a glTF document always serialises");
        let glb = gltf::binary::Glb {
            // `to_vec` writes magic, version and length itself; the header here is not read.
            header: gltf::binary::Header { magic: *b"glTF", version: 2, length: 0 },
            json: Cow::Owned(json),
            bin: Some(Cow::Owned(self.bin)),
        };
        glb.to_vec().expect("writing to memory cannot fail")
    }
}

/// One keyframed channel of an animation: which node property it drives and its keys.
pub struct Track {
    /// The node the channel drives.
    pub node: Index<json::Node>,
    /// Translation or rotation.
    pub property: Property,
    /// Keyframe times, seconds.
    pub input: Index<json::Accessor>,
    /// Keyframe values (for CUBICSPLINE: in-tangent, value, out-tangent per key).
    pub output: Index<json::Accessor>,
    /// How values between keys are found.
    pub interpolation: Interpolation,
}

impl Document {
    /// An animation named `name` with one sampler and one channel per track.
    pub fn animation(&mut self, name: &str, tracks: &[Track]) {
        let mut animation = json::Animation {
            name: Some(name.into()),
            channels: vec![],
            samplers: vec![],
            extensions: None,
            extras: Default::default(),
        };
        for track in tracks {
            let sampler = Index::push(
                &mut animation.samplers,
                json::animation::Sampler {
                    input: track.input,
                    output: track.output,
                    interpolation: Valid(track.interpolation),
                    extensions: None,
                    extras: Default::default(),
                },
            );
            animation.channels.push(json::animation::Channel {
                sampler,
                target: json::animation::Target {
                    node: track.node,
                    path: Valid(track.property),
                    extensions: None,
                    extras: Default::default(),
                },
                extensions: None,
                extras: Default::default(),
            });
        }
        self.root.push(animation);
    }
}

/// Per-component minimum and maximum of `values`.
fn component_bounds<const N: usize>(values: &[[f32; N]]) -> (Vec<f32>, Vec<f32>) {
    let mut min = [f32::INFINITY; N];
    let mut max = [f32::NEG_INFINITY; N];
    for value in values {
        for i in 0..N {
            min[i] = min[i].min(value[i]);
            max[i] = max[i].max(value[i]);
        }
    }
    (min.to_vec(), max.to_vec())
}
