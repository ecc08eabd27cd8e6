//! The small sections of a scene file: `domain`, `grid` and `time`.

use std::fmt;

use glam::DVec3;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::limit::DT_RANGE;

/// The simulated box, in metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    /// Lower corner, metres. Optional, default `[0, 0, 0]`.
    #[serde(default)]
    pub min: DVec3,
    /// Edge lengths along x, y, z, metres. Rounded up to whole cells by the grid.
    pub size: DVec3,
}

/// Grid resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridConfig {
    /// Cells along the longest domain axis. The cell size is `longest edge / resolution`.
    pub resolution: u32,
}

/// Output rate and time-step control.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimeConfig {
    /// Output frames per second of simulated time.
    pub fps: f64,
    /// Substep length: adaptive (`"auto"`) or fixed.
    pub dt: TimeStep,
    /// Courant number for the adaptive step, in (0, 1].
    pub cfl: f64,
}

impl Default for TimeConfig {
    fn default() -> Self {
        Self { fps: 30.0, dt: TimeStep::Auto, cfl: 0.4 }
    }
}

/// How the substep length is chosen. JSON: the string `"auto"` or a number of seconds.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum TimeStep {
    /// Recomputed at the start of every frame as `cfl · h / (fastest particle + elastic wave speed)`.
    #[default]
    Auto,
    /// A fixed substep length, in seconds.
    Fixed(f64),
}

impl Serialize for TimeStep {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            TimeStep::Auto => serializer.serialize_str("auto"),
            TimeStep::Fixed(dt) => serializer.serialize_f64(dt),
        }
    }
}

impl<'de> Deserialize<'de> for TimeStep {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TimeStepVisitor)
    }
}

struct TimeStepVisitor;

impl TimeStepVisitor {
    fn expected() -> String {
        format!("time.dt must be \"auto\" or a number of seconds in {}", DT_RANGE.describe())
    }
}

impl Visitor<'_> for TimeStepVisitor {
    type Value = TimeStep;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&Self::expected())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<TimeStep, E> {
        if v == "auto" { Ok(TimeStep::Auto) } else { Err(E::custom(format!("{}, not {v:?}", Self::expected()))) }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<TimeStep, E> {
        Ok(TimeStep::Fixed(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<TimeStep, E> {
        Ok(TimeStep::Fixed(v as f64))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<TimeStep, E> {
        Ok(TimeStep::Fixed(v as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_step_round_trips() {
        for (text, step) in [("\"auto\"", TimeStep::Auto), ("0.001", TimeStep::Fixed(0.001))] {
            assert_eq!(serde_json::from_str::<TimeStep>(text).unwrap(), step);
            assert_eq!(serde_json::to_string(&step).unwrap(), text);
        }
        assert_eq!(serde_json::from_str::<TimeStep>("1").unwrap(), TimeStep::Fixed(1.0));
        let err = serde_json::from_str::<TimeStep>("\"fast\"").unwrap_err().to_string();
        assert!(err.contains("time.dt") && err.contains("(0, 0.1]") && err.contains("fast"), "{err}");
    }
}
