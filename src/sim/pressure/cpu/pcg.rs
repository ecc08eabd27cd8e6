//! Preconditioned conjugate gradients on the pressure Poisson problem (Bridson 2015, Fig. 5.7;
//! Shewchuk 1994, B3), stopping on the relative residual `‖b − A p‖₂ / ‖b‖₂`.

use super::operator::{Poisson, dot};
use super::precond::Precond;

/// What one solve did.
#[derive(Clone, Debug, PartialEq)]
pub struct PcgReport {
    /// Iterations taken (0 where `b` is already small enough).
    pub iterations: u32,
    /// `‖b‖₂`.
    pub initial_residual: f64,
    /// `‖r‖₂ / ‖b‖₂` at the end (0 when `b` is 0).
    pub relative_residual: f64,
    /// `‖r‖₂ / ‖b‖₂` after each iteration, for the residual plot.
    pub history: Vec<f64>,
    /// Whether it reached the tolerance.
    pub converged: bool,
}

/// Solves `A p = b` from `p = 0` to `tolerance` in at most `max_iterations`, returning `p` and
/// what the solve did. `b` must be zero off the active cells.
pub fn solve(op: &Poisson, pre: &Precond, b: &[f64], tolerance: f64, max_iterations: u32) -> (Vec<f64>, PcgReport) {
    solve_from(op, pre, b, None, tolerance, max_iterations)
}

/// [`solve`] from `start` (its values on the active cells; `None`, a vector of another length, or
/// a start whose residual exceeds `‖b‖`: zero), the residual still measured against `‖b‖`: a warm
/// start from the last step's pressure, which for water near rest is mostly the hydrostatic
/// pressure the step needs again.
pub fn solve_from(
    op: &Poisson,
    pre: &Precond,
    b: &[f64],
    start: Option<&[f64]>,
    tolerance: f64,
    max_iterations: u32,
) -> (Vec<f64>, PcgReport) {
    let n = b.len();
    let mut p = vec![0.0; n];
    if let Some(start) = start.filter(|s| s.len() == n) {
        for (c, value) in p.iter_mut().enumerate() {
            if op.active(c) {
                *value = start[c];
            }
        }
    }
    let mut r = b.to_vec();
    if p.iter().any(|&v| v != 0.0) {
        let mut applied = vec![0.0; n];
        op.apply(&p, &mut applied);
        for (r, a) in r.iter_mut().zip(&applied) {
            *r -= a;
        }
    }
    let norm_b = dot(b, b).sqrt();
    // A start farther from the answer than zero is (the water changed too much since) is dropped.
    if dot(&r, &r) > norm_b * norm_b {
        p.iter_mut().for_each(|v| *v = 0.0);
        r.copy_from_slice(b);
    }
    let mut report = PcgReport {
        iterations: 0,
        initial_residual: norm_b,
        relative_residual: 0.0,
        history: Vec::new(),
        converged: true,
    };
    if norm_b == 0.0 {
        return (vec![0.0; n], report);
    }
    let mut z = vec![0.0; n];
    pre.apply(op, &r, &mut z);
    let mut s = z.clone();
    let mut sigma = dot(&z, &r);
    let mut as_ = vec![0.0; n];
    report.relative_residual = dot(&r, &r).sqrt() / norm_b;
    report.converged = report.relative_residual <= tolerance;
    while !report.converged && report.iterations < max_iterations {
        op.apply(&s, &mut as_);
        let curvature = dot(&s, &as_);
        if curvature <= 0.0 {
            // `b` has a part in A's null space (liquid enclosed by walls): nothing more to gain.
            break;
        }
        let alpha = sigma / curvature;
        for c in 0..n {
            p[c] += alpha * s[c];
            r[c] -= alpha * as_[c];
        }
        report.iterations += 1;
        report.relative_residual = dot(&r, &r).sqrt() / norm_b;
        report.history.push(report.relative_residual);
        if report.relative_residual <= tolerance {
            report.converged = true;
            break;
        }
        pre.apply(op, &r, &mut z);
        let sigma_new = dot(&z, &r);
        let beta = sigma_new / sigma;
        sigma = sigma_new;
        for c in 0..n {
            s[c] = z[c] + beta * s[c];
        }
    }
    (p, report)
}
