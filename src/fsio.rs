//! Reading input files with bounds: only regular files, only up to a stated size.
//!
//! Scene files, glTF files and their buffers come from users, and a path may name something that is
//! not a file: `/dev/zero` never ends, a named pipe blocks until a writer appears, a directory has
//! no bytes. Every input read goes through [`read_limited`], which looks at what the path is before
//! opening it and stops after `limit` bytes, so no input can take unbounded memory or hang.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest scene file read: far above any hand-written or generated scene (the shipped ones are
/// a few kilobytes), small enough that parsing it costs nothing.
pub const SCENE_FILE_LIMIT: u64 = 16 << 20;

/// The largest glTF file (`.gltf` JSON or `.glb`) or external glTF buffer read: 1 GiB holds a mesh
/// of tens of millions of triangles, far past what a collider or emitter can use at any grid size.
pub const GLTF_FILE_LIMIT: u64 = 1 << 30;

/// Reads the whole of the regular file at `path`, refusing anything else and anything larger than
/// `limit` bytes.
///
/// The path's type is checked before the file is opened (opening a named pipe blocks), and the read
/// itself stops after `limit + 1` bytes, so a file that grows after the check is refused too.
/// Refusals are `io::Error`s of kind `InvalidInput` whose message says what the path is or how large
/// it is against the limit; callers put the path in front.
pub fn read_limited(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    check_regular(&meta)?;
    if meta.len() > limit {
        return Err(too_large(meta.len(), limit));
    }
    let file = File::open(path)?;
    // The path may have been replaced between the check and the open.
    check_regular(&file.metadata()?)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// [`read_limited`] for text: the bytes must be UTF-8. A UTF-8 byte order mark at the start is
/// dropped (editors on Windows write one; it is not part of the text).
pub fn read_text_limited(path: &Path, limit: u64) -> io::Result<String> {
    let mut bytes = read_limited(path, limit)?;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the file is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()),
        )
    })
}

fn check_regular(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() { "a directory" } else { "not a regular file (a device, pipe or socket)" };
    Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{what}; powder reads only regular files")))
}

fn too_large(len: u64, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("the file is {len} bytes or more; files larger than {limit} bytes are refused"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_directories_and_large_files() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_limited(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let err = read_limited(dir.path(), 1 << 20).unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");

        let file = dir.path().join("a.bin");
        std::fs::write(&file, [7u8; 100]).unwrap();
        assert_eq!(read_limited(&file, 100).unwrap(), vec![7u8; 100]);
        let err = read_limited(&file, 99).unwrap_err();
        assert!(err.to_string().contains("larger than 99 bytes"), "{err}");
    }

    #[test]
    fn refuses_a_named_pipe_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        // Opening the pipe would block forever with no writer; the check must come first.
        let err = read_limited(&fifo, 1 << 20).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn text_drops_a_byte_order_mark_and_names_bad_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, b"\xEF\xBB\xBF{}").unwrap();
        assert_eq!(read_text_limited(&file, 100).unwrap(), "{}");
        std::fs::write(&file, b"{\xFF}").unwrap();
        let err = read_text_limited(&file, 100).unwrap_err();
        assert!(err.to_string().contains("offset 1"), "{err}");
    }
}
