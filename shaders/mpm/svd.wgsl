// Signed singular value decomposition of a 3×3 matrix: F = U diag(σ) Vᵀ with det U = det V = +1.
//
// The method of McAdams et al. 2011 ("Computing the singular value decomposition of 3×3 matrices
// with minimal branching and elementary floating point operations"), with exact Givens angles
// instead of their approximate quaternion ones:
//   1. cyclic Jacobi sweeps diagonalise S = FᵀF, accumulating V;
//   2. the columns of B = F V are sorted by length, largest first (swaps keep det V = +1);
//   3. a Givens QR factorisation B = Q R gives U = Q and σ = diag(R). R is diagonal up to the
//      Jacobi residue, and σ₃ carries the sign of det F.
// Step 3 recovers the singular values from F itself rather than from √eig(FᵀF), and Givens QR stays
// well defined when F is singular. A final 2×2 SVD of R's lower-right block (step 4) keeps the two
// smaller singular values accurate even when FᵀF resolves neither of them.
//
// Matrices are column-major: m[c][r] is the entry in row r, column c.

// Jacobi converges quadratically: tests/svd_gpu.rs's worst errors are the same with 4 sweeps as
// with 5, 3 sweeps still pass (the scaled case's reconstruction error 16.5 U against 8.9), and 2
// fail (3.5e5 U). 5 → 4 made g2p2g measurably faster (docs/performance.md).
const JACOBI_SWEEPS: u32 = 4u;
// Below this a Givens rotation or Jacobi pivot is skipped: it would divide by ~0, and its effect
// is below f32 resolution anyway.
const SVD_TINY: f32 = 1.0e-30;

struct Svd {
    u: mat3x3<f32>,
    sigma: vec3<f32>,
    v: mat3x3<f32>,
}

// S = FᵀF, symmetric, as its diagonal and its upper off-diagonal entries (s01, s02, s12).
struct Symmetric3 {
    diagonal: vec3<f32>,
    off: vec3<f32>,
}

// The Jacobi rotation that zeroes the off-diagonal entry apq of the 2×2 block [[app, apq], [apq,
// aqq]]: (c, s, t) with t = s / c (Numerical Recipes' choice of the smaller angle). The identity
// (1, 0, 0) where |apq| is below SVD_TINY: dividing by it would give ∞ or NaN, and rotating
// would change nothing at f32 resolution.
fn jacobi_angle(app: f32, aqq: f32, apq: f32) -> vec3<f32> {
    let theta = (aqq - app) / (2.0 * apq);
    let sgn = select(-1.0, 1.0, theta >= 0.0);
    let t = sgn / (abs(theta) + sqrt(theta * theta + 1.0));
    let c = inverseSqrt(t * t + 1.0);
    return select(vec3<f32>(c, t * c, t), vec3<f32>(1.0, 0.0, 0.0), abs(apq) <= SVD_TINY);
}

// The three rotations of a cyclic Jacobi sweep, (p, q) = (0, 1), (0, 2), (1, 2), written out for
// the symmetric S: with r the third index, S'pp = Spp − t·Spq, S'qq = Sqq + t·Spq, S'pq = 0,
// S'rp = c·Srp − s·Srq, S'rq = s·Srp + c·Srq; V's columns p and q rotate the same way. This is
// JᵀSJ and VJ without the 3×3 products, whose terms in the rotation's zeros and ones the driver
// cannot drop (0·x is not 0 for x = ∞).
fn jacobi_sweep(s: ptr<function, Symmetric3>, v: ptr<function, mat3x3<f32>>) {
    var d = (*s).diagonal;
    var o = (*s).off;
    var a = jacobi_angle(d.x, d.y, o.x);
    d = vec3<f32>(d.x - a.z * o.x, d.y + a.z * o.x, d.z);
    o = vec3<f32>(0.0, a.x * o.y - a.y * o.z, a.y * o.y + a.x * o.z);
    var v0 = (*v)[0];
    var v1 = (*v)[1];
    var v2 = (*v)[2];
    var t0 = a.x * v0 - a.y * v1;
    v1 = a.y * v0 + a.x * v1;
    v0 = t0;

    a = jacobi_angle(d.x, d.z, o.y);
    d = vec3<f32>(d.x - a.z * o.y, d.y, d.z + a.z * o.y);
    o = vec3<f32>(a.x * o.x - a.y * o.z, 0.0, a.y * o.x + a.x * o.z);
    t0 = a.x * v0 - a.y * v2;
    v2 = a.y * v0 + a.x * v2;
    v0 = t0;

    a = jacobi_angle(d.y, d.z, o.z);
    d = vec3<f32>(d.x, d.y - a.z * o.z, d.z + a.z * o.z);
    o = vec3<f32>(a.x * o.x - a.y * o.y, a.y * o.x + a.x * o.y, 0.0);
    let t1 = a.x * v1 - a.y * v2;
    v2 = a.y * v1 + a.x * v2;
    v1 = t1;

    (*s) = Symmetric3(d, o);
    (*v) = mat3x3<f32>(v0, v1, v2);
}

// Swaps columns a and b of B and V, negating one so det V stays +1.
fn swap_columns(b: ptr<function, mat3x3<f32>>, v: ptr<function, mat3x3<f32>>, a: u32, c: u32) {
    let tb = (*b)[a];
    (*b)[a] = -(*b)[c];
    (*b)[c] = tb;
    let tv = (*v)[a];
    (*v)[a] = -(*v)[c];
    (*v)[c] = tv;
}

// Givens rotation of rows i and j of R that zeroes R[row j][col k]; Q accumulates its transpose.
fn givens_zero(r: ptr<function, mat3x3<f32>>, q: ptr<function, mat3x3<f32>>, i: u32, j: u32, k: u32) {
    let a = (*r)[k][i];
    let b = (*r)[k][j];
    let len = sqrt(a * a + b * b);
    if (len <= SVD_TINY) {
        return;
    }
    let c = a / len;
    let s = b / len;
    for (var col = 0u; col < 3u; col++) {
        let ri = (*r)[col][i];
        let rj = (*r)[col][j];
        (*r)[col][i] = c * ri + s * rj;
        (*r)[col][j] = -s * ri + c * rj;
    }
    let qi = (*q)[i];
    let qj = (*q)[j];
    (*q)[i] = c * qi + s * qj;
    (*q)[j] = -s * qi + c * qj;
}

fn svd3(f: mat3x3<f32>) -> Svd {
    var s = Symmetric3(
        vec3<f32>(dot(f[0], f[0]), dot(f[1], f[1]), dot(f[2], f[2])),
        vec3<f32>(dot(f[0], f[1]), dot(f[0], f[2]), dot(f[1], f[2])),
    );
    var v = mat3x3<f32>(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
    for (var sweep = 0u; sweep < JACOBI_SWEEPS; sweep++) {
        jacobi_sweep(&s, &v);
    }

    var b = f * v;
    // Sort columns by length, descending (three compare-and-swaps).
    if (dot(b[0], b[0]) < dot(b[1], b[1])) {
        swap_columns(&b, &v, 0u, 1u);
    }
    if (dot(b[0], b[0]) < dot(b[2], b[2])) {
        swap_columns(&b, &v, 0u, 2u);
    }
    if (dot(b[1], b[1]) < dot(b[2], b[2])) {
        swap_columns(&b, &v, 1u, 2u);
    }

    var q = mat3x3<f32>(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
    givens_zero(&b, &q, 0u, 1u, 0u);
    givens_zero(&b, &q, 0u, 2u, 0u);
    givens_zero(&b, &q, 1u, 2u, 1u);

    diagonalize_lower_block(&b, &q, &v);

    var out: Svd;
    out.u = q;
    out.sigma = vec3<f32>(b[0][0], b[1][1], b[2][2]);
    out.v = v;
    return out;
}

// When both smaller singular values are below √ε of the largest, FᵀF carries them below f32
// resolution, the Jacobi V is arbitrary within their plane, and R's lower-right 2×2 block
// M = [[r11, r12], [r21, r22]] is far from diagonal (r12 ~ σ₂). A 2×2 SVD of that block, computed
// from R itself, finishes the job: a rotation G makes G·M symmetric, a Jacobi rotation J
// diagonalises it, and M = (Gᵀ J) D Jᵀ. When M is already diagonal both rotations are the identity.
fn diagonalize_lower_block(r: ptr<function, mat3x3<f32>>, u: ptr<function, mat3x3<f32>>, v: ptr<function, mat3x3<f32>>) {
    let m00 = (*r)[1][1];
    let m01 = (*r)[2][1];
    let m10 = (*r)[1][2];
    let m11 = (*r)[2][2];
    var c = 1.0;
    var s = 0.0;
    let asymmetry = m10 - m01;
    if (abs(asymmetry) > SVD_TINY) {
        // cos and sin of atan2(asymmetry, m00 + m11), without the trigonometry.
        let inverse_length = inverseSqrt(asymmetry * asymmetry + (m00 + m11) * (m00 + m11));
        c = (m00 + m11) * inverse_length;
        s = asymmetry * inverse_length;
    }
    // N = G M with G = [[c, s], [−s, c]], symmetric by the choice of angle.
    let n00 = c * m00 + s * m10;
    let n01 = c * m01 + s * m11;
    let n11 = -s * m01 + c * m11;
    var cj = 1.0;
    var sj = 0.0;
    var d0 = n00;
    var d1 = n11;
    if (abs(n01) > SVD_TINY) {
        let tau = (n11 - n00) / (2.0 * n01);
        let t = select(-1.0, 1.0, tau >= 0.0) / (abs(tau) + sqrt(tau * tau + 1.0));
        cj = 1.0 / sqrt(t * t + 1.0);
        sj = t * cj;
        d0 = n00 - t * n01;
        d1 = n11 + t * n01;
    }
    // U ← U·diag(1, L) with L = Gᵀ J; V ← V·diag(1, J).
    let l00 = c * cj + s * sj;
    let l01 = c * sj - s * cj;
    let l10 = s * cj - c * sj;
    let l11 = s * sj + c * cj;
    let u1 = (*u)[1];
    let u2 = (*u)[2];
    (*u)[1] = u1 * l00 + u2 * l10;
    (*u)[2] = u1 * l01 + u2 * l11;
    let v1 = (*v)[1];
    let v2 = (*v)[2];
    (*v)[1] = v1 * cj - v2 * sj;
    (*v)[2] = v1 * sj + v2 * cj;
    // Keep |σ₂| ≥ |σ₃| (swapping with one column negated keeps det +1 and σ's sign) and the sign,
    // if any, on σ₃ (negating two columns of U keeps det U = +1).
    if (abs(d0) < abs(d1)) {
        let tu = (*u)[1];
        (*u)[1] = -(*u)[2];
        (*u)[2] = tu;
        let tv = (*v)[1];
        (*v)[1] = -(*v)[2];
        (*v)[2] = tv;
        let td = d0;
        d0 = d1;
        d1 = td;
    }
    if (d0 < 0.0) {
        (*u)[1] = -(*u)[1];
        (*u)[2] = -(*u)[2];
        d0 = -d0;
        d1 = -d1;
    }
    (*r)[1][1] = d0;
    (*r)[2][2] = d1;
}
