//! Checkpoint files of a bake (`checkpoint.powder` in its output directory): everything the frames
//! after it depend on, so that `powder run --resume` continues a killed bake and writes the same
//! bytes as a run that never stopped.
//!
//! Layout, little endian (docs/baking.md has the same table):
//!
//! | bytes | field |
//! | --- | --- |
//! | 8 | magic `POWDRCKP` |
//! | 4 | version ([`VERSION`]) |
//! | 4 | header bytes ([`HEADER_BYTES`]) |
//! | 8 | particle count |
//! | 4 | bytes per particle record ([`RECORD_BYTES`]) |
//! | 4, 4, 4 | bytes of the scene JSON, the scene's name, its asset folder (UTF-8) |
//! | 4, 4 | the frame saved, the frames the bake was asked for |
//! | 8 | simulated time, seconds (f64) |
//! | 8, 8, 8 | substeps, overflow count, non-finite count so far |
//! | 4, 4 | capped frames, frames past the stable dt so far |
//! | 8 | largest dt / stable dt so far (f64) |
//! | 4 | frames between checkpoints |
//! | 8 | the last PB-MPM step's length, seconds (f64; 0 if the last frame was explicit) |
//! | zeros | up to [`HEADER_BYTES`] |
//!
//! then the three strings, then per particle its [`GpuParticle`] (144 bytes) and its stored
//! stress (8 f32), then a CRC-32 of everything before it. A file is checked against its header
//! before anything is allocated: the sizes the header gives must add up to the file's length, and
//! every string is bounded.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::sim::checkpoint::{SolverSnapshot, StoredStress};
use crate::sim::params::GpuParticle;

/// The file name of a bake's checkpoint in its output directory.
pub const CHECKPOINT_FILE: &str = "checkpoint.powder";
/// The first eight bytes of a checkpoint file.
pub const MAGIC: [u8; 8] = *b"POWDRCKP";
/// The format version written, and the only one read.
pub const VERSION: u32 = 1;
/// Bytes of the fixed header, padding included (room for fields of later versions).
pub const HEADER_BYTES: u32 = 128;
/// Bytes per particle: a [`GpuParticle`] and its stored stress.
pub const RECORD_BYTES: u32 = (size_of::<GpuParticle>() + size_of::<StoredStress>()) as u32;
/// Longest name or folder stored, bytes.
const MAX_NAME_BYTES: u32 = 4096;

/// Running totals of a bake, carried over a resume so that its summary covers the whole bake.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BakeTotals {
    /// Substeps simulated.
    pub substeps: u64,
    /// Fixed-point contributions clamped.
    pub overflow_count: u64,
    /// Particles reset for non-finite state.
    pub nonfinite_count: u64,
    /// Frames that hit the substep cap.
    pub capped_frames: u32,
    /// Frames with a substep past the stable dt.
    pub frames_past_stable: u32,
    /// The largest dt / stable dt.
    pub max_dt_ratio: f64,
}

/// A bake's complete state after one of its frames.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The frame whose state this is (its PLY file is written before the checkpoint).
    pub frame: u32,
    /// The frames the bake was asked for.
    pub frames: u32,
    /// Frames between checkpoints.
    pub checkpoint_every: u32,
    /// Simulated seconds at `frame` (the colliders' animation time too).
    pub simulated_time: f64,
    /// Totals up to `frame`.
    pub totals: BakeTotals,
    /// The scene as baked, overrides and integrator applied, as scene JSON.
    pub scene_json: String,
    /// The scene's name in messages (its file).
    pub scene_source: String,
    /// The folder the scene's glTF files are read from.
    pub asset_dir: PathBuf,
    /// The particles and their stored stress.
    pub state: SolverSnapshot,
}

/// Why a checkpoint could not be read or written.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// Reading or writing failed.
    #[error("checkpoint {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The directory holds no checkpoint.
    #[error(
        "{} holds no {CHECKPOINT_FILE}: only a bake run with --checkpoint-every N (N > 0) can be resumed",
        dir.display()
    )]
    Missing {
        /// The directory.
        dir: PathBuf,
    },
    /// The file does not start with [`MAGIC`].
    #[error("checkpoint {}: not a powder checkpoint (it does not start with POWDRCKP)", path.display())]
    NotACheckpoint {
        /// The file.
        path: PathBuf,
    },
    /// Another version of the format.
    #[error("checkpoint {}: format version {found}; this powder reads version {VERSION}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// The version it has.
        found: u32,
    },
    /// The scene could not be written as JSON into the checkpoint.
    #[error("{scene}: the scene could not be stored in a checkpoint: {message}")]
    SceneJson {
        /// The scene's name.
        scene: String,
        /// serde_json's message.
        message: String,
    },
    /// The header does not describe the file.
    #[error("checkpoint {}: {message}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What does not fit.
        message: String,
    },
}

/// Writes `checkpoint` to `path` atomically ([`super::atomic::write_atomic`]).
pub fn write_checkpoint(path: &Path, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
    let c = checkpoint;
    let asset_dir = c.asset_dir.to_string_lossy();
    let strings = [c.scene_json.as_bytes(), c.scene_source.as_bytes(), asset_dir.as_bytes()];
    let mut header = Vec::with_capacity(HEADER_BYTES as usize);
    header.extend_from_slice(&MAGIC);
    for word in [VERSION, HEADER_BYTES] {
        header.extend_from_slice(&word.to_le_bytes());
    }
    header.extend_from_slice(&(c.state.particles.len() as u64).to_le_bytes());
    header.extend_from_slice(&RECORD_BYTES.to_le_bytes());
    for s in strings {
        header.extend_from_slice(&(s.len() as u32).to_le_bytes());
    }
    for word in [c.frame, c.frames] {
        header.extend_from_slice(&word.to_le_bytes());
    }
    header.extend_from_slice(&c.simulated_time.to_le_bytes());
    let t = &c.totals;
    for word in [t.substeps, t.overflow_count, t.nonfinite_count] {
        header.extend_from_slice(&word.to_le_bytes());
    }
    for word in [t.capped_frames, t.frames_past_stable] {
        header.extend_from_slice(&word.to_le_bytes());
    }
    header.extend_from_slice(&t.max_dt_ratio.to_le_bytes());
    header.extend_from_slice(&c.checkpoint_every.to_le_bytes());
    header.extend_from_slice(&c.state.pb_last_dt.to_le_bytes());
    header.resize(HEADER_BYTES as usize, 0);
    super::atomic::write_atomic(path, |w| {
        let mut w = Crc { inner: w, crc: crc32fast::Hasher::new() };
        w.write_all(&header)?;
        for s in strings {
            w.write_all(s)?;
        }
        for (p, s) in c.state.particles.iter().zip(&c.state.stress) {
            w.write_all(bytemuck::bytes_of(p))?;
            w.write_all(bytemuck::bytes_of(s))?;
        }
        let crc = w.crc.finalize();
        w.inner.write_all(&crc.to_le_bytes())
    })
    .map_err(|e| match e {
        super::files::ExportError::Io { path, source } => CheckpointError::Io { path, source },
        other => CheckpointError::Io { path: path.to_path_buf(), source: std::io::Error::other(other.to_string()) },
    })
}

/// Reads and checks the checkpoint at `path` (module docs: the header against the file's length
/// before any allocation, then the CRC).
pub fn read_checkpoint(path: &Path) -> Result<Checkpoint, CheckpointError> {
    let io = |source| CheckpointError::Io { path: path.to_path_buf(), source };
    let corrupt = |message: String| CheckpointError::Corrupt { path: path.to_path_buf(), message };
    let file = std::fs::File::open(path).map_err(io)?;
    let length = file.metadata().map_err(io)?.len();
    let mut r = CrcReader { inner: std::io::BufReader::with_capacity(1 << 20, file), crc: crc32fast::Hasher::new() };
    if length < HEADER_BYTES as u64 + 4 {
        return Err(if length >= 8 && !starts_with_magic(path)? {
            CheckpointError::NotACheckpoint { path: path.to_path_buf() }
        } else {
            corrupt(format!("{length} bytes, shorter than its {HEADER_BYTES}-byte header: truncated"))
        });
    }
    let mut header = [0u8; HEADER_BYTES as usize];
    r.read_exact(&mut header).map_err(io)?;
    if header[..8] != MAGIC {
        return Err(CheckpointError::NotACheckpoint { path: path.to_path_buf() });
    }
    let mut at = 8;
    let mut take = |n: usize| {
        let bytes = &header[at..at + n];
        at += n;
        bytes
    };
    let u32_at = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("four bytes"));
    let u64_at = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("eight bytes"));
    let version = u32_at(take(4));
    if version != VERSION {
        return Err(CheckpointError::Version { path: path.to_path_buf(), found: version });
    }
    let header_bytes = u32_at(take(4));
    let count = u64_at(take(8));
    let record = u32_at(take(4));
    if header_bytes != HEADER_BYTES || record != RECORD_BYTES {
        return Err(corrupt(format!(
            "header of {header_bytes} bytes with {record}-byte particles; version {VERSION} has {HEADER_BYTES} and \
             {RECORD_BYTES}"
        )));
    }
    let lengths = [u32_at(take(4)), u32_at(take(4)), u32_at(take(4))];
    let limits = [crate::fsio::SCENE_FILE_LIMIT as u32, MAX_NAME_BYTES, MAX_NAME_BYTES];
    for ((len, limit), what) in lengths.iter().zip(limits).zip(["scene JSON", "scene name", "asset folder"]) {
        if *len > limit {
            return Err(corrupt(format!("its {what} is {len} bytes, more than the {limit} allowed")));
        }
    }
    let strings: u64 = lengths.iter().map(|&l| l as u64).sum();
    let expected = count
        .checked_mul(RECORD_BYTES as u64)
        .and_then(|p| p.checked_add(HEADER_BYTES as u64 + strings + 4))
        .filter(|&e| e == length)
        .ok_or_else(|| {
            corrupt(format!(
                "{length} bytes, but its header gives {count} particles and {strings} bytes of text \
                 ({} bytes in all): truncated or damaged",
                count.saturating_mul(RECORD_BYTES as u64).saturating_add(HEADER_BYTES as u64 + strings + 4)
            ))
        })?;
    debug_assert_eq!(expected, length);
    let (frame, frames) = (u32_at(take(4)), u32_at(take(4)));
    let simulated_time = f64::from_le_bytes(take(8).try_into().expect("eight bytes"));
    let (substeps, overflow_count, nonfinite_count) = (u64_at(take(8)), u64_at(take(8)), u64_at(take(8)));
    let (capped_frames, frames_past_stable) = (u32_at(take(4)), u32_at(take(4)));
    let max_dt_ratio = f64::from_le_bytes(take(8).try_into().expect("eight bytes"));
    let checkpoint_every = u32_at(take(4));
    let pb_last_dt = f64::from_le_bytes(take(8).try_into().expect("eight bytes"));
    if !(pb_last_dt.is_finite() && (0.0..=crate::sim::pbmpm::DT_MAX).contains(&pb_last_dt)) {
        return Err(corrupt(format!(
            "its last PB-MPM step is {pb_last_dt} s; allowed [0, {}]",
            crate::sim::pbmpm::DT_MAX
        )));
    }
    let mut text = |len: u32, what: &str| -> Result<String, CheckpointError> {
        let mut bytes = vec![0u8; len as usize];
        r.read_exact(&mut bytes).map_err(io)?;
        String::from_utf8(bytes).map_err(|_| corrupt(format!("its {what} is not UTF-8")))
    };
    let scene_json = text(lengths[0], "scene JSON")?;
    let scene_source = text(lengths[1], "scene name")?;
    let asset_dir = PathBuf::from(text(lengths[2], "asset folder")?);
    // The count is bounded by the file's length, checked above: this allocates no more than the
    // file holds.
    let count = count as usize;
    let mut particles = vec![GpuParticle::default(); count];
    let mut stress = vec![StoredStress::default(); count];
    for (p, s) in particles.iter_mut().zip(&mut stress) {
        r.read_exact(bytemuck::bytes_of_mut(p)).map_err(io)?;
        r.read_exact(bytemuck::bytes_of_mut(s)).map_err(io)?;
    }
    let computed = r.crc.clone().finalize();
    let mut stored = [0u8; 4];
    r.inner.read_exact(&mut stored).map_err(io)?;
    let stored = u32::from_le_bytes(stored);
    if stored != computed {
        return Err(corrupt(format!("its CRC-32 is {stored:08x} but its contents give {computed:08x}: damaged")));
    }
    if frame > frames {
        return Err(corrupt(format!("frame {frame} is past the {frames} frames of its bake")));
    }
    Ok(Checkpoint {
        frame,
        frames,
        checkpoint_every,
        simulated_time,
        totals: BakeTotals {
            substeps,
            overflow_count,
            nonfinite_count,
            capped_frames,
            frames_past_stable,
            max_dt_ratio,
        },
        scene_json,
        scene_source,
        asset_dir,
        state: SolverSnapshot { particles, stress, pb_last_dt },
    })
}

/// Whether the file at `path` starts with [`MAGIC`] (for a file too short to be read as one).
fn starts_with_magic(path: &Path) -> Result<bool, CheckpointError> {
    let mut start = [0u8; 8];
    let mut file =
        std::fs::File::open(path).map_err(|source| CheckpointError::Io { path: path.to_path_buf(), source })?;
    Ok(file.read_exact(&mut start).is_ok() && start == MAGIC)
}

/// The checkpoint of the bake in `dir`, if there is one.
pub fn find_checkpoint(dir: &Path) -> Result<PathBuf, CheckpointError> {
    let path = dir.join(CHECKPOINT_FILE);
    if path.is_file() { Ok(path) } else { Err(CheckpointError::Missing { dir: dir.to_path_buf() }) }
}

/// A writer that hashes what passes through it.
struct Crc<'a> {
    inner: &'a mut dyn Write,
    crc: crc32fast::Hasher,
}

impl Write for Crc<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A reader that hashes what passes through it.
struct CrcReader<R> {
    inner: R,
    crc: crc32fast::Hasher,
}

impl<R: Read> Read for CrcReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint of one particle whose last PB-MPM step lasted `pb_last_dt` seconds.
    fn checkpoint(pb_last_dt: f64) -> Checkpoint {
        Checkpoint {
            frame: 3,
            frames: 9,
            checkpoint_every: 3,
            simulated_time: 0.1,
            totals: BakeTotals::default(),
            scene_json: "{}".into(),
            scene_source: "scene.json".into(),
            asset_dir: PathBuf::from("."),
            state: SolverSnapshot {
                particles: vec![GpuParticle::default()],
                stress: vec![StoredStress::default()],
                pb_last_dt,
            },
        }
    }

    #[test]
    fn the_last_pbmpm_step_round_trips_and_a_wrong_one_is_refused() {
        // Mutation check: with the range check in read_checkpoint disabled, the 0.5 s step is
        // accepted and this test fails.
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(CHECKPOINT_FILE);
        // 1/240 s is carried bit for bit.
        write_checkpoint(&path, &checkpoint(1.0 / 240.0)).expect("written");
        assert_eq!(read_checkpoint(&path).expect("read").state.pb_last_dt, 1.0 / 240.0);
        // A step past the longest PB-MPM step (with a valid CRC, so only the range can refuse it).
        write_checkpoint(&path, &checkpoint(0.5)).expect("written");
        let err = read_checkpoint(&path).expect_err("refused").to_string();
        assert!(err.contains(CHECKPOINT_FILE) && err.contains("last PB-MPM step is 0.5 s; allowed [0, 0.1]"), "{err}");
    }
}
