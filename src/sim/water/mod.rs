//! Incompressible water by FLIP/APIC on a staggered (MAC) grid with a pressure projection: its
//! settings here, its f64 CPU twin in [`cpu`]. The pressure solve is [`crate::sim::pressure`]'s.
//! `docs/water.md` describes the step and what was measured.

pub mod cpu;
pub mod gpu;
pub mod solids;

use serde::{Deserialize, Serialize};
use thiserror::Error;

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

/// A water step's settings. In a scene file, the `"integrator": {"kind": "flip", ...}` object's
/// fields, each optional: `transfer` (`{"kind": "apic"}` or `{"kind": "pic_flip", "ratio":
/// 0.95}`), `pressure` (`preconditioner`, `tolerance`, `max_iterations`), `cfl`, `density`,
/// `volume_correction`, `volume_tolerance`, `particles_per_cell`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
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
    /// The relative residual the volume correction's solve stops at (with the pressure's
    /// preconditioner and iteration cap): it moves particles by a fraction of a cell, where the
    /// projection's velocities need the tighter `pressure.tolerance`.
    pub volume_tolerance: f64,
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
            volume_tolerance: 1e-4,
            particles_per_cell: 8.0,
        }
    }
}

/// Allowed [`WaterSettings::cfl`]: a step may move the fastest particle at most this many cells
/// (the gather's stencil reaches 1.5 cells; past 5 particles tunnel through thin walls).
pub const CFL_RANGE: (f64, f64) = (0.05, 5.0);
/// Allowed [`WaterSettings::density`], kg/m³.
pub const DENSITY_RANGE: (f64, f64) = (1.0, 1e5);
/// Allowed [`WaterSettings::particles_per_cell`].
pub const PARTICLES_PER_CELL_RANGE: (f64, f64) = (1.0, 64.0);

/// A water setting out of its range: which (as in the scene file), its value and what is allowed.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{field} = {value} is out of range: allowed {allowed}")]
pub struct WaterSettingsError {
    /// The field, e.g. `transfer.ratio` or `pressure.tolerance`.
    pub field: String,
    /// The value found, as text.
    pub value: String,
    /// What would have been accepted.
    pub allowed: String,
}

impl WaterSettings {
    /// Checks every setting against its range; the error names the first one out of it.
    pub fn validate(&self) -> Result<(), WaterSettingsError> {
        let check = |field: &str, value: f64, (lo, hi): (f64, f64)| {
            if value >= lo && value <= hi {
                Ok(())
            } else {
                Err(WaterSettingsError {
                    field: field.into(),
                    value: value.to_string(),
                    allowed: format!("[{lo}, {hi}]"),
                })
            }
        };
        if let Transfer::PicFlip { ratio } = self.transfer {
            check("transfer.ratio", ratio, (0.0, 1.0))?;
        }
        check("cfl", self.cfl, CFL_RANGE)?;
        check("density", self.density, DENSITY_RANGE)?;
        check("particles_per_cell", self.particles_per_cell, PARTICLES_PER_CELL_RANGE)?;
        check("volume_tolerance", self.volume_tolerance, crate::sim::pressure::TOLERANCE_RANGE)?;
        self.pressure.validate().map_err(|e| WaterSettingsError {
            field: format!("pressure.{}", e.field),
            value: e.value,
            allowed: e.allowed,
        })
    }

    /// A frame of `duration` seconds as steps of equal length, each moving the fastest particle
    /// at most [`WaterSettings::cfl`] cells of `cell_size` m: `speed` (m/s, at most `max_speed`)
    /// is the fastest now, and gravity `g` (m/s²) may add `g · duration` within the frame.
    pub fn plan_frame(&self, duration: f64, speed: f64, max_speed: f64, cell_size: f64, g: f64) -> (u32, f64) {
        let speed = if speed.is_finite() { speed.min(max_speed) } else { max_speed };
        let bound = speed + g * duration;
        let limit = if bound > 0.0 { self.cfl * cell_size / bound } else { f64::INFINITY };
        let steps = (duration / limit).ceil().clamp(1.0, MAX_STEPS_PER_FRAME as f64) as u32;
        (steps, duration / steps as f64)
    }
}

/// The most steps a frame is split into.
pub const MAX_STEPS_PER_FRAME: u32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_with_defaults_refuse_strays_and_check_ranges() {
        let s: WaterSettings =
            serde_json::from_str(r#"{"transfer": {"kind": "pic_flip", "ratio": 0.9}}"#).expect("parses");
        assert_eq!(s, WaterSettings { transfer: Transfer::PicFlip { ratio: 0.9 }, ..Default::default() });
        assert!(serde_json::from_str::<WaterSettings>(r#"{"cfll": 1}"#).is_err());
        assert_eq!(WaterSettings::default().validate(), Ok(()));
        let bad = WaterSettings { transfer: Transfer::PicFlip { ratio: 1.5 }, ..Default::default() };
        assert_eq!(bad.validate().map_err(|e| e.field), Err("transfer.ratio".to_string()));
        let mut bad = WaterSettings::default();
        bad.pressure.tolerance = 0.0;
        assert_eq!(bad.validate().map_err(|e| e.field), Err("pressure.tolerance".to_string()));
        // A fall of g · 1/60 s from rest, cells of 1 cm, cfl 1: 0.1635 m/s → 1 cm in 61 ms, one step.
        assert_eq!(WaterSettings::default().plan_frame(1.0 / 60.0, 0.0, 50.0, 0.01, 9.81).0, 1);
        // 3 m/s: 3.16 m/s bound, 3.2 ms a cell, 6 steps.
        assert_eq!(WaterSettings::default().plan_frame(1.0 / 60.0, 3.0, 50.0, 0.01, 9.81).0, 6);
    }
}
