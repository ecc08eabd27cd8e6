//! The signed ("rotation-variant") SVD of a 3×3 matrix, as used by the snow model.
//!
//! nalgebra's SVD returns non-negative singular values with orthogonal U and V whose determinants
//! may be −1. The constitutive model needs proper rotations (`det U = det V = +1`) so that
//! `R = U Vᵀ` is the rotation of the polar decomposition even for an inverted F; the sign then moves
//! onto the smallest singular value (Irving et al. 2004). The GPU computes its own SVD in WGSL, so
//! taking this one from nalgebra makes the CPU twin an independent check of it.

use nalgebra::{Matrix3, Vector3};

/// Signed SVD `F = U diag(σ) Vᵀ` with `det U = det V = +1`.
///
/// Starts from nalgebra's SVD (σ ≥ 0, sorted descending). If `det U < 0`, the column of U belonging
/// to the smallest |σ| and that σ are negated; then the same for V. Each flip leaves `U diag(σ) Vᵀ`
/// unchanged, so an inverted F (`det F < 0`) ends with exactly one negative σ, the smallest in
/// magnitude. Returns `(U, σ, V)` — V itself, not its transpose.
pub fn signed_svd(f: &Matrix3<f64>) -> (Matrix3<f64>, Vector3<f64>, Matrix3<f64>) {
    let svd = f.svd(true, true);
    // Both were requested, so nalgebra always fills them in.
    let mut u = svd.u.expect("SVD computed with compute_u = true");
    let mut v = svd.v_t.expect("SVD computed with compute_v = true").transpose();
    let mut sigma = svd.singular_values;

    // Index of the smallest |σ| (the last one on a tie).
    let mut k = 0;
    for i in 1..3 {
        if sigma[i].abs() <= sigma[k].abs() {
            k = i;
        }
    }
    if u.determinant() < 0.0 {
        u.column_mut(k).neg_mut();
        sigma[k] = -sigma[k];
    }
    if v.determinant() < 0.0 {
        v.column_mut(k).neg_mut();
        sigma[k] = -sigma[k];
    }
    (u, sigma, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// `‖U diag(σ) Vᵀ − F‖ / ‖F‖`.
    fn relative_error(f: &Matrix3<f64>, u: &Matrix3<f64>, s: &Vector3<f64>, v: &Matrix3<f64>) -> f64 {
        (u * Matrix3::from_diagonal(s) * v.transpose() - f).norm() / f.norm()
    }

    /// Checks reconstruction and proper rotations. Tolerance 1e-12: a backward-stable SVD of a 3×3
    /// matrix reconstructs it to a few ulps (~1e-15 relative); 1e-12 leaves three orders of margin.
    fn check(f: &Matrix3<f64>) -> Vector3<f64> {
        let (u, s, v) = signed_svd(f);
        let err = relative_error(f, &u, &s, &v);
        assert!(err < 1e-12, "reconstruction error {err:e} for {f}");
        assert!((u.determinant() - 1.0).abs() < 1e-12, "det U = {}", u.determinant());
        assert!((v.determinant() - 1.0).abs() < 1e-12, "det V = {}", v.determinant());
        // U and V orthogonal to rounding (same tolerance argument).
        assert!((u.transpose() * u - Matrix3::identity()).norm() < 1e-12);
        assert!((v.transpose() * v - Matrix3::identity()).norm() < 1e-12);
        s
    }

    #[test]
    fn random_matrices_reconstruct_with_proper_rotations() {
        let mut rng = StdRng::seed_from_u64(0x5eed);
        let (mut inverted, mut upright) = (0, 0);
        for _ in 0..2000 {
            let f = Matrix3::from_fn(|_, _| rng.random_range(-2.0..2.0));
            let s = check(&f);
            let negatives = s.iter().filter(|&&x| x < 0.0).count();
            if f.determinant() < 0.0 {
                inverted += 1;
                // An inverted matrix gets exactly one negative σ, and it is the smallest in magnitude.
                assert_eq!(negatives, 1, "σ = {s} for det F < 0");
                let min_abs = s.iter().map(|x| x.abs()).fold(f64::INFINITY, f64::min);
                assert_eq!(s.min(), -min_abs);
            } else {
                upright += 1;
                assert_eq!(negatives, 0, "σ = {s} for det F > 0");
            }
        }
        // The seed draws both kinds (about half each).
        assert!(inverted > 500 && upright > 500);
    }

    #[test]
    fn near_identity_matrices_reconstruct() {
        // The snow model's usual case: F within a few percent of I, nearly degenerate σ.
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..1000 {
            let f = Matrix3::identity() + Matrix3::from_fn(|_, _| rng.random_range(-0.03..0.03));
            let s = check(&f);
            assert!(s.iter().all(|&x| x > 0.9));
        }
    }

    #[test]
    fn reflection_gets_one_negative_singular_value() {
        // diag(−1, 2, 3): σ = (3, 2, −1) in some order, exactly one negative, of magnitude 1.
        let f = Matrix3::from_diagonal(&Vector3::new(-1.0, 2.0, 3.0));
        let s = check(&f);
        let mut sorted: Vec<f64> = s.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        // Tolerance 1e-12: the SVD of a diagonal matrix is exact up to a few ulps.
        for (got, want) in sorted.iter().zip([-1.0, 2.0, 3.0]) {
            assert!((got - want).abs() < 1e-12, "σ = {s}");
        }
    }

    #[test]
    fn rank_deficient_matrices_work() {
        // Rank 2 (third column = first + second) and rank 1 (outer product).
        let a = Vector3::new(0.3, -1.2, 0.7);
        let b = Vector3::new(1.1, 0.4, -0.5);
        let rank2 = Matrix3::from_columns(&[a, b, a + b]);
        let s = check(&rank2);
        // The zero singular value comes out at rounding level: ~1e-16 · ‖F‖, checked with 1e-12.
        assert!(s.iter().map(|x| x.abs()).fold(f64::INFINITY, f64::min) < 1e-12 * rank2.norm());
        let rank1 = a * b.transpose();
        let s = check(&rank1);
        let small = s.iter().filter(|x| x.abs() < 1e-12 * rank1.norm()).count();
        assert_eq!(small, 2, "σ = {s}");
        // The zero matrix: everything zero, rotations still proper.
        let (u, s, v) = signed_svd(&Matrix3::zeros());
        assert_eq!(s, Vector3::zeros());
        assert!((u.determinant() - 1.0).abs() < 1e-12 && (v.determinant() - 1.0).abs() < 1e-12);
    }
}
