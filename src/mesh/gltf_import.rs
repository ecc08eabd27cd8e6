//! glTF 2.0 import: a file's default scene, with its node hierarchy, animations and skins, as one
//! [`TriangleMesh`] in powder's frame at any animation time.
//!
//! [`GltfModel::load`] reads `.gltf` (external `.bin` buffers or base64 data URIs) and `.glb`, then
//! copies everything sampling needs (node transforms, animation keyframes, skins, primitive
//! vertices) into its own arrays. [`GltfModel::mesh_at`] then poses the model: animation channels
//! set node transforms, global transforms follow the hierarchy, skinned primitives blend their
//! joints, the rest follow their node, and [`GLTF_TO_POWDER`] turns glTF's y-up axes into powder's
//! z-up ones. Every pose has the same vertices in the same order and the same triangles, so two
//! poses can be differenced into vertex velocities.

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3, Vec4};

use super::animation::{AnimationInfo, AnimationSelector, Clip, read_clips};
use super::buffers::load_buffers;
use super::container;
use super::document::{self, Refusal};
use super::error::{GltfError, label};
use super::gltf_read::{NodeTree, Primitive, read_mesh};
use super::skin::{Skin, read_skins, skin_positions};
use super::triangle_mesh::TriangleMesh;
use crate::fsio::{GLTF_FILE_LIMIT, read_limited};

/// The map from glTF's axes to powder's: glTF (x, y, z) becomes powder (x, −z, y).
///
/// Both frames are right-handed and in metres; glTF's up is +y and powder's is +z. The map is a
/// rotation of +90° about x (determinant +1), so it keeps triangles' winding and no scaling is
/// needed. glTF's forward (+z, towards the viewer) becomes powder's −y. Import applies it once, as
/// the last transform of every vertex.
pub const GLTF_TO_POWDER: Mat4 = Mat4::from_cols(
    Vec4::new(1.0, 0.0, 0.0, 0.0),  // glTF +x → powder +x
    Vec4::new(0.0, 0.0, 1.0, 0.0),  // glTF +y (up) → powder +z (up)
    Vec4::new(0.0, -1.0, 0.0, 0.0), // glTF +z → powder −y
    Vec4::new(0.0, 0.0, 0.0, 1.0),
);

/// A node of the scene that draws a mesh.
#[derive(Clone, Debug)]
struct Instance {
    node: usize,
    mesh: usize,
    skin: Option<usize>,
}

/// A glTF file's scene, parsed once and ready to be posed at any animation time.
#[derive(Clone, Debug)]
pub struct GltfModel {
    path: PathBuf,
    nodes: NodeTree,
    /// Triangle primitives by mesh index; meshes the scene does not use stay empty.
    meshes: Vec<Vec<Primitive>>,
    skins: Vec<Skin>,
    instances: Vec<Instance>,
    animations: Vec<AnimationInfo>,
    clips: Vec<Clip>,
    /// The triangles of every pose, indices into the concatenated vertices of all instances.
    triangles: Vec<[u32; 3]>,
    vertex_count: usize,
}

impl GltfModel {
    /// Reads a `.gltf` or `.glb` file and everything its default scene (or first scene) needs.
    ///
    /// The file and its external buffers are read with bounds ([`crate::fsio::read_limited`]);
    /// buffers resolve only inside the file's folder. Images are not decoded: colliders need none,
    /// and a missing texture should not stop a collider. Primitives of point and line modes are
    /// skipped with a warning; a scene with no triangles is an error, as is anything the import
    /// cannot make sense of, each naming the file.
    pub fn load(path: &Path) -> Result<GltfModel, GltfError> {
        let file = path.to_path_buf();
        let bytes =
            read_limited(path, GLTF_FILE_LIMIT).map_err(|source| GltfError::Io { path: file.clone(), source })?;
        let container = container::split(&bytes, path).map_err(|what| GltfError::Parse { path: file.clone(), what })?;
        let parsed = document::parse(container.json, path).map_err(|refusal| match refusal {
            Refusal::Parse(what) => GltfError::Parse { path: file.clone(), what },
            Refusal::Extension(name, reason) => GltfError::Extension { path: file.clone(), name, reason },
            Refusal::Invalid(what) => GltfError::Invalid { path: file.clone(), what },
        })?;
        let buffers = load_buffers(&parsed.document, path, container.bin, parsed.zero_buffer)
            .map_err(|e| GltfError::Buffer { path: file.clone(), index: e.index, uri: e.uri, what: e.what })?;
        Self::from_document(&parsed.document, &buffers, &parsed.channel_numbers, file)
    }

    fn from_document(
        document: &gltf::Document,
        buffers: &[gltf::buffer::Data],
        channel_numbers: &[Vec<usize>],
        path: PathBuf,
    ) -> Result<Self, GltfError> {
        let invalid = |what| GltfError::Invalid { path: path.clone(), what };
        let nodes = NodeTree::read(document).map_err(invalid)?;
        let skins = read_skins(document, buffers).map_err(invalid)?;
        let (animations, clips) = read_clips(document, buffers, channel_numbers).map_err(invalid)?.into_iter().unzip();

        let mut meshes: Vec<Option<Vec<Primitive>>> = vec![None; document.meshes().len()];
        let mut instances = Vec::new();
        let (mut triangles, mut vertex_count) = (Vec::new(), 0usize);
        // Mirroring nodes (negative determinant) flip their triangles so outside stays outside.
        // Decided once, at rest: the triangle list must be the same for every pose.
        let mut rest_world = Vec::new();
        nodes.world(&nodes.rest, &mut rest_world);
        for (node, mesh, skin) in nodes.scene_instances(document) {
            if meshes[mesh].is_none() {
                let gltf_mesh = document.meshes().nth(mesh).ok_or_else(|| invalid(format!("no mesh {mesh}")))?;
                meshes[mesh] = Some(read_mesh(&gltf_mesh, buffers, &path).map_err(invalid)?);
            }
            let primitives = meshes[mesh].as_deref().unwrap_or_default();
            let flip = skin.is_none() && rest_world[node].determinant() < 0.0;
            for primitive in primitives {
                if let (Some(skin), Some(influences)) = (skin, &primitive.influences) {
                    skins[skin].check_influences(influences).map_err(|e| {
                        let mesh = document.meshes().nth(mesh).map(|m| label("mesh", mesh, m.name()));
                        invalid(format!("{} primitive {}: {e}", mesh.unwrap_or_default(), primitive.index))
                    })?;
                }
                let offset = u32::try_from(vertex_count).map_err(|_| invalid("more than 2³² vertices".into()))?;
                let shift = |t: &[u32; 3]| if flip { [t[0], t[2], t[1]] } else { *t }.map(|i| i + offset);
                triangles.extend(primitive.triangles.iter().map(shift));
                vertex_count += primitive.positions.len();
            }
            instances.push(Instance { node, mesh, skin });
        }
        if triangles.is_empty() {
            return Err(GltfError::NoTriangles { path });
        }
        let meshes = meshes.into_iter().map(Option::unwrap_or_default).collect();
        Ok(GltfModel { path, nodes, meshes, skins, instances, animations, clips, triangles, vertex_count })
    }

    /// The file's animation clips, in file order; their index is what [`GltfModel::mesh_at`] takes.
    pub fn animations(&self) -> &[AnimationInfo] {
        &self.animations
    }

    /// Whether any clip moves a node. Morph-target weight channels do not count: they are not
    /// imported.
    pub fn is_animated(&self) -> bool {
        self.clips.iter().any(|clip| !clip.is_empty())
    }

    /// The index of the clip `selector` names; the error names the file, what was asked and the
    /// clips there are.
    pub fn find_animation(&self, selector: &AnimationSelector) -> Result<usize, GltfError> {
        let found = match selector {
            AnimationSelector::Index(index) => Some(*index).filter(|&i| i < self.animations.len()),
            AnimationSelector::Name(name) => self.animations.iter().position(|a| a.name.as_deref() == Some(name)),
        };
        found.ok_or_else(|| {
            let listed: Vec<String> = (self.animations.iter().enumerate())
                .map(|(i, a)| match &a.name {
                    Some(name) => format!("{i} '{name}' ({} s)", a.duration),
                    None => format!("{i} (unnamed, {} s)", a.duration),
                })
                .collect();
            let available =
                if listed.is_empty() { "no animations".into() } else { format!("animations {}", listed.join(", ")) };
            GltfError::UnknownAnimation { path: self.path.clone(), asked: selector.to_string(), available }
        })
    }

    /// The number of vertices of every pose.
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// The scene at rest (no animation): node transforms as the file gives them, skins in the pose
    /// of their joints' rest transforms.
    pub fn rest_mesh(&self) -> TriangleMesh {
        self.mesh_at(None, 0.0)
    }

    /// The whole scene as one mesh in powder's frame, posed by clip `animation` (an index into
    /// [`GltfModel::animations`], or `None` for the rest pose) at `time` seconds. Times outside
    /// the clip's keyframes hold its first or last pose.
    ///
    /// # Panics
    /// If `animation` is not an index of [`GltfModel::animations`]; [`GltfModel::find_animation`]
    /// turns a user's choice into a valid one.
    pub fn mesh_at(&self, animation: Option<usize>, time: f32) -> TriangleMesh {
        let mut positions = Vec::new();
        self.positions_at(animation, time, &mut positions);
        TriangleMesh { positions, triangles: self.triangles.clone() }
    }

    /// The vertex positions of [`GltfModel::mesh_at`] written into `positions` (cleared first), for
    /// callers that sample often and keep one buffer; the triangles are those of
    /// [`GltfModel::rest_mesh`].
    ///
    /// # Panics
    /// As [`GltfModel::mesh_at`].
    pub fn positions_at(&self, animation: Option<usize>, time: f32, positions: &mut Vec<Vec3>) {
        let mut local = self.nodes.rest.clone();
        if let Some(animation) = animation {
            let clip = self.clips.get(animation).unwrap_or_else(|| {
                panic!("{}: no animation {animation} (the file has {})", self.path.display(), self.clips.len())
            });
            let mut trs = self.nodes.rest_trs.clone();
            let mut animated = vec![false; trs.len()];
            clip.apply(time, &mut trs, &mut animated);
            for (n, _) in animated.iter().enumerate().filter(|(_, moved)| **moved) {
                local[n] = trs[n].matrix();
            }
        }
        let mut world = Vec::new();
        self.nodes.world(&local, &mut world);

        positions.clear();
        positions.reserve(self.vertex_count);
        let mut joint_matrices = Vec::new();
        for instance in &self.instances {
            let skin = instance.skin.map(|s| &self.skins[s]);
            if let Some(skin) = skin {
                skin.joint_matrices(&world, &GLTF_TO_POWDER, &mut joint_matrices);
            }
            let rigid = GLTF_TO_POWDER * world[instance.node];
            for primitive in &self.meshes[instance.mesh] {
                match (skin, &primitive.influences) {
                    (Some(_), Some(influences)) => {
                        skin_positions(&primitive.positions, influences, &joint_matrices, positions);
                    }
                    // A primitive without weights under a skinned node follows the node, as in
                    // most viewers; weights without a skin are ignored.
                    _ => positions.extend(primitive.positions.iter().map(|&p| rigid.transform_point3(p))),
                }
            }
        }
    }
}
