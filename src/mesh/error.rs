//! What can go wrong importing a glTF file. Every message starts with the file's path and says what
//! in the file is wrong (which mesh, primitive, skin or animation), so a user can find it.

use std::path::PathBuf;

use thiserror::Error;

/// An error loading a glTF file or selecting one of its animations.
#[derive(Debug, Error)]
pub enum GltfError {
    /// The file could not be read from disk.
    #[error("{}: cannot read the file: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not glTF 2.0: neither a GLB container nor JSON text, a truncated or corrupt GLB
    /// container, JSON syntax, or a JSON document that is not glTF. `what` says which and where.
    #[error("{}: not a readable glTF 2.0 file: {what}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the byte offset, JSON line and column or field where known.
        what: String,
    },
    /// The file requires a glTF extension powder cannot honour (compressed geometry, or one powder
    /// does not know and so cannot tell whether it changes the geometry).
    #[error("{}: requires the glTF extension {name}, {reason}", path.display())]
    Extension {
        /// The file.
        path: PathBuf,
        /// The extension as `extensionsRequired` names it.
        name: String,
        /// Why powder cannot honour it.
        reason: String,
    },
    /// A buffer the document refers to could not be loaded: a missing `.bin`, a URI outside the glTF
    /// file's folder, a bad data URI, a buffer shorter than its declared length.
    #[error("{}: buffer {index}{}: {what}", path.display(), uri_label(uri))]
    Buffer {
        /// The file.
        path: PathBuf,
        /// The buffer's index in the document.
        index: usize,
        /// The buffer's URI, when it has one (GLB's own binary chunk has none). Data URIs are
        /// shortened so the message stays readable.
        uri: Option<String>,
        /// Why.
        what: String,
    },
    /// The document parses but its content cannot be imported: an accessor of the wrong type, a
    /// joint index past the skin's joints, a node hierarchy with a cycle, and so on. `what` names
    /// the mesh, primitive, skin, node or animation and the problem.
    #[error("{}: {what}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and where in the document.
        what: String,
    },
    /// The default scene has no triangle primitives at all (only points or lines, or no meshes), so
    /// it cannot make a collider.
    #[error("{}: the scene has no triangles (primitives of mode POINTS or LINES are skipped)", path.display())]
    NoTriangles {
        /// The file.
        path: PathBuf,
    },
    /// An animation was asked for by a name or index the file does not have.
    #[error("{}: no animation {asked}; the file has {available}", path.display())]
    UnknownAnimation {
        /// The file.
        path: PathBuf,
        /// What was asked for, as written in messages (`'walk'` or `index 3`).
        asked: String,
        /// The animations the file has, by index and name, or "no animations".
        available: String,
    },
}

/// `" ('scene.bin')"` for a buffer with a URI; data URIs are cut after their media type because the
/// base64 payload would drown the message.
fn uri_label(uri: &Option<String>) -> String {
    match uri {
        None => String::new(),
        Some(uri) if uri.starts_with("data:") => {
            let head = uri.split(',').next().unwrap_or(uri);
            format!(" ('{head},…')")
        }
        Some(uri) => format!(" ('{uri}')"),
    }
}

/// How messages name a glTF object: `mesh 'body'` when it has a name, `mesh 3` otherwise.
pub(crate) fn label(kind: &str, index: usize, name: Option<&str>) -> String {
    match name {
        Some(name) if !name.is_empty() => format!("{kind} '{name}'"),
        _ => format!("{kind} {index}"),
    }
}
