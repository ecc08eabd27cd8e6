//! Telling a glTF file's container apart and splitting a GLB into its JSON and binary chunks.
//!
//! The `gltf` crate's GLB reader reports a cut-off chunk header as `failed to fill whole buffer`,
//! reads bytes after the declared end as a further chunk, and subtracts the header from the declared
//! length unchecked. A GLB is a 12-byte header and a list of chunks (glTF 2.0, section 4.4), so it is
//! split here, with messages that give the offsets and lengths involved.

use std::path::Path;

/// What a file's bytes hold: glTF JSON text, or a GLB's JSON chunk and its binary chunk.
pub(crate) struct Container<'a> {
    /// The JSON document.
    pub json: &'a [u8],
    /// The GLB's first `BIN` chunk, which a buffer without a `uri` refers to.
    pub bin: Option<&'a [u8]>,
}

const GLB_MAGIC: &[u8; 4] = b"glTF";
const HEADER: usize = 12;
const CHUNK_HEADER: usize = 8;
/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Splits `bytes` (the whole file at `path`, for warnings) into JSON and binary chunk. A GLB is
/// recognised by its magic, JSON by a `{` as the first character after white space and an optional
/// UTF-8 byte order mark; anything else is refused with what it looks like.
pub(crate) fn split<'a>(bytes: &'a [u8], path: &Path) -> Result<Container<'a>, String> {
    if bytes.starts_with(GLB_MAGIC) {
        return split_glb(bytes, path);
    }
    let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(Container { json: text, bin: None }),
        None => Err("the file is empty".into()),
        Some(_) => match std::str::from_utf8(text) {
            Ok(text) if !text.contains('\0') => {
                let start: String = text.trim_start().chars().take(16).collect();
                Err(format!("a text file that is not glTF JSON (it starts with {start:?}, not '{{')"))
            }
            _ => Err("a binary file that is neither a GLB (magic 'glTF') nor JSON text".into()),
        },
    }
}

fn split_glb<'a>(bytes: &'a [u8], path: &Path) -> Result<Container<'a>, String> {
    let word = |at: usize| bytes.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let (Some(version), Some(declared)) = (word(4), word(8)) else {
        return Err(format!("the GLB header is cut off: it takes {HEADER} bytes, the file has {}", bytes.len()));
    };
    if version != 2 {
        return Err(format!("GLB version {version}; powder reads version 2 (glTF 2.0)"));
    }
    let declared = declared as usize;
    if declared > bytes.len() {
        return Err(format!("the GLB declares {declared} bytes but the file has {} (cut off?)", bytes.len()));
    }
    if declared < HEADER + CHUNK_HEADER {
        return Err(format!("the GLB declares {declared} bytes, too few for its header and a JSON chunk"));
    }
    if declared < bytes.len() {
        log::warn!(
            "{}: {} bytes after the GLB's declared end ({declared} bytes) are ignored",
            path.display(),
            bytes.len() - declared
        );
    }

    let bytes = &bytes[..declared];
    let word = |at: usize| bytes.get(at..at + 4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let (mut json, mut bin) = (None, None);
    let mut at = HEADER;
    while at < declared {
        let (Some(length), Some(kind)) = (word(at), bytes.get(at + 4..at + CHUNK_HEADER)) else {
            return Err(format!("the chunk header at byte {at} is cut off by the GLB's end at byte {declared}"));
        };
        let start = at + CHUNK_HEADER;
        let end = start.checked_add(length as usize).filter(|&end| end <= declared).ok_or_else(|| {
            format!(
                "the {} chunk at byte {at} declares {length} bytes but only {} remain before the GLB's end",
                chunk_name(kind),
                declared.saturating_sub(start)
            )
        })?;
        match kind {
            b"JSON" if json.is_none() && at == HEADER => json = Some(&bytes[start..end]),
            _ if json.is_none() => {
                return Err(format!("the GLB's first chunk is {}; glTF 2.0 requires JSON", chunk_name(kind)));
            }
            b"BIN\0" if bin.is_none() => bin = Some(&bytes[start..end]),
            // Chunks of other types are for extensions; readers skip them (glTF 2.0, section 4.4.3).
            _ => {}
        }
        // Chunks are 4-byte aligned; a writer that forgot the padding still has its next chunk here.
        at = end;
    }
    let json: &[u8] = json.ok_or("the GLB has no chunks")?;
    // glTF forbids a byte order mark, but some writers add one; it is not part of the JSON.
    Ok(Container { json: json.strip_prefix(BOM).unwrap_or(json), bin })
}

fn chunk_name(kind: &[u8]) -> String {
    match kind {
        b"JSON" => "JSON".into(),
        b"BIN\0" => "BIN".into(),
        other => format!("of type {:?}", String::from_utf8_lossy(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glb(chunks: &[(&[u8; 4], &[u8])], extra: &[u8]) -> Vec<u8> {
        let mut body = Vec::new();
        for (kind, data) in chunks {
            body.extend((data.len() as u32).to_le_bytes());
            body.extend(*kind);
            body.extend(*data);
        }
        let mut bytes = b"glTF".to_vec();
        bytes.extend(2u32.to_le_bytes());
        bytes.extend(((HEADER + body.len()) as u32).to_le_bytes());
        bytes.extend(body);
        bytes.extend(extra);
        bytes
    }

    #[test]
    fn chunks_after_bin_and_bytes_after_the_end_are_skipped() {
        let bytes = glb(&[(b"JSON", b"{}  "), (b"BIN\0", b"abcd"), (b"XTRA", b"zz")], b"trailing");
        let container = split(&bytes, Path::new("a.glb")).unwrap();
        assert_eq!((container.json, container.bin), (&b"{}  "[..], Some(&b"abcd"[..])));
    }

    #[test]
    fn cut_off_and_misordered_glbs_say_where() {
        let path = Path::new("a.glb");
        let whole = glb(&[(b"JSON", b"{}  "), (b"BIN\0", b"abcd")], b"");
        let message = |bytes: &[u8]| split(bytes, path).err().unwrap_or_default();
        assert_eq!(
            message(&whole[..30]),
            format!("the GLB declares {} bytes but the file has 30 (cut off?)", whole.len())
        );
        assert_eq!(message(&whole[..10]), "the GLB header is cut off: it takes 12 bytes, the file has 10");
        let mut short = whole.clone();
        short[24..28].copy_from_slice(&9u32.to_le_bytes());
        assert_eq!(message(&short), "the BIN chunk at byte 24 declares 9 bytes but only 4 remain before the GLB's end");
        assert_eq!(message(&glb(&[(b"BIN\0", b"abcd")], b"")), "the GLB's first chunk is BIN; glTF 2.0 requires JSON");
    }

    #[test]
    fn text_and_binary_that_are_not_gltf_are_told_apart() {
        let path = Path::new("a.gltf");
        assert!(split(b"\xEF\xBB\xBF \n{\"asset\":{}}", path).is_ok());
        let binary = split(b"GLTF\x02\0\0\0\x10\0\0\0", path).err().unwrap_or_default();
        assert_eq!(binary, "a binary file that is neither a GLB (magic 'glTF') nor JSON text");
        let text = split(b"solid cube\nfacet normal", path).err().unwrap_or_default();
        assert_eq!(text, "a text file that is not glTF JSON (it starts with \"solid cube\\nfacet\", not '{')");
    }
}
