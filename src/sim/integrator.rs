//! Which integrator steps the snow. Both are peers over the same particle pages, grid and
//! colliders:
//!
//! - **explicit** MLS-MPM ([`super::explicit`]): each substep integrates forces at a dt the wave
//!   speed of the snow bounds. The reference, for accurate bakes.
//! - **pbmpm**, position-based MPM ([`super::pbmpm`]): each step solves for the particles'
//!   displacement in a few constraint iterations, at a step only the motion bounds (about a cell
//!   per step). For interaction in real time.
//! - **flip**, incompressible water by FLIP/APIC with a pressure projection ([`super::water`]):
//!   every particle is water, stepped at the motion limit. Not a peer of the two: it reads and
//!   writes only the particles' positions and velocities, and none of the snow's state.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::pbmpm::{PbmpmSettings, PbmpmSettingsError};
use super::water::{WaterSettings, WaterSettingsError};

/// The integrator and its settings. In a scene file: `"integrator": {"kind": "explicit"}` (the
/// default), `{"kind": "pbmpm", "iterations": 5, ...}` (every PB-MPM setting optional) or
/// `{"kind": "flip", ...}` (every [`WaterSettings`] field optional).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Integrator {
    /// Explicit MLS-MPM, substeps of the stable dt (or the scene's fixed `time.dt`).
    #[default]
    Explicit,
    /// Position-based MPM with these settings.
    Pbmpm(PbmpmSettings),
    /// Incompressible water with these settings.
    Flip(WaterSettings),
}

/// An integrator setting out of its range.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum IntegratorSettingsError {
    /// A PB-MPM setting.
    #[error(transparent)]
    Pbmpm(#[from] PbmpmSettingsError),
    /// A water setting.
    #[error(transparent)]
    Water(#[from] WaterSettingsError),
}

impl IntegratorSettingsError {
    /// The field as in the integrator's object, its value and what is allowed.
    pub fn parts(&self) -> (String, String, String) {
        match self {
            Self::Pbmpm(e) => (e.field.to_string(), e.value.clone(), e.allowed.clone()),
            Self::Water(e) => (e.field.clone(), e.value.clone(), e.allowed.clone()),
        }
    }
}

impl Integrator {
    /// Every kind, by name, with default settings.
    pub const NAMES: [&'static str; 3] = ["explicit", "pbmpm", "flip"];

    /// The kind's name, as in a scene file and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Integrator::Explicit => "explicit",
            Integrator::Pbmpm(_) => "pbmpm",
            Integrator::Flip(_) => "flip",
        }
    }

    /// The kind called `name`, with default settings.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "explicit" => Some(Integrator::Explicit),
            "pbmpm" => Some(Integrator::Pbmpm(PbmpmSettings::default())),
            "flip" => Some(Integrator::Flip(WaterSettings::default())),
            _ => None,
        }
    }

    /// The PB-MPM settings, if that is the kind.
    pub fn pbmpm(&self) -> Option<&PbmpmSettings> {
        match self {
            Integrator::Pbmpm(s) => Some(s),
            Integrator::Explicit | Integrator::Flip(_) => None,
        }
    }

    /// The water settings, if that is the kind.
    pub fn water(&self) -> Option<&WaterSettings> {
        match self {
            Integrator::Flip(s) => Some(s),
            Integrator::Explicit | Integrator::Pbmpm(_) => None,
        }
    }

    /// Checks the settings' ranges (the explicit integrator has none here: its dt is the scene's).
    pub fn validate(&self) -> Result<(), IntegratorSettingsError> {
        match self {
            Integrator::Explicit => Ok(()),
            Integrator::Pbmpm(s) => Ok(s.validate()?),
            Integrator::Flip(s) => Ok(s.validate()?),
        }
    }

    /// For the integrators that plan their own steps (PB-MPM and water), a frame of `duration`
    /// seconds as `(steps, dt)` at the fastest particle's `speed`; `None` for the explicit one,
    /// whose substeps the stable dt bounds.
    pub fn plan_frame(&self, duration: f64, speed: f64, max_speed: f64, cell_size: f64, g: f64) -> Option<(u32, f64)> {
        match self {
            Integrator::Explicit => None,
            Integrator::Pbmpm(s) => Some(s.plan_frame(duration, speed, max_speed, cell_size)),
            Integrator::Flip(s) => Some(s.plan_frame(duration, speed, max_speed, cell_size, g)),
        }
    }
}
