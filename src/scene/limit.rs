//! Allowed ranges of scene values, and how numbers are printed in messages (the tunable values'
//! ranges are in `ranges.rs`).

/// A range of allowed values. Open or closed at each end; infinite ends mean "no bound".
/// Non-finite values are never inside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limit {
    lo: f64,
    hi: f64,
    lo_closed: bool,
    hi_closed: bool,
}

impl Limit {
    pub(crate) const fn new(lo: f64, lo_closed: bool, hi: f64, hi_closed: bool) -> Self {
        Self { lo, hi, lo_closed, hi_closed }
    }

    /// The upper end.
    pub(crate) fn hi(&self) -> f64 {
        self.hi
    }

    /// Whether `v` is finite and inside.
    pub(crate) fn contains(&self, v: f64) -> bool {
        let above = if self.lo_closed { v >= self.lo } else { v > self.lo };
        let below = if self.hi_closed { v <= self.hi } else { v < self.hi };
        v.is_finite() && above && below
    }

    /// `[0, 0.5)`, `> 0`, `1` or `any finite number`.
    pub(crate) fn describe(&self) -> String {
        let (lo, hi) = (number(self.lo), number(self.hi));
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (false, false) => "any finite number".to_string(),
            (true, false) => format!("{} {lo}", if self.lo_closed { ">=" } else { ">" }),
            (false, true) => format!("{} {hi}", if self.hi_closed { "<=" } else { "<" }),
            _ if self.lo == self.hi => lo,
            _ => format!(
                "{}{lo}, {hi}{}",
                if self.lo_closed { "[" } else { "(" },
                if self.hi_closed { "]" } else { ")" }
            ),
        }
    }
}

pub(crate) const INF: f64 = f64::INFINITY;
pub(crate) const FINITE: Limit = Limit::new(-INF, false, INF, false);
pub(crate) const POSITIVE: Limit = Limit::new(0.0, false, INF, false);
/// Allowed fixed `time.dt`, seconds. Its lower end in practice is set by `time.fps`: a frame may
/// take at most [`crate::runner::MAX_SUBSTEPS_PER_FRAME`] substeps.
pub(crate) const DT_RANGE: Limit = Limit::new(0.0, false, 0.1, true);
/// Largest allowed `max_speed`, m/s.
pub(crate) const MAX_SPEED_LIMIT: f64 = 1e5;

// The ranges below keep every value the GPU gets (f32) a normal, finite number that still means
// what the f64 value meant; docs/scene-format.md ("Why these ranges") gives the arithmetic.

/// Allowed `max_speed`, m/s: below 1 mm/s it would stop any motion worth simulating, and the
/// fixed-point momentum scale (∝ 1 / max_speed) stays finite in f32.
pub(crate) const MAX_SPEED_RANGE: Limit = Limit::new(1e-3, true, MAX_SPEED_LIMIT, true);
/// Allowed `time.fps`: at least one frame per 100 simulated seconds.
pub(crate) const FPS_RANGE: Limit = Limit::new(0.01, true, 1000.0, true);
/// Allowed `time.cfl`: below 0.01 the adaptive step only gets slower, not more stable.
pub(crate) const CFL_RANGE: Limit = Limit::new(0.01, true, 1.0, true);
/// Allowed `domain.size` components, metres: from a millimetre (cells of about a micrometre at the
/// finest grid, finer than snow grains) to 10 km (an avalanche path). Together with the density
/// range this keeps particle volume and mass, and the fixed-point scales, normal f32 numbers.
pub(crate) const DOMAIN_SIZE_RANGE: Limit = Limit::new(1e-3, true, 1e4, true);
/// How far from the origin, in cells, the domain and the colliders may reach: 2¹⁶. Positions are
/// f32 (24 significant bits), so 2¹⁶ cells out a position still resolves 2⁻⁷ of a cell; at 2²⁴
/// cells neighbouring cells would merge.
pub(crate) const COORDINATE_CELLS: f64 = 65536.0;
/// Largest `packing.amplitude`: Jp starts in [0.5, 1.5], so the stiffness of reference snow
/// (ξ = 10) varies up to e⁵ ≈ 148× either way (the hardening factor's own bound) and no
/// particle starts with a Jp near 0.
pub(crate) const PACKING_AMPLITUDE_MAX: f64 = 0.5;
/// Allowed `packing.length`, metres: as for `domain.size`.
pub(crate) const PACKING_LENGTH_RANGE: Limit = Limit::new(1e-4, true, 1e4, true);
/// Allowed components of a `transform.scale`: meshes are placed in f32, where a scale of 1e-300
/// is zero and 1e300 infinite.
pub(crate) const SCALE_RANGE: Limit = Limit::new(1e-6, true, 1e6, true);
/// Largest allowed magnitude of gravity, m/s².
pub(crate) const MAX_GRAVITY: f64 = 1000.0;

/// A number as messages print it: ten significant digits at most (so `0.1 + 2.1` prints as 2.2),
/// exponent form for large and tiny magnitudes.
pub(crate) fn number(v: f64) -> String {
    let v = format!("{v:.9e}").parse::<f64>().unwrap_or(v);
    if v.is_finite() && v != 0.0 && !(1e-4..1e5).contains(&v.abs()) { format!("{v:e}") } else { format!("{v}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_describe_themselves() {
        assert_eq!(Limit::new(0.0, true, 0.5, false).describe(), "[0, 0.5)");
        assert_eq!(Limit::new(0.0, false, 1e9, true).describe(), "(0, 1e9]");
        assert_eq!(POSITIVE.describe(), "> 0");
        assert_eq!(FINITE.describe(), "any finite number");
        assert_eq!(Limit::new(1.0, true, 1.0, true).describe(), "1");
        assert_eq!(
            (number(0.5 + 1.7), number(-1.4e5), number(f64::NAN)),
            ("2.2".into(), "-1.4e5".into(), "NaN".into())
        );
        assert!(!POSITIVE.contains(f64::NAN) && !FINITE.contains(f64::INFINITY));
        assert!(!Limit::new(0.0, true, 0.5, false).contains(0.5));
    }
}
