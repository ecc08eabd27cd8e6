//! Which integrator steps the snow. Both are peers over the same particle pages, grid and
//! colliders:
//!
//! - **explicit** MLS-MPM ([`super::explicit`]): each substep integrates forces at a dt the wave
//!   speed of the snow bounds. The reference, for accurate bakes.
//! - **pbmpm**, position-based MPM ([`super::pbmpm`]): each step solves for the particles'
//!   displacement in a few constraint iterations, at a step only the motion bounds (about a cell
//!   per step). For interaction in real time.

use serde::{Deserialize, Serialize};

use super::pbmpm::{PbmpmSettings, PbmpmSettingsError};

/// The integrator and its settings. In a scene file: `"integrator": {"kind": "explicit"}` (the
/// default) or `{"kind": "pbmpm", "iterations": 5, ...}` (every PB-MPM setting optional).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Integrator {
    /// Explicit MLS-MPM, substeps of the stable dt (or the scene's fixed `time.dt`).
    #[default]
    Explicit,
    /// Position-based MPM with these settings.
    Pbmpm(PbmpmSettings),
}

impl Integrator {
    /// Every kind, by name, with default settings.
    pub const NAMES: [&'static str; 2] = ["explicit", "pbmpm"];

    /// The kind's name, as in a scene file and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Integrator::Explicit => "explicit",
            Integrator::Pbmpm(_) => "pbmpm",
        }
    }

    /// The kind called `name`, with default settings.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "explicit" => Some(Integrator::Explicit),
            "pbmpm" => Some(Integrator::Pbmpm(PbmpmSettings::default())),
            _ => None,
        }
    }

    /// The PB-MPM settings, if that is the kind.
    pub fn pbmpm(&self) -> Option<&PbmpmSettings> {
        match self {
            Integrator::Pbmpm(s) => Some(s),
            Integrator::Explicit => None,
        }
    }

    /// Checks the settings' ranges (the explicit integrator has none here: its dt is the scene's).
    pub fn validate(&self) -> Result<(), PbmpmSettingsError> {
        self.pbmpm().map_or(Ok(()), PbmpmSettings::validate)
    }
}
