// Signed singular value decomposition of a 3×3 matrix: F = U diag(σ) Vᵀ with det U = det V = +1.
//
// The method of McAdams et al. 2011 ("Computing the singular value decomposition of 3×3 matrices
// with minimal branching and elementary floating point operations"), with exact Givens angles
// instead of their approximate quaternion ones:
//   1. cyclic Jacobi sweeps diagonalise S = FᵀF, accumulating V;
//   2. the columns of B = F V are sorted by length, largest first (swaps keep det V = +1);
//   3. a Givens QR factorisation B = Q R gives U = Q and σ = diag(R). R is diagonal up to the
//      Jacobi residue, and σ₃ carries the sign of det F.
// Step 3 recovers the singular values from F itself rather than from √eig(FᵀF), which keeps small
// singular values accurate, and Givens QR stays well defined when F is singular.
//
// Matrices are column-major: m[c][r] is the entry in row r, column c.

const JACOBI_SWEEPS: u32 = 5u;
// Below this a Givens rotation or Jacobi pivot is skipped: it would divide by ~0, and its effect
// is below f32 resolution anyway.
const SVD_TINY: f32 = 1.0e-30;

struct Svd {
    u: mat3x3<f32>,
    sigma: vec3<f32>,
    v: mat3x3<f32>,
}

// One Jacobi rotation in the (p, q) plane: S ← Jᵀ S J, V ← V J, zeroing S[p][q].
fn jacobi_rotate(s: ptr<function, mat3x3<f32>>, v: ptr<function, mat3x3<f32>>, p: u32, q: u32) {
    let spq = (*s)[q][p];
    if (abs(spq) <= SVD_TINY) {
        return;
    }
    let theta = ((*s)[q][q] - (*s)[p][p]) / (2.0 * spq);
    let sgn = select(-1.0, 1.0, theta >= 0.0);
    let t = sgn / (abs(theta) + sqrt(theta * theta + 1.0));
    let c = 1.0 / sqrt(t * t + 1.0);
    let sn = t * c;
    var j = mat3x3<f32>(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
    j[p][p] = c;
    j[q][q] = c;
    j[q][p] = sn;
    j[p][q] = -sn;
    *s = transpose(j) * (*s) * j;
    *v = (*v) * j;
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
    var s = transpose(f) * f;
    var v = mat3x3<f32>(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
    for (var sweep = 0u; sweep < JACOBI_SWEEPS; sweep++) {
        jacobi_rotate(&s, &v, 0u, 1u);
        jacobi_rotate(&s, &v, 0u, 2u);
        jacobi_rotate(&s, &v, 1u, 2u);
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

    var out: Svd;
    out.u = q;
    out.sigma = vec3<f32>(b[0][0], b[1][1], b[2][2]);
    out.v = v;
    return out;
}
