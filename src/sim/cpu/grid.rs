//! The CPU twin's grid ([`CpuGrid`]), where its nodes lie ([`node_position`]) and the quadratic
//! B-spline stencil through which particles and nodes exchange (`Stencil`).

use nalgebra::Vector3;

use crate::sim::params::GridSpec;

/// The background grid in f64. Every vector has one entry per node, indexed by
/// [`GridSpec::node_index`].
#[derive(Clone, Debug, PartialEq)]
pub struct CpuGrid {
    /// Node mass, kg (written by P2G).
    pub mass: Vec<f64>,
    /// Node momentum, kg·m/s (written by P2G).
    pub momentum: Vec<Vector3<f64>>,
    /// Node velocity after forces and walls, m/s (written by the grid update).
    pub velocity: Vec<Vector3<f64>>,
}

impl CpuGrid {
    /// An all-zero grid for `spec`.
    pub fn new(spec: &GridSpec) -> Self {
        let n = spec.node_count() as usize;
        Self { mass: vec![0.0; n], momentum: vec![Vector3::zeros(); n], velocity: vec![Vector3::zeros(); n] }
    }
}

/// Position of node `(i, j, k)`: `origin + (i, j, k)·h`, metres.
pub fn node_position(spec: &GridSpec, node: [usize; 3]) -> Vector3<f64> {
    let o = spec.grid_origin();
    let h = spec.cell_size;
    Vector3::new(o.x, o.y, o.z) + h * Vector3::new(node[0] as f64, node[1] as f64, node[2] as f64)
}

/// The quadratic B-spline's weights of the three nodes from `base` along one axis, for a point
/// `f = x − base` node spacings past the first (in [0.5, 1.5)).
pub(crate) fn bspline_weights(f: f64) -> [f64; 3] {
    [0.5 * (1.5 - f).powi(2), 0.75 - (f - 1.0).powi(2), 0.5 * (f - 0.5).powi(2)]
}

/// The 3×3×3 quadratic B-spline stencil of one particle (p2g and g2p steps 1–2).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stencil {
    /// Lowest node of the stencil, per axis.
    base: [usize; 3],
    /// `f = xg − base` per axis, in [0.5, 1.5).
    frac: Vector3<f64>,
    /// `weights[axis][o]`: the 1-D weights w0, w1, w2.
    weights: [[f64; 3]; 3],
}

impl Stencil {
    /// The stencil of a particle at `x`.
    ///
    /// # Panics
    /// If the stencil leaves the grid, i.e. `x` lies 1.5 cells or more outside the domain. G2P
    /// clamps particles to the domain, so this only happens for particles built outside it.
    pub(crate) fn new(spec: &GridSpec, x: &Vector3<f64>) -> Self {
        let o = spec.grid_origin();
        let dims = spec.node_dims();
        let origin = Vector3::new(o.x, o.y, o.z);
        let xg = (x - origin) / spec.cell_size;
        let mut base = [0usize; 3];
        let mut frac = Vector3::zeros();
        let mut weights = [[0.0; 3]; 3];
        for a in 0..3 {
            let b = (xg[a] - 0.5).floor();
            assert!(
                b >= 0.0 && b + 2.0 < dims[a] as f64,
                "particle at {x:?} has a stencil outside the grid (axis {a})"
            );
            base[a] = b as usize;
            let f = xg[a] - b;
            frac[a] = f;
            weights[a] = bspline_weights(f);
        }
        Self { base, frac, weights }
    }

    /// The 27 nodes as `(flat index, weight w, offset d = node − particle in metres)`.
    pub(crate) fn nodes(&self, spec: &GridSpec) -> impl Iterator<Item = (usize, f64, Vector3<f64>)> {
        let h = spec.cell_size;
        let spec = *spec;
        let s = *self;
        (0..27usize).map(move |n| {
            let o = [n % 3, (n / 3) % 3, n / 9];
            let w = s.weights[0][o[0]] * s.weights[1][o[1]] * s.weights[2][o[2]];
            let d = (Vector3::new(o[0] as f64, o[1] as f64, o[2] as f64) - s.frac) * h;
            let idx = spec.node_index((s.base[0] + o[0]) as u32, (s.base[1] + o[1]) as u32, (s.base[2] + o[2]) as u32);
            (idx, w, d)
        })
    }
}
