//! Triangle meshes in powder's frame (z up, metres), and how glTF files become them.
//!
//! [`TriangleMesh`] is the one mesh type the rest of powder sees: colliders turn it into a signed
//! distance field (`crate::collider`), mesh emitters fill its inside with snow, and the renderer
//! draws it. glTF import (`gltf_import`) flattens a file's node hierarchy, animation and skins
//! into one `TriangleMesh` per sampled time.

mod accessor;
mod animation;
mod buffers;
mod container;
mod document;
mod error;
mod gltf_import;
mod gltf_read;
mod indices;
mod skin;
mod topology;
mod triangle_mesh;

pub use animation::{AnimationInfo, AnimationSelector};
pub use error::GltfError;
pub use gltf_import::{GLTF_TO_POWDER, GltfModel};
pub use triangle_mesh::TriangleMesh;
