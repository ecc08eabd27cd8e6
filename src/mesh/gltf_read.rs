//! Reading a glTF document's node tree and mesh primitives into powder's own arrays, once, so that
//! sampling a pose touches no glTF data. Errors are messages naming the node, mesh and primitive;
//! `gltf_import` prefixes the file's path.

use std::path::Path;

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Data;
use gltf::scene::Transform;

use super::accessor::{POSITION_TYPES, buffer_source, check, read_vec3, unreadable};
use super::animation::Trs;
use super::error::label;
use super::skin::{Influence, read_influences};
use super::topology;

/// The node hierarchy: each node's rest transform and parent, and an order that visits parents
/// before their children, so global transforms are one pass over it.
#[derive(Clone, Debug)]
pub(crate) struct NodeTree {
    /// Each node's local transform at rest (`matrix`, or `T · R · S`).
    pub rest: Vec<Mat4>,
    /// The same transforms as translation, rotation and scale, where animations write.
    pub rest_trs: Vec<Trs>,
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    order: Vec<usize>,
}

impl NodeTree {
    /// Reads every node of the document. glTF requires the nodes to form disjoint trees; a node
    /// with two parents or a cycle is an error, because it would have no single global transform.
    pub fn read(document: &gltf::Document) -> Result<NodeTree, String> {
        let names: Vec<String> = document.nodes().map(|n| label("node", n.index(), n.name())).collect();
        let children: Vec<Vec<usize>> = document.nodes().map(|n| n.children().map(|c| c.index()).collect()).collect();
        let count = names.len();
        let mut parent = vec![None; count];
        for (n, kids) in children.iter().enumerate() {
            for &child in kids {
                if let Some(other) = parent[child].replace(n) {
                    let (child, other, n) = (&names[child], &names[other], &names[n]);
                    return Err(format!("{child} is a child of both {other} and {n}; glTF nodes have one parent"));
                }
            }
        }
        // Depth-first from the roots, children in file order. Every node of a cycle has a parent,
        // so a cycle is never reached.
        let mut order = Vec::with_capacity(count);
        let mut stack: Vec<usize> = (0..count).rev().filter(|&n| parent[n].is_none()).collect();
        while let Some(n) = stack.pop() {
            order.push(n);
            stack.extend(children[n].iter().rev());
        }
        if order.len() < count {
            let mut reached = vec![false; count];
            order.iter().for_each(|&n| reached[n] = true);
            let looped = (0..count).find(|&n| !reached[n]).map_or("", |n| names[n].as_str());
            return Err(format!("the node hierarchy has a cycle through {looped}"));
        }
        let rest: Vec<Mat4> = document.nodes().map(|n| Mat4::from_cols_array_2d(&n.transform().matrix())).collect();
        let rest_trs = document
            .nodes()
            .map(|n| match n.transform() {
                Transform::Decomposed { translation, rotation, scale } => Trs {
                    translation: translation.into(),
                    // The spec asks for unit quaternions; a zero one (a broken file) becomes identity.
                    rotation: Quat::from_vec4(Vec4::from(rotation).normalize_or(Vec4::W)),
                    scale: scale.into(),
                },
                Transform::Matrix { matrix } => Trs::from_matrix(&Mat4::from_cols_array_2d(&matrix)),
            })
            .collect();
        Ok(NodeTree { rest, rest_trs, parent, children, order })
    }

    /// The nodes that draw a mesh, as `(node, mesh, skin)`, depth-first from the roots of the
    /// default scene (else the first scene; a file without scenes offers all its root nodes). This
    /// order fixes the order of the output's vertices.
    pub fn scene_instances(&self, document: &gltf::Document) -> Vec<(usize, usize, Option<usize>)> {
        let roots: Vec<usize> = match document.default_scene().or_else(|| document.scenes().next()) {
            Some(scene) => scene.nodes().map(|n| n.index()).collect(),
            None => (0..self.parent.len()).filter(|&n| self.parent[n].is_none()).collect(),
        };
        let nodes: Vec<gltf::Node> = document.nodes().collect();
        let mut instances = Vec::new();
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(n) = stack.pop() {
            if let Some(mesh) = nodes[n].mesh() {
                instances.push((n, mesh.index(), nodes[n].skin().map(|s| s.index())));
            }
            stack.extend(self.children[n].iter().rev());
        }
        instances
    }

    /// Global transforms of every node from their local ones.
    pub fn world(&self, local: &[Mat4], world: &mut Vec<Mat4>) {
        world.clear();
        world.resize(local.len(), Mat4::IDENTITY);
        for &n in &self.order {
            world[n] = match self.parent[n] {
                Some(p) => world[p] * local[n],
                None => local[n],
            };
        }
    }
}

/// One triangle primitive: positions in its mesh's own frame (glTF axes), triangles into them, and
/// the skin weights if it has `JOINTS_0`/`WEIGHTS_0`.
#[derive(Clone, Debug)]
pub(crate) struct Primitive {
    /// The primitive's index in its mesh, for messages (skipped primitives leave gaps).
    pub index: usize,
    pub positions: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    pub influences: Option<Vec<Influence>>,
}

/// Reads the triangle primitives of `mesh`. Primitives of point and line modes are skipped with a
/// warning naming `file`, since a collider is made of triangles.
pub(crate) fn read_mesh(mesh: &gltf::Mesh, buffers: &[Data], file: &Path) -> Result<Vec<Primitive>, String> {
    let mesh_label = label("mesh", mesh.index(), mesh.name());
    let mut primitives = Vec::new();
    for primitive in mesh.primitives() {
        let read = read_primitive(&primitive, buffers);
        match read.map_err(|e| format!("{mesh_label} primitive {}: {e}", primitive.index()))? {
            Some(p) => primitives.push(p),
            None => log::warn!(
                "{}: {mesh_label} primitive {}: mode {:?} draws no triangles; skipped",
                file.display(),
                primitive.index(),
                primitive.mode()
            ),
        }
    }
    Ok(primitives)
}

fn read_primitive(primitive: &gltf::Primitive, buffers: &[Data]) -> Result<Option<Primitive>, String> {
    let position = primitive.get(&gltf::Semantic::Positions).ok_or("has no POSITION")?;
    check(&position, Dimensions::Vec3, POSITION_TYPES, buffers).map_err(|e| format!("POSITION: {e}"))?;
    let reader = primitive.reader(buffer_source(buffers));
    let positions = read_vec3(&position, buffers).ok_or_else(|| unreadable(&position))?;
    if let Some(p) = positions.iter().position(|p| !p.is_finite()) {
        return Err(format!("POSITION of vertex {p} is {}; positions must be finite", positions[p]));
    }

    let indices: Vec<u32> = match primitive.indices() {
        None => (0..positions.len() as u32).collect(),
        Some(accessor) => {
            check(&accessor, Dimensions::Scalar, &[DataType::U8, DataType::U16, DataType::U32], buffers)
                .map_err(|e| format!("indices: {e}"))?;
            reader.read_indices().ok_or_else(|| unreadable(&accessor))?.into_u32().collect()
        }
    };
    if let Some(i) = indices.iter().position(|&v| v as usize >= positions.len()) {
        return Err(format!("index {i} refers to vertex {} but POSITION has {}", indices[i], positions.len()));
    }
    let Some(triangles) = topology::triangles(primitive.mode(), &indices) else {
        return Ok(None);
    };
    let influences = read_influences(primitive, positions.len(), buffers)?;
    Ok(Some(Primitive { index: primitive.index(), positions, triangles, influences }))
}
