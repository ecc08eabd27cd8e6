//! What can go wrong reading a scene. Every message names the file (or other source) it came from.

use std::path::PathBuf;

use thiserror::Error;

/// An error loading, overriding or validating a scene.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The scene file could not be read.
    #[error("cannot read scene file {}: {source}", path.display())]
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not a valid scene document: JSON syntax, an unknown field, a missing required
    /// field or a value of the wrong type. `line` and `column` are 1-based, as serde_json reports them.
    #[error("{source_name}:{line}:{column}: {message}")]
    Parse {
        /// The file name (or other label) of the text.
        source_name: String,
        /// Line of the error, 1-based.
        line: usize,
        /// Column of the error, 1-based.
        column: usize,
        /// serde_json's description, without its position suffix.
        message: String,
    },
    /// A section written as a list of values where the format wants an object with named fields,
    /// or a field set to `null`.
    #[error("{source_name}: {field}: {message}")]
    Shape {
        /// The file name (or other label) of the scene.
        source_name: String,
        /// Path of the offending field, e.g. `domain` or `emitters[0]`; `the scene` for the whole.
        field: String,
        /// What was expected and found.
        message: String,
    },
    /// A value is outside its allowed range (or breaks a rule linking several fields).
    #[error("{source_name}: {field} = {value} is out of range: allowed {allowed}")]
    Invalid {
        /// The file name (or other label) of the scene.
        source_name: String,
        /// Path of the offending field, e.g. `emitters[1].radius` or `material.poisson_ratio`.
        field: String,
        /// The value found, as text.
        value: String,
        /// What would have been accepted, e.g. `[0, 0.5)`.
        allowed: String,
    },
    /// An emitter is too small for the particle spacing and would make no particles.
    #[error(
        "{source_name}: emitters[{emitter}] makes no particles: it is too small for the particle \
         spacing of {spacing} m (cell size / cbrt(particles_per_cell)); enlarge it, raise \
         grid.resolution or raise particles_per_cell"
    )]
    NoParticles {
        /// The file name (or other label) of the scene.
        source_name: String,
        /// Index of the emitter in `emitters`.
        emitter: usize,
        /// The particle spacing, in metres.
        spacing: f64,
    },
    /// The emitters would make more particles than powder allows in one scene.
    #[error(
        "{source_name}: the emitters would make up to {count} particles, more than the limit of \
         {limit}; lower grid.resolution or particles_per_cell, or shrink the emitters"
    )]
    TooManyParticles {
        /// The file name (or other label) of the scene.
        source_name: String,
        /// Upper bound on the number of particles the emitters would make.
        count: u64,
        /// [`super::MAX_PARTICLES`].
        limit: u64,
    },
    /// The host could not allocate the particles the emitters make.
    #[error(
        "{source_name}: the emitters make {count} particles, and this computer cannot allocate the {bytes} \
         bytes they take; lower grid.resolution or particles_per_cell, or shrink the emitters"
    )]
    HostMemory {
        /// The file name (or other label) of the scene.
        source_name: String,
        /// Particles the emitters make.
        count: u64,
        /// Bytes they take on the host.
        bytes: u64,
    },
    /// A file the scene refers to (a glTF collider or mesh emitter) could not be loaded.
    #[error("{source_name}: {field}: {message}")]
    Asset {
        /// The file name (or other label) of the scene.
        source_name: String,
        /// The field naming the file, e.g. `colliders[0].shape.path`.
        field: String,
        /// Why (names the file).
        message: String,
    },
    /// A `key=value` override could not be applied (no such field, or a value of the wrong type).
    #[error("{source_name}: cannot set {key} = {value}: {message}")]
    Override {
        /// The file name (or other label) of the scene being overridden.
        source_name: String,
        /// The dotted key as given, e.g. `emitters.0.radius`.
        key: String,
        /// The value as given.
        value: String,
        /// Why it could not be applied.
        message: String,
    },
}

impl SceneError {
    /// A [`SceneError::Parse`] from a serde_json error on the text of `source_name`.
    pub(crate) fn parse(source_name: &str, err: &serde_json::Error) -> Self {
        let (line, column) = (err.line(), err.column());
        let full = err.to_string();
        let suffix = format!(" at line {line} column {column}");
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        SceneError::Parse { source_name: source_name.to_string(), line, column, message }
    }

    /// A [`SceneError::Invalid`].
    pub(crate) fn invalid(
        source_name: &str,
        field: impl Into<String>,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> Self {
        SceneError::Invalid {
            source_name: source_name.to_string(),
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}
