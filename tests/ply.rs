//! PLY export: exact round trip, header layout, and atomic writes.

use glam::Vec3;
use powder::export::{ExportError, PlyPoint, frame_file_name, read_ply, write_ply};
use powder::sim::params::GpuParticle;

const HEADER: &str = "ply\n\
format binary_little_endian 1.0\n\
comment powder snow particles (z up, metres)\n\
element vertex 3\n\
property float x\n\
property float y\n\
property float z\n\
property float vx\n\
property float vy\n\
property float vz\n\
property float jp\n\
property uint material\n\
end_header\n";

fn particles() -> Vec<GpuParticle> {
    let mut a = GpuParticle::new(Vec3::new(0.1, 0.2, 0.3), Vec3::new(-1.5, 0.0, 2.25), 0.01, 1e-5, 0);
    a.plastic_jacobian = 0.875;
    let b = GpuParticle::new(Vec3::new(1.0e-7, 1.9999, -0.0), Vec3::splat(f32::MIN_POSITIVE), 1.0, 1.0, 7);
    let mut c = GpuParticle::new(Vec3::new(123.456, -7.0, 3.0e5), Vec3::new(49.9, -50.0, 0.1), 2.0, 3.0, u32::MAX);
    c.plastic_jacobian = 1.0e-3;
    vec![a, b, c]
}

#[test]
fn round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(frame_file_name(42));
    assert!(path.ends_with("frame_00042.ply"));
    let ps = particles();
    write_ply(&path, &ps).unwrap();
    let back = read_ply(&path).unwrap();
    let expected: Vec<PlyPoint> = ps.iter().map(PlyPoint::from).collect();
    assert_eq!(back.len(), 3);
    for (b, e) in back.iter().zip(&expected) {
        // Bitwise, so -0.0 and denormal-adjacent values are checked too.
        let bits = |p: &PlyPoint| {
            let mut v: Vec<u32> = p.position.iter().chain(&p.velocity).map(|f| f.to_bits()).collect();
            v.extend([p.plastic_jacobian.to_bits(), p.material]);
            v
        };
        assert_eq!(bits(b), bits(e));
    }
    assert_eq!(back[2].material, u32::MAX);
    assert_eq!(back[0].plastic_jacobian, 0.875);
}

#[test]
fn header_and_size_are_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.ply");
    write_ply(&path, &particles()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.starts_with(HEADER.as_bytes()));
    assert_eq!(bytes.len(), HEADER.len() + 3 * 32);
    // First vertex: x = 0.1 as little-endian f32 right after the header; material of the last.
    assert_eq!(&bytes[HEADER.len()..HEADER.len() + 4], &0.1f32.to_le_bytes());
    assert_eq!(&bytes[bytes.len() - 4..], &u32::MAX.to_le_bytes());
    // Only the final file remains: the temporary file was renamed, not copied.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["f.ply"]);
    // Overwriting an existing frame works, and an empty frame is valid.
    write_ply(&path, &[]).unwrap();
    assert!(read_ply(&path).unwrap().is_empty());
    let text = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(text, HEADER.replace("vertex 3", "vertex 0"));
}

#[test]
fn missing_directory_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("frame_00000.ply");
    let err = write_ply(&path, &particles()).unwrap_err();
    assert!(matches!(err, ExportError::Io { .. }));
    assert!(err.to_string().contains("frame_00000.ply"), "{err}");
    assert!(!path.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn truncated_or_foreign_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.ply");
    write_ply(&path, &particles()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    assert!(matches!(read_ply(&path), Err(ExportError::Format { .. })));
    std::fs::write(&path, b"ply\nformat ascii 1.0\nelement vertex 0\nend_header\n").unwrap();
    let err = read_ply(&path).unwrap_err();
    assert!(matches!(err, ExportError::Format { .. }) && err.to_string().contains("t.ply"), "{err}");
}
