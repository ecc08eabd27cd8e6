//! PLY export: exact round trip, header layout, atomic writes, and the output directory (frames of
//! an earlier run refused or cleared, temporaries of a killed run removed).

use glam::Vec3;
use powder::export::{ExportError, OutputDir, PlyPoint, frame_file_name, read_ply, write_ply};
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

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn an_output_directory_with_frames_is_refused_unless_overwriting_and_only_frames_go() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("frames");
    // A missing directory is fine and is created when prepared.
    let fresh = OutputDir::inspect(&out, false).unwrap();
    assert_eq!((fresh.old_frames(), fresh.stale_temporaries()), (0, 0));
    fresh.prepare().unwrap();
    assert!(out.is_dir());
    for frame in 0..7 {
        write_ply(&out.join(frame_file_name(frame)), &particles()).unwrap();
    }
    // Things that are not powder's frames stay, whatever they are called.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("frame_1.ply"), "not five digits").unwrap();
    std::fs::write(out.join(".tmpAb12Cd"), "another program's temporary").unwrap();
    std::fs::create_dir(out.join("frame_00100.ply")).unwrap();
    let before = names_in(&out);

    let err = OutputDir::inspect(&out, false).unwrap_err();
    assert!(matches!(err, ExportError::HoldsFrames { frames: 7, .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains(&out.display().to_string()) && msg.contains("7 frames") && msg.contains("--overwrite"),
        "{msg}"
    );
    assert_eq!(names_in(&out), before, "a refusal changes nothing");

    let replacing = OutputDir::inspect(&out, true).unwrap();
    assert_eq!(replacing.old_frames(), 7);
    assert_eq!(names_in(&out), before, "looking changes nothing");
    replacing.prepare().unwrap();
    assert_eq!(names_in(&out), [".tmpAb12Cd", "frame_00100.ply", "frame_1.ply", "notes.txt"]);
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
}

#[test]
fn a_temporary_left_by_a_killed_write_is_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    // What a run killed while writing frame 3 leaves: write_ply's temporary, empty, under the name
    // write_ply gives it (tests/cli.rs checks that name on a real run).
    let stale = dir.path().join(".powder-frame_00003.ply-k1LL3d.tmp");
    std::fs::write(&stale, b"").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let out = OutputDir::inspect(dir.path(), false).unwrap();
    assert_eq!((out.old_frames(), out.stale_temporaries()), (0, 1));
    out.prepare().unwrap();
    assert_eq!(names_in(dir.path()), ["notes.txt"]);
}
