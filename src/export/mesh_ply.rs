//! Binary PLY triangle meshes of the snow's surface, one file per frame (`surface_00042.ply`).
//!
//! Layout (`binary_little_endian 1.0`): `element vertex` with `float x, y, z` (metres, z up) and
//! `float nx, ny, nz` (unit outward normal), then `element face` with `list uchar uint
//! vertex_indices`, three per face, wound counter-clockwise seen from outside the snow. Blender,
//! Houdini and MeshLab import it with smooth normals.

use std::path::Path;

use glam::Vec3;

use super::files::ExportError;
use crate::render::surface_cpu::IndexedMesh;

/// File name of the surface mesh of output frame `frame`: `surface_00042.ply`.
pub fn surface_file_name(frame: u32) -> String {
    format!("surface_{frame:05}.ply")
}

/// The file's bytes.
pub fn encode_mesh_ply(mesh: &IndexedMesh) -> Vec<u8> {
    let header = format!(
        "ply\nformat binary_little_endian 1.0\ncomment powder snow surface (z up, metres)\n\
         element vertex {}\nproperty float x\nproperty float y\nproperty float z\n\
         property float nx\nproperty float ny\nproperty float nz\n\
         element face {}\nproperty list uchar uint vertex_indices\nend_header\n",
        mesh.positions.len(),
        mesh.triangles.len()
    );
    let mut out = Vec::with_capacity(header.len() + 24 * mesh.positions.len() + 13 * mesh.triangles.len());
    out.extend_from_slice(header.as_bytes());
    for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
        for f in p.to_array().into_iter().chain(n.to_array()) {
            out.extend_from_slice(&f.to_le_bytes());
        }
    }
    for t in &mesh.triangles {
        out.push(3);
        for i in t {
            out.extend_from_slice(&i.to_le_bytes());
        }
    }
    out
}

/// Writes `mesh` to `path` (through a temporary file, synced and renamed into place: see
/// [`super::atomic::write_atomic`]).
pub fn write_mesh_ply(path: &Path, mesh: &IndexedMesh) -> Result<(), ExportError> {
    super::atomic::write_atomic(path, |w| w.write_all(&encode_mesh_ply(mesh)))
}

/// Reads a file written by [`write_mesh_ply`] (exactly that layout; anything else, or a face
/// index past the vertices, is an [`ExportError::Format`] error). Reads at most what the file
/// holds: the counts in the header are checked against its length before anything is allocated.
pub fn read_mesh_ply(path: &Path) -> Result<IndexedMesh, ExportError> {
    let bytes = std::fs::read(path).map_err(|source| ExportError::Io { path: path.to_path_buf(), source })?;
    let format = |message: String| ExportError::Format { path: path.to_path_buf(), message };
    let end = b"end_header\n";
    let split = bytes.windows(end.len()).position(|w| w == end).ok_or_else(|| format("no end_header".into()))?;
    let header = std::str::from_utf8(&bytes[..split]).map_err(|_| format("header is not text".into()))?;
    let count = |element: &str| -> Result<usize, ExportError> {
        header
            .lines()
            .find_map(|l| l.strip_prefix(&format!("element {element} ")))
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format(format!("no element {element} count")))
    };
    let (vertices, faces) = (count("vertex")?, count("face")?);
    let body = &bytes[split + end.len()..];
    let expected = vertices.checked_mul(24).zip(faces.checked_mul(13)).and_then(|(a, b)| a.checked_add(b));
    if expected != Some(body.len()) {
        return Err(format(format!("{} bytes of data for {vertices} vertices and {faces} faces", body.len())));
    }
    let float = |at: usize| f32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
    let mut mesh = IndexedMesh::default();
    for v in 0..vertices {
        let at = 24 * v;
        mesh.positions.push(Vec3::new(float(at), float(at + 4), float(at + 8)));
        mesh.normals.push(Vec3::new(float(at + 12), float(at + 16), float(at + 20)));
    }
    for f in 0..faces {
        let at = 24 * vertices + 13 * f;
        if body[at] != 3 {
            return Err(format(format!("face {f} has {} corners, not 3", body[at])));
        }
        let index = |k: usize| u32::from_le_bytes(body[at + 1 + 4 * k..at + 5 + 4 * k].try_into().expect("4 bytes"));
        let t = [index(0), index(1), index(2)];
        if t.iter().any(|&i| i as usize >= vertices) {
            return Err(format(format!("face {f} names vertex {t:?} of {vertices}")));
        }
        mesh.triangles.push(t);
    }
    Ok(mesh)
}
