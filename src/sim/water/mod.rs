//! Incompressible water by FLIP/APIC on a staggered (MAC) grid with a pressure projection: its
//! settings here, its f64 CPU twin in [`cpu`]. The pressure solve is [`crate::sim::pressure`]'s.
//! `docs/water.md` describes the step and what was measured.

pub mod cpu;
pub mod gpu;

use serde::{Deserialize, Serialize};

use crate::sim::pressure::PressureSettings;

/// How particle velocities are carried to the grid and back.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Transfer {
    /// APIC (Jiang et al. 2015): each particle carries an affine velocity per component, so
    /// rotation and shear survive the round trip without FLIP's noise.
    Apic,
    /// The PIC/FLIP blend (Zhu and Bridson 2005): `ratio` of the grid's velocity change added to
    /// the particle's own velocity, the rest the grid's velocity itself (1: pure FLIP, 0: PIC).
    PicFlip {
        /// The FLIP share, [0, 1].
        ratio: f64,
    },
}

/// A water step's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WaterSettings {
    /// The transfer.
    pub transfer: Transfer,
    /// The pressure solve.
    pub pressure: PressureSettings,
    /// Most cells the fastest particle may move in a step.
    pub cfl: f64,
    /// Water's density, kg/m³.
    pub density: f64,
    /// Whether crowded particles are pushed apart after each step ([`cpu::volume`]).
    pub volume_correction: bool,
    /// Particles a cell of water holds at rest (what the volume correction keeps).
    pub particles_per_cell: f64,
}

impl Default for WaterSettings {
    fn default() -> Self {
        Self {
            transfer: Transfer::Apic,
            pressure: PressureSettings { tolerance: 1e-6, ..Default::default() },
            cfl: 1.0,
            density: 1000.0,
            volume_correction: true,
            particles_per_cell: 8.0,
        }
    }
}
