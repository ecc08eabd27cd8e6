// The pressure operator built on the GPU (src/sim/pressure/gpu/build.rs; the twin's
// `Poisson::new` in src/sim/pressure/cpu/operator.rs and `PressureCells::coarsen` in
// src/sim/pressure/cells.rs): each step's cell kinds change with the liquid, the faces' open
// fractions only with the solids, so the host uploads the fractions of every level once and the
// kinds are classified, coarsened and turned into coefficients here.

struct BuildUniforms {
    // The level's cells along x, y, z.
    dims: vec3<u32>,
    // Their count.
    cells: u32,
    // The next finer level's cells (a level's own on level 0).
    fine_dims: vec3<u32>,
    // Their count.
    fine_cells: u32,
    // The operator's scale on this level (4⁻ᵏ on level k).
    scale: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

const AIR: u32 = 0u;
const LIQUID: u32 = 1u;
const SOLID: u32 = 2u;

@group(0) @binding(0) var<uniform> bu: BuildUniforms;
// The level's faces' open fractions: every x face, then every y face, then every z face.
@group(0) @binding(1) var<storage, read> open: array<f32>;
@group(0) @binding(2) var<storage, read_write> kinds: array<u32>;
@group(0) @binding(3) var<storage, read_write> coeffs: array<vec4<f32>>;
// Declared read_write only because the coarse levels' kinds share one buffer, which a dispatch may
// not bind both read-only and writable; the build never writes it.
@group(0) @binding(4) var<storage, read_write> fine_kinds: array<u32>;

// The open fraction of the face along `axis` at `node` (the low face of cell `node`).
fn face_open(axis: u32, node: vec3<u32>) -> f32 {
    var fd = bu.dims;
    fd[axis] += 1u;
    var offset = 0u;
    for (var b = 0u; b < axis; b++) {
        var d = bu.dims;
        d[b] += 1u;
        offset += d.x * d.y * d.z;
    }
    return open[offset + node.x + fd.x * (node.y + fd.y * node.z)];
}

// Cell c's row of the operator: `s θ` to the diagonal for each open face to liquid or air, and
// `−s θ` as the coupling to a liquid cell above.
@compute @workgroup_size(256)
fn op_build(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= bu.cells {
        return;
    }
    var row = vec4<f32>(0.0);
    if kinds[c] == LIQUID {
        let at = cell_at(c, bu.dims);
        for (var a = 0u; a < 3u; a++) {
            let s = axis_stride(bu.dims, a);
            for (var up = 0u; up < 2u; up++) {
                var f = at;
                f[a] += up;
                let theta = face_open(a, f);
                // The boundary's faces are closed, so an open face has a neighbour in the grid.
                if theta <= 0.0 || (up == 0u && at[a] == 0u) || (up == 1u && at[a] + 1u >= bu.dims[a]) {
                    continue;
                }
                let nb = select(c - s, c + s, up == 1u);
                let k = kinds[nb];
                if k == SOLID {
                    continue;
                }
                row.x += bu.scale * theta;
                if k == LIQUID && up == 1u {
                    row[a + 1u] = -bu.scale * theta;
                }
            }
        }
    }
    coeffs[c] = row;
}

// A coarse cell's kind from its (up to) eight finer cells: air if any is (the free surface's
// zero reaches every level), else liquid if any is, else solid.
@compute @workgroup_size(256)
fn op_coarsen(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let c = linear(id, groups);
    if c >= bu.cells {
        return;
    }
    let at = cell_at(c, bu.dims);
    var any_air = false;
    var any_liquid = false;
    for (var n = 0u; n < 8u; n++) {
        let f = 2u * at + vec3<u32>(n & 1u, (n >> 1u) & 1u, n >> 2u);
        if any(f >= bu.fine_dims) {
            continue;
        }
        let k = fine_kinds[f.x + bu.fine_dims.x * (f.y + bu.fine_dims.y * f.z)];
        any_air = any_air || k == AIR;
        any_liquid = any_liquid || k == LIQUID;
    }
    kinds[c] = select(select(SOLID, LIQUID, any_liquid), AIR, any_air);
}
