//! Loading a glTF document's buffers: the GLB's binary chunk, base64 data URIs, and files next to
//! the glTF file.
//!
//! A buffer URI comes from the file, not from the user, so it may only name a file inside the glTF
//! file's own folder (or below it): an absolute path, another URI scheme, or a relative path that
//! resolves elsewhere (`../../etc/passwd`, or a link pointing out) is refused. Files are read with
//! [`read_limited`], so a device or a named pipe is refused before it is opened.

use std::path::{Path, PathBuf};

use gltf::buffer::{Data, Source};

use crate::fsio::{GLTF_FILE_LIMIT, read_limited};

/// Why one buffer could not be loaded; the caller names the file, the buffer and its URI.
pub(crate) struct BufferError {
    pub index: usize,
    pub uri: Option<String>,
    pub what: String,
}

/// The bytes of every buffer of `document`, in order. `file` is the glTF file (buffer URIs are
/// relative to its folder), `bin` its GLB binary chunk, and `zero_buffer` the index of the buffer of
/// zeros that loading added (it has no source in the file).
pub(crate) fn load_buffers(
    document: &gltf::Document,
    file: &Path,
    bin: Option<&[u8]>,
    zero_buffer: Option<usize>,
) -> Result<Vec<Data>, BufferError> {
    let mut bin = bin;
    document
        .buffers()
        .map(|buffer| {
            let (index, length) = (buffer.index(), buffer.length());
            let uri = match buffer.source() {
                Source::Uri(uri) => Some(uri.to_owned()),
                Source::Bin => None,
            };
            let error = |what: String| BufferError { index, uri: uri.clone(), what };
            let bytes = match (&uri, zero_buffer == Some(index)) {
                (_, true) => vec![0; length],
                // Only the first buffer of a GLB may use the binary chunk (glTF 2.0, section 4.4.3.3).
                // Without one, the buffer holds nothing: valid while no accessor reads it, and one
                // that does is refused by `accessor::check` as reaching past the buffer's end.
                (None, false) => match bin.take() {
                    Some(bin) => bin.to_vec(),
                    None => {
                        log::warn!(
                            "{}: buffer {index} has no uri and no GLB binary chunk to use; it holds no data",
                            file.display()
                        );
                        return Ok(Data(Vec::new()));
                    }
                },
                (Some(uri), false) if uri.starts_with("data:") => {
                    // Data URIs need no folder; the crate decodes their base64.
                    Data::from_source_and_blob(Source::Uri(uri), None, &mut None)
                        .map_err(|e| error(format!("the data URI does not decode: {e}")))?
                        .0
                }
                (Some(uri), false) => {
                    let path = resolve(file, uri).map_err(error)?;
                    read_limited(&path, GLTF_FILE_LIMIT)
                        .map_err(|e| error(format!("cannot read {}: {e}", path.display())))?
                }
            };
            if bytes.len() < length {
                return Err(error(format!("has {} bytes but declares byteLength {length}", bytes.len())));
            }
            Ok(Data(bytes))
        })
        .collect()
}

/// The file a buffer's relative `uri` names, which must lie inside the folder of `file`.
fn resolve(file: &Path, uri: &str) -> Result<PathBuf, String> {
    let only = "powder reads buffers only from the glTF file's folder or data URIs";
    // A colon before the first slash starts a URI scheme (RFC 3986, section 4.2).
    if uri.split('/').next().is_some_and(|first| first.contains(':')) {
        return Err(format!("is not a relative path; {only}"));
    }
    let decoded = urlencoding::decode(uri).map_err(|_| "percent-decodes to bytes that are not UTF-8".to_string())?;
    let relative = Path::new(decoded.as_ref());
    if relative.has_root() {
        return Err(format!("is an absolute path; {only}"));
    }
    let folder = file.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let folder = folder.canonicalize().map_err(|e| format!("cannot resolve the folder {}: {e}", folder.display()))?;
    let target = folder.join(relative);
    let target = target.canonicalize().map_err(|e| format!("cannot read {}: {e}", target.display()))?;
    if !target.starts_with(&folder) {
        return Err(format!("resolves to {}, outside {}; {only}", target.display(), folder.display()));
    }
    Ok(target)
}
