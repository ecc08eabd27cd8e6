//! Writing a file so that its final name never shows it half-written: the data goes to a temporary
//! sibling (named `.powder-<name>-<random>.tmp`, which [`super::OutputDir`] recognises and removes
//! should a killed run leave one behind), is synced to disk, and is renamed into place; the
//! directory is synced after the rename. After a crash the name holds the old file or the whole
//! new one.

use std::io::{BufWriter, Write};
use std::path::Path;

use super::files::ExportError;
use super::files::{TEMP_PREFIX, TEMP_SUFFIX};

/// Writes `path` atomically with what `fill` writes (through a 1 MiB buffer).
pub fn write_atomic(path: &Path, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), ExportError> {
    let io = |source| ExportError::Io { path: path.to_path_buf(), source };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let temp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{name}-"))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(io)?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, temp.as_file());
        fill(&mut w).map_err(io)?;
        w.flush().map_err(io)?;
    }
    #[cfg(unix)]
    {
        // NamedTempFile creates files readable by the owner only; these are ordinary output.
        use std::os::unix::fs::PermissionsExt;
        let perms = std::fs::Permissions::from_mode(0o644);
        temp.as_file().set_permissions(perms).map_err(io)?;
    }
    // Without this a crash soon after the rename can leave `path` naming an empty or partial file:
    // the rename may reach the disk before the data does.
    temp.as_file().sync_all().map_err(io)?;
    temp.persist(path).map_err(|e| io(e.error))?;
    super::files::sync_dir(dir).map_err(io)?;
    Ok(())
}
