//! Binary PLY point clouds of the particles.
//!
//! Layout (`binary_little_endian 1.0`), one `vertex` element per particle, 32 bytes each:
//! `float x, y, z` (metres, z up), `float vx, vy, vz` (m/s), `float jp` (plastic volume ratio J_P),
//! `uint material` (the emitter that made the particle).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::files::ExportError;
use crate::sim::params::GpuParticle;

/// The vertex properties, in order, as they appear in the header.
const PROPERTIES: [(&str, &str); 8] = [
    ("float", "x"),
    ("float", "y"),
    ("float", "z"),
    ("float", "vx"),
    ("float", "vy"),
    ("float", "vz"),
    ("float", "jp"),
    ("uint", "material"),
];
/// Bytes per vertex.
const RECORD: usize = 32;

/// One particle as stored in a PLY file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlyPoint {
    /// Position, metres.
    pub position: [f32; 3],
    /// Velocity, m/s.
    pub velocity: [f32; 3],
    /// Plastic volume ratio J_P.
    pub plastic_jacobian: f32,
    /// Material id (emitter index).
    pub material: u32,
}

impl From<&GpuParticle> for PlyPoint {
    fn from(p: &GpuParticle) -> Self {
        Self { position: p.position, velocity: p.velocity, plastic_jacobian: p.plastic_jacobian, material: p.material }
    }
}

/// The header text for `count` vertices, `end_header` line included.
fn header(count: usize) -> String {
    let mut h = format!(
        "ply\nformat binary_little_endian 1.0\ncomment powder snow particles (z up, metres)\n\
         element vertex {count}\n"
    );
    for (ty, name) in PROPERTIES {
        h.push_str(&format!("property {ty} {name}\n"));
    }
    h.push_str("end_header\n");
    h
}

/// Writes `particles` to `path` as a binary PLY file, atomically ([`super::atomic::write_atomic`]):
/// `path` is never half-written, and after a crash it holds either the old frame or the whole new
/// one.
pub fn write_ply(path: &Path, particles: &[GpuParticle]) -> Result<(), ExportError> {
    super::atomic::write_atomic(path, |w| {
        w.write_all(header(particles.len()).as_bytes())?;
        let mut record = [0u8; RECORD];
        for p in particles {
            let floats = [
                p.position[0],
                p.position[1],
                p.position[2],
                p.velocity[0],
                p.velocity[1],
                p.velocity[2],
                p.plastic_jacobian,
            ];
            for (chunk, f) in record.chunks_exact_mut(4).zip(floats) {
                chunk.copy_from_slice(&f.to_le_bytes());
            }
            record[28..].copy_from_slice(&p.material.to_le_bytes());
            w.write_all(&record)?;
        }
        Ok(())
    })
}

/// Reads a PLY file written by [`write_ply`] (exactly that header layout; anything else is a
/// [`ExportError::Format`] error).
pub fn read_ply(path: &Path) -> Result<Vec<PlyPoint>, ExportError> {
    let io = |source| ExportError::Io { path: path.to_path_buf(), source };
    let format = |message: String| ExportError::Format { path: path.to_path_buf(), message };
    let mut r = BufReader::new(File::open(path).map_err(io)?);
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).map_err(io)? == 0 {
            return Err(format("the header has no end_header line".to_string()));
        }
        let line = line.trim_end().to_string();
        if line == "end_header" {
            break;
        }
        if !line.starts_with("comment") {
            lines.push(line);
        }
        if lines.len() > 64 {
            return Err(format("the header is too long".to_string()));
        }
    }
    let expect = |i: usize, want: &str| -> Result<(), ExportError> {
        match lines.get(i) {
            Some(l) if l == want => Ok(()),
            other => Err(format(format!("header line {i}: expected {want:?}, found {other:?}"))),
        }
    };
    expect(0, "ply")?;
    expect(1, "format binary_little_endian 1.0")?;
    let count: usize = lines
        .get(2)
        .and_then(|l| l.strip_prefix("element vertex "))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format(format!("expected \"element vertex N\", found {:?}", lines.get(2))))?;
    for (i, (ty, name)) in PROPERTIES.iter().enumerate() {
        expect(3 + i, &format!("property {ty} {name}"))?;
    }
    if lines.len() != 3 + PROPERTIES.len() {
        return Err(format(format!("unexpected header line {:?}", lines[3 + PROPERTIES.len()])));
    }
    let mut data = Vec::new();
    r.read_to_end(&mut data).map_err(io)?;
    let need = count.checked_mul(RECORD);
    if need != Some(data.len()) {
        let message = format!("{count} vertices need {need:?} bytes, found {}", data.len());
        return Err(format(message));
    }
    let word = |rec: &[u8], i: usize| [rec[4 * i], rec[4 * i + 1], rec[4 * i + 2], rec[4 * i + 3]];
    Ok(data
        .chunks_exact(RECORD)
        .map(|rec| {
            let f = |i| f32::from_le_bytes(word(rec, i));
            PlyPoint {
                position: [f(0), f(1), f(2)],
                velocity: [f(3), f(4), f(5)],
                plastic_jacobian: f(6),
                material: u32::from_le_bytes(word(rec, 7)),
            }
        })
        .collect())
}
