//! Skins: linear blend skinning as glTF 2.0 defines it (section 3.7.3, "Skins").
//!
//! Each vertex names up to four joints (`JOINTS_0`) with weights (`WEIGHTS_0`). A joint's matrix is
//! the joint node's global transform times its inverse bind matrix, and the skinned position is the
//! weighted sum of the vertex under each joint matrix. The skinned mesh node's own transform plays
//! no part: the joints alone place the mesh.

use glam::{Mat4, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Data;

use super::accessor::{buffer_source, check, unreadable};
use super::error::label;

/// A skin: its joint nodes and their inverse bind matrices, read once at load.
#[derive(Clone, Debug)]
pub(crate) struct Skin {
    /// How messages name the skin (`skin 'rig'` or `skin 0`).
    pub label: String,
    /// Node index of each joint.
    pub joints: Vec<usize>,
    /// One inverse bind matrix per joint, identity where the file gives none.
    pub inverse_bind: Vec<Mat4>,
}

/// The joints that move one vertex and how much: weights are non-negative and sum to 1, and a joint
/// with weight 0 is set to 0 so that no unused index can reach past the skin's joints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Influence {
    pub joints: [u16; 4],
    pub weights: [f32; 4],
}

/// Reads every skin of the document.
pub(crate) fn read_skins(document: &gltf::Document, buffers: &[Data]) -> Result<Vec<Skin>, String> {
    document
        .skins()
        .map(|skin| {
            let label = label("skin", skin.index(), skin.name());
            let joints: Vec<usize> = skin.joints().map(|node| node.index()).collect();
            let inverse_bind = match skin.inverse_bind_matrices() {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(accessor) => {
                    check(&accessor, Dimensions::Mat4, &[DataType::F32], buffers)
                        .map_err(|e| format!("{label}: inverseBindMatrices: {e}"))?;
                    let reader = skin.reader(buffer_source(buffers));
                    let matrices = reader.read_inverse_bind_matrices().ok_or_else(|| unreadable(&accessor))?;
                    matrices.map(|m| Mat4::from_cols_array_2d(&m)).collect()
                }
            };
            if inverse_bind.len() < joints.len() {
                return Err(format!(
                    "{label} has {} joints but only {} inverse bind matrices",
                    joints.len(),
                    inverse_bind.len()
                ));
            }
            Ok(Skin { label, joints, inverse_bind })
        })
        .collect()
}

/// Reads a primitive's `JOINTS_0` and `WEIGHTS_0`, or `None` when it has neither. `vertex_count`
/// is the length of its `POSITION` accessor, which both must match.
pub(crate) fn read_influences(
    primitive: &gltf::Primitive,
    vertex_count: usize,
    buffers: &[Data],
) -> Result<Option<Vec<Influence>>, String> {
    use gltf::Semantic::{Joints, Weights};
    let (joints, weights) = match (primitive.get(&Joints(0)), primitive.get(&Weights(0))) {
        (None, None) => return Ok(None),
        (Some(joints), Some(weights)) => (joints, weights),
        _ => return Err("has only one of JOINTS_0 and WEIGHTS_0; skinning needs both".into()),
    };
    check(&joints, Dimensions::Vec4, &[DataType::U8, DataType::U16], buffers).map_err(|e| format!("JOINTS_0: {e}"))?;
    check(&weights, Dimensions::Vec4, &[DataType::F32, DataType::U8, DataType::U16], buffers)
        .map_err(|e| format!("WEIGHTS_0: {e}"))?;
    for (name, count) in [("JOINTS_0", joints.count()), ("WEIGHTS_0", weights.count())] {
        if count != vertex_count {
            return Err(format!("{name} has {count} elements but POSITION has {vertex_count}"));
        }
    }
    let reader = primitive.reader(buffer_source(buffers));
    let joint_iter = reader.read_joints(0).ok_or_else(|| unreadable(&joints))?.into_u16();
    let weight_iter = reader.read_weights(0).ok_or_else(|| unreadable(&weights))?.into_f32();
    joint_iter
        .zip(weight_iter)
        .enumerate()
        .map(|(vertex, (joints, weights))| {
            let sum: f32 = weights.iter().sum();
            // Exporters often write weights that miss 1 by rounding; the spec asks importers to
            // normalise. A vertex with no weight at all is kept as all zeros: a node that draws the
            // mesh without a skin never reads them, and a skinned one refuses it
            // (`Skin::check_influences`).
            if weights.iter().any(|w| !w.is_finite() || *w < 0.0) || !sum.is_finite() {
                return Err(format!("WEIGHTS_0 of vertex {vertex} is {weights:?}; weights must be finite and ≥ 0"));
            }
            let weights = if sum > 0.0 { weights.map(|w| w / sum) } else { [0.0; 4] };
            let joints = std::array::from_fn(|i| if weights[i] > 0.0 { joints[i] } else { 0 });
            Ok(Influence { joints, weights })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

impl Skin {
    /// The largest joint index `influences` use must name one of this skin's joints, and every
    /// vertex needs a weight (a vertex with none has no skinned position).
    pub fn check_influences(&self, influences: &[Influence]) -> Result<(), String> {
        if let Some(vertex) = influences.iter().position(|i| i.weights.iter().all(|&w| w == 0.0)) {
            return Err(format!("WEIGHTS_0 of vertex {vertex} is all 0, but {} skins it", self.label));
        }
        let largest = influences.iter().flat_map(|i| i.joints).max().unwrap_or(0) as usize;
        if largest >= self.joints.len() {
            return Err(format!(
                "JOINTS_0 refers to joint {largest} but {} has {} joints",
                self.label,
                self.joints.len()
            ));
        }
        Ok(())
    }

    /// Fills `matrices` with each joint's skinning matrix, `axes · global joint · inverse bind`, where
    /// `world` holds every node's global transform and `axes` maps the result into powder's frame.
    pub fn joint_matrices(&self, world: &[Mat4], axes: &Mat4, matrices: &mut Vec<Mat4>) {
        matrices.clear();
        matrices.extend(self.joints.iter().zip(&self.inverse_bind).map(|(&joint, ibm)| *axes * world[joint] * *ibm));
    }
}

/// Appends the skinned `positions` to `out`: each is `Σ weight · joint matrix · position`. The
/// matrices are affine, so each term transforms a point; summing the transformed points equals
/// transforming by the blended matrix, with fewer operations.
pub(crate) fn skin_positions(positions: &[Vec3], influences: &[Influence], matrices: &[Mat4], out: &mut Vec<Vec3>) {
    out.extend(positions.iter().zip(influences).map(|(&p, influence)| {
        let p = p.extend(1.0);
        let mut skinned = Vec4::ZERO;
        for (&joint, &weight) in influence.joints.iter().zip(&influence.weights) {
            skinned += weight * (matrices[joint as usize] * p);
        }
        skinned.truncate()
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_is_the_weighted_sum_of_joint_transforms() {
        // Joint 0 stays put, joint 1 moves +2 in x: a 0.25/0.75 vertex moves 1.5. Exact in f32.
        let matrices = [Mat4::IDENTITY, Mat4::from_translation(Vec3::X * 2.0)];
        let influences = [Influence { joints: [0, 1, 0, 0], weights: [0.25, 0.75, 0.0, 0.0] }];
        let mut out = Vec::new();
        skin_positions(&[Vec3::Y], &influences, &matrices, &mut out);
        assert_eq!(out, vec![Vec3::new(1.5, 1.0, 0.0)]);
    }

    #[test]
    fn joint_past_the_skin_is_reported() {
        let skin = Skin { label: "skin 'rig'".into(), joints: vec![3, 4], inverse_bind: vec![Mat4::IDENTITY; 2] };
        let influences = [Influence { joints: [0, 2, 0, 0], weights: [0.5, 0.5, 0.0, 0.0] }];
        let message = skin.check_influences(&influences).unwrap_err();
        assert_eq!(message, "JOINTS_0 refers to joint 2 but skin 'rig' has 2 joints");
    }

    #[test]
    fn a_skinned_vertex_without_weight_is_reported() {
        let skin = Skin { label: "skin 'rig'".into(), joints: vec![3, 4], inverse_bind: vec![Mat4::IDENTITY; 2] };
        let weighted = Influence { joints: [0, 1, 0, 0], weights: [0.5, 0.5, 0.0, 0.0] };
        let unweighted = Influence { joints: [0; 4], weights: [0.0; 4] };
        let message = skin.check_influences(&[weighted, unweighted]).unwrap_err();
        assert_eq!(message, "WEIGHTS_0 of vertex 1 is all 0, but skin 'rig' skins it");
        assert!(skin.check_influences(&[weighted]).is_ok());
    }
}
