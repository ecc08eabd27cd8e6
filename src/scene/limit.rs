//! Allowed ranges of scene values, and how numbers are printed in messages.

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
/// Allowed fixed `time.dt`, seconds.
pub(crate) const DT_RANGE: Limit = Limit::new(0.0, false, 0.1, true);
/// Largest allowed `max_speed`, m/s.
pub(crate) const MAX_SPEED_LIMIT: f64 = 1e5;
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
