//! Every index of a glTF document that powder follows, checked against the array it points into.
//!
//! The `gltf` crate's validation reads a primitive's POSITION accessor by index before checking it
//! (a panic on `mesh/unresolved_positions.gltf` of the glTF-Validator suite), and never checks an
//! animation channel's target node, which its `Target::node` then unwraps. So these checks run
//! before the crate sees the document, and their messages name the object, the field and the bad
//! index. Indices powder never follows (materials, textures, images, cameras) are checked too: an
//! index out of range means a broken file, and this way every such message reads alike.

use gltf::json::{Index, Root};

use super::error::label;

/// How many objects an array holds, and what they are called.
struct Array {
    len: usize,
    singular: &'static str,
    plural: &'static str,
}

impl Array {
    fn new<T>(items: &[T], singular: &'static str, plural: &'static str) -> Array {
        Array { len: items.len(), singular, plural }
    }

    /// The error for `field` of `at` when `index` is not in this array.
    fn check<T>(&self, at: &str, field: &str, index: Index<T>, owner: &str) -> Result<(), String> {
        let i = index.value();
        if i < self.len {
            return Ok(());
        }
        let has = match self.len {
            0 => format!("no {}", self.plural),
            1 => format!("1 {}", self.singular),
            n => format!("{n} {}", self.plural),
        };
        Err(format!("{at}: {field} names {} {i}, but {owner} has {has}", self.singular))
    }
}

/// Checks the indices of `root`. `channel_numbers` gives, per animation, the file's number of each
/// channel (some may have been dropped), so messages match the file.
pub(crate) fn check_indices(root: &Root, channel_numbers: &[Vec<usize>]) -> Result<(), String> {
    let file = "the file";
    let accessors = Array::new(&root.accessors, "accessor", "accessors");
    let views = Array::new(&root.buffer_views, "buffer view", "buffer views");
    let buffers = Array::new(&root.buffers, "buffer", "buffers");
    let nodes = Array::new(&root.nodes, "node", "nodes");
    let meshes = Array::new(&root.meshes, "mesh", "meshes");
    let skins = Array::new(&root.skins, "skin", "skins");
    let scenes = Array::new(&root.scenes, "scene", "scenes");
    let cameras = Array::new(&root.cameras, "camera", "cameras");
    let materials = Array::new(&root.materials, "material", "materials");
    let textures = Array::new(&root.textures, "texture", "textures");
    let images = Array::new(&root.images, "image", "images");
    let texture_samplers = Array::new(&root.samplers, "texture sampler", "texture samplers");

    if let Some(scene) = root.scene {
        scenes.check("the document", "scene", scene, file)?;
    }
    for (s, scene) in root.scenes.iter().enumerate() {
        let at = label("scene", s, scene.name.as_deref());
        scene.nodes.iter().try_for_each(|&node| nodes.check(&at, "nodes", node, file))?;
    }
    for (n, node) in root.nodes.iter().enumerate() {
        let at = label("node", n, node.name.as_deref());
        node.children.iter().flatten().try_for_each(|&child| nodes.check(&at, "children", child, file))?;
        node.mesh.map_or(Ok(()), |mesh| meshes.check(&at, "mesh", mesh, file))?;
        node.skin.map_or(Ok(()), |skin| skins.check(&at, "skin", skin, file))?;
        node.camera.map_or(Ok(()), |camera| cameras.check(&at, "camera", camera, file))?;
    }
    for (m, mesh) in root.meshes.iter().enumerate() {
        let mesh_label = label("mesh", m, mesh.name.as_deref());
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let at = format!("{mesh_label} primitive {p}");
            for (semantic, &accessor) in &primitive.attributes {
                accessors.check(&at, &semantic.to_string(), accessor, file)?;
            }
            primitive.indices.map_or(Ok(()), |indices| accessors.check(&at, "indices", indices, file))?;
            primitive.material.map_or(Ok(()), |material| materials.check(&at, "material", material, file))?;
            for (t, target) in primitive.targets.iter().flatten().enumerate() {
                for (name, accessor) in
                    [("POSITION", target.positions), ("NORMAL", target.normals), ("TANGENT", target.tangents)]
                {
                    let field = format!("morph target {t} {name}");
                    accessor.map_or(Ok(()), |accessor| accessors.check(&at, &field, accessor, file))?;
                }
            }
        }
    }
    for (s, skin) in root.skins.iter().enumerate() {
        let at = label("skin", s, skin.name.as_deref());
        let matrices = skin.inverse_bind_matrices;
        matrices.map_or(Ok(()), |accessor| accessors.check(&at, "inverseBindMatrices", accessor, file))?;
        skin.joints.iter().try_for_each(|&joint| nodes.check(&at, "joints", joint, file))?;
        skin.skeleton.map_or(Ok(()), |node| nodes.check(&at, "skeleton", node, file))?;
    }
    for (a, animation) in root.animations.iter().enumerate() {
        let animation_label = label("animation", a, animation.name.as_deref());
        let samplers = Array::new(&animation.samplers, "sampler", "samplers");
        for (c, channel) in animation.channels.iter().enumerate() {
            let number = channel_numbers.get(a).and_then(|numbers| numbers.get(c)).copied().unwrap_or(c);
            let at = format!("{animation_label} channel {number}");
            samplers.check(&at, "sampler", channel.sampler, "the animation")?;
            nodes.check(&at, "target node", channel.target.node, file)?;
        }
        for (s, sampler) in animation.samplers.iter().enumerate() {
            let at = format!("{animation_label} sampler {s}");
            accessors.check(&at, "input", sampler.input, file)?;
            accessors.check(&at, "output", sampler.output, file)?;
        }
    }
    for (a, accessor) in root.accessors.iter().enumerate() {
        let at = label("accessor", a, accessor.name.as_deref());
        accessor.buffer_view.map_or(Ok(()), |view| views.check(&at, "bufferView", view, file))?;
        if let Some(sparse) = &accessor.sparse {
            views.check(&at, "sparse indices bufferView", sparse.indices.buffer_view, file)?;
            views.check(&at, "sparse values bufferView", sparse.values.buffer_view, file)?;
        }
    }
    for (m, material) in root.materials.iter().enumerate() {
        let at = label("material", m, material.name.as_deref());
        let pbr = &material.pbr_metallic_roughness;
        let infos = [
            ("baseColorTexture", pbr.base_color_texture.as_ref().map(|info| info.index)),
            ("metallicRoughnessTexture", pbr.metallic_roughness_texture.as_ref().map(|info| info.index)),
            ("normalTexture", material.normal_texture.as_ref().map(|info| info.index)),
            ("occlusionTexture", material.occlusion_texture.as_ref().map(|info| info.index)),
            ("emissiveTexture", material.emissive_texture.as_ref().map(|info| info.index)),
        ];
        for (field, texture) in infos {
            texture.map_or(Ok(()), |texture| textures.check(&at, field, texture, file))?;
        }
    }
    for (t, texture) in root.textures.iter().enumerate() {
        let at = label("texture", t, texture.name.as_deref());
        // u32::MAX is how the crate marks a texture without `source` (extensions give the image).
        if texture.source.value() != u32::MAX as usize {
            images.check(&at, "source", texture.source, file)?;
        }
        texture.sampler.map_or(Ok(()), |sampler| texture_samplers.check(&at, "sampler", sampler, file))?;
    }
    for (i, image) in root.images.iter().enumerate() {
        let at = label("image", i, image.name.as_deref());
        image.buffer_view.map_or(Ok(()), |view| views.check(&at, "bufferView", view, file))?;
    }
    for (v, view) in root.buffer_views.iter().enumerate() {
        let at = label("buffer view", v, view.name.as_deref());
        buffers.check(&at, "buffer", view.buffer, file)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_object_field_index_and_count() {
        let root: Root = serde_json::from_str(
            r#"{ "asset": { "version": "2.0" }, "accessors": [{ "count": 1, "componentType": 5126, "type": "VEC3" }],
                 "meshes": [{ "name": "body", "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 3 }] }] }"#,
        )
        .unwrap();
        let message = check_indices(&root, &[]).unwrap_err();
        assert_eq!(message, "mesh 'body' primitive 0: indices names accessor 3, but the file has 1 accessor");
    }
}
