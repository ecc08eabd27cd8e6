//! The staggered grid's face velocities: the x components on the faces normal to x, and so on.
//! With the solid layer, grid cell `i` spans `[(i − 1) h, i h)` along an axis; the face along axis
//! a with index i lies at `(i − 1) h` along a (the low side of cell i) and at cell centres along
//! the other two axes.

use nalgebra::Vector3;

use super::particle::WaterParticle;
use crate::sim::cpu::grid::bspline_weights;
use crate::sim::pressure::cells::{CellKind, PressureCells, face_dims, face_index};
use crate::sim::water::Transfer;

/// The quadratic B-spline weights of one velocity component's nodes around a point: the first
/// node's index per axis, the three weights per axis, and the point in node units.
#[derive(Clone, Copy, Debug)]
pub struct Stencil {
    /// First node per axis.
    pub base: [i64; 3],
    /// Weights per axis.
    pub weights: [[f64; 3]; 3],
    /// The point in node units.
    pub xi: [f64; 3],
}

impl Stencil {
    /// The stencil of component `component` at `x` (m, domain coordinates).
    pub fn new(component: usize, x: &Vector3<f64>, h: f64) -> Self {
        let mut s = Stencil { base: [0; 3], weights: [[0.0; 3]; 3], xi: [0.0; 3] };
        for a in 0..3 {
            // Face nodes along their own axis sit one node past the solid layer's face at 0;
            // cell-centred ones half a node.
            let xi = x[a] / h + if a == component { 1.0 } else { 0.5 };
            let base = (xi - 0.5).floor();
            let f = xi - base;
            s.base[a] = base as i64;
            s.weights[a] = bspline_weights(f);
            s.xi[a] = xi;
        }
        s
    }

    /// Calls `f(node, weight, node − point in m)` for each of the 27 nodes inside `dims`.
    pub fn for_each(&self, dims: [usize; 3], h: f64, mut f: impl FnMut([usize; 3], f64, Vector3<f64>)) {
        for k in 0..3 {
            for j in 0..3 {
                for i in 0..3 {
                    let node = [self.base[0] + i as i64, self.base[1] + j as i64, self.base[2] + k as i64];
                    if (0..3).any(|a| node[a] < 0 || node[a] >= dims[a] as i64) {
                        continue;
                    }
                    let w = self.weights[0][i] * self.weights[1][j] * self.weights[2][k];
                    let d = Vector3::from_fn(|a, _| (node[a] as f64 - self.xi[a]) * h);
                    f(node.map(|n| n as usize), w, d);
                }
            }
        }
    }
}

/// Per axis: each face's summed weight, velocity component and whether it is known.
#[derive(Clone, Debug)]
pub struct FaceGrid {
    /// Cells along each axis, the solid layer included.
    pub dims: [usize; 3],
    /// Cell edge, m.
    pub h: f64,
    /// Summed particle weight per face.
    pub weight: [Vec<f64>; 3],
    /// Velocity component per face, m/s.
    pub velocity: [Vec<f64>; 3],
    /// Whether the face's velocity is known (reached by particles, next to liquid, or a wall).
    pub valid: [Vec<bool>; 3],
}

impl FaceGrid {
    /// Zero faces over `dims` cells of `h` m.
    pub fn new(dims: [usize; 3], h: f64) -> Self {
        let count = |a| face_dims(dims, a).iter().product();
        Self {
            dims,
            h,
            weight: std::array::from_fn(|a| vec![0.0; count(a)]),
            velocity: std::array::from_fn(|a| vec![0.0; count(a)]),
            valid: std::array::from_fn(|a| vec![false; count(a)]),
        }
    }

    /// The index of face `node` along `axis`.
    pub fn index(&self, axis: usize, node: [usize; 3]) -> usize {
        face_index(self.dims, axis, node)
    }

    /// Particles to faces: `u = Σ w (v_a + c_a · (x_f − x_p)) / Σ w` (equal particle masses).
    pub fn scatter(&mut self, particles: &[WaterParticle]) {
        let (dims, h) = (self.dims, self.h);
        for (a, ((weight, velocity), valid)) in
            self.weight.iter_mut().zip(&mut self.velocity).zip(&mut self.valid).enumerate()
        {
            let fd = face_dims(dims, a);
            let mut momentum = vec![0.0; velocity.len()];
            for p in particles {
                Stencil::new(a, &p.position, h).for_each(fd, h, |node, w, d| {
                    let f = face_index(dims, a, node);
                    weight[f] += w;
                    momentum[f] += w * (p.velocity[a] + p.affine[a].dot(&d));
                });
            }
            for (((u, known), w), m) in velocity.iter_mut().zip(valid.iter_mut()).zip(weight.iter()).zip(&momentum) {
                if *w > 0.0 {
                    *u = m / w;
                    *known = true;
                }
            }
        }
    }

    /// `u += g dt` on every known face.
    pub fn add_gravity(&mut self, gravity: Vector3<f64>, dt: f64) {
        for a in 0..3 {
            for (u, valid) in self.velocity[a].iter_mut().zip(&self.valid[a]) {
                if *valid {
                    *u += gravity[a] * dt;
                }
            }
        }
    }

    /// The cells on either side of face `node` along `axis` (low, high), if both are in the grid.
    fn sides(&self, cells: &PressureCells, axis: usize, node: [usize; 3]) -> Option<(usize, usize)> {
        if node[axis] == 0 || node[axis] >= self.dims[axis] {
            return None;
        }
        let high = cells.cell(node[0], node[1], node[2]);
        Some((high - cells.stride(axis), high))
    }

    /// The walls' conditions, free slip: a face between a solid and a non-solid cell carries the
    /// wall's normal velocity, 0, and is known; a face inside the solid (both sides solid, or on
    /// the grid's edge) is unknown, so the extrapolation gives it the velocity beside it and a
    /// particle next to a wall gathers its tangential motion undamped (zero there would be a
    /// no-slip wall, which in a tank two cells wide stops a slosh within a period).
    pub fn close_solid_faces(&mut self, cells: &PressureCells) {
        self.for_faces(|g, a, node, f| {
            let solid_sides = match g.sides(cells, a, node) {
                None => 2,
                Some((lo, hi)) => [lo, hi].iter().filter(|&&c| cells.kind[c] == CellKind::Solid).count(),
            };
            match solid_sides {
                1 => {
                    g.velocity[a][f] = 0.0;
                    g.valid[a][f] = true;
                }
                2 => g.valid[a][f] = false,
                _ => {}
            }
        });
    }

    /// Faces between a solid and a non-solid cell take the solid's velocity `solid` (moving
    /// colliders, [`crate::sim::water::solids::face_velocities`]) instead of
    /// [`FaceGrid::close_solid_faces`]' zero.
    pub fn move_solid_faces(&mut self, cells: &PressureCells, solid: &[Vec<f64>; 3]) {
        self.for_faces(|g, a, node, f| {
            let Some((lo, hi)) = g.sides(cells, a, node) else { return };
            if (cells.kind[lo] == CellKind::Solid) != (cells.kind[hi] == CellKind::Solid) {
                g.velocity[a][f] = solid[a][f];
            }
        });
    }

    /// `Σ_a ((1 − θ) s_a(high face) − (1 − θ) s_a(low face))` of cell `c`, m/s: the flux of the
    /// colliders' covered share of its faces moving at `solid`, which
    /// [`FaceGrid::divergence`] leaves out.
    pub fn solid_flux(&self, cells: &PressureCells, solid: &[Vec<f64>; 3], c: usize) -> f64 {
        self.net_outflow(c, |a, f| (1.0 - cells.open[a][f]) * solid[a][f])
    }

    /// `Σ_a (flux(a, high face) − flux(a, low face))` of cell `c`: what leaves it through its faces.
    fn net_outflow(&self, c: usize, flux: impl Fn(usize, usize) -> f64) -> f64 {
        let [nx, ny, _] = self.dims;
        let at = [c % nx, (c / nx) % ny, c / (nx * ny)];
        (0..3)
            .map(|a| {
                let mut up = at;
                up[a] += 1;
                flux(a, self.index(a, up)) - flux(a, self.index(a, at))
            })
            .sum()
    }

    /// `Σ_a (θ u_a(high face) − θ u_a(low face))` of cell `c`, m/s (the divergence times h), each
    /// face's flux weighted by its open fraction θ in `cells` (Batty et al. 2007: the solid's
    /// share of a face carries the solid's velocity, zero for a static one), as the operator is.
    pub fn divergence(&self, cells: &PressureCells, c: usize) -> f64 {
        self.net_outflow(c, |a, f| cells.open[a][f] * self.velocity[a][f])
    }

    /// `u −= k (p_high − p_low)` on every face between two non-solid cells with liquid on at
    /// least one side (air holds p = 0); faces between two air cells become unknown.
    pub fn subtract_gradient(&mut self, cells: &PressureCells, p: &[f64], k: f64) {
        self.for_faces(|g, a, node, f| {
            let Some((lo, hi)) = g.sides(cells, a, node) else { return };
            let (klo, khi) = (cells.kind[lo], cells.kind[hi]);
            if klo == CellKind::Solid || khi == CellKind::Solid {
                return;
            }
            if klo == CellKind::Liquid || khi == CellKind::Liquid {
                g.velocity[a][f] -= k * (p[hi] - p[lo]);
                g.valid[a][f] = true;
            } else {
                g.valid[a][f] = false;
            }
        });
    }

    /// Faces between two air cells that particles reached keep the velocity the particles gave
    /// them (`scattered`, before gravity): the particles' own motion continued past the surface,
    /// which APIC's affine part needs there; without gravity, so that air faces do not fall
    /// freely and drag the surface down.
    pub fn keep_scattered(&mut self, cells: &PressureCells, scattered: &FaceGrid) {
        self.for_faces(|g, a, node, f| {
            let Some((lo, hi)) = g.sides(cells, a, node) else { return };
            let air = cells.kind[lo] == CellKind::Air && cells.kind[hi] == CellKind::Air;
            if air && scattered.weight[a][f] > 0.0 {
                g.velocity[a][f] = scattered.velocity[a][f];
                g.valid[a][f] = true;
            }
        });
    }

    /// `layers` rounds in which each unknown face takes the mean of its known neighbours along
    /// the grid's axes (same component), so particles near the surface gather velocities that
    /// continue the liquid's.
    pub fn extrapolate(&mut self, layers: usize) {
        for _ in 0..layers {
            for a in 0..3 {
                let fd = face_dims(self.dims, a);
                let (u, valid) = (self.velocity[a].clone(), self.valid[a].clone());
                for f in 0..u.len() {
                    if valid[f] {
                        continue;
                    }
                    let at = [f % fd[0], (f / fd[0]) % fd[1], f / (fd[0] * fd[1])];
                    let (mut sum, mut n) = (0.0, 0);
                    for b in 0..3 {
                        for step in [-1i64, 1] {
                            let m = at[b] as i64 + step;
                            if m < 0 || m >= fd[b] as i64 {
                                continue;
                            }
                            let mut q = at;
                            q[b] = m as usize;
                            let g = face_index(self.dims, a, q);
                            if valid[g] {
                                sum += u[g];
                                n += 1;
                            }
                        }
                    }
                    if n > 0 {
                        self.velocity[a][f] = sum / n as f64;
                        self.valid[a][f] = true;
                    }
                }
            }
        }
    }

    /// The faces' field at `x` (quadratic B-splines): what PIC gathers.
    pub fn sample(&self, x: &Vector3<f64>) -> Vector3<f64> {
        let mut out = Vector3::zeros();
        for a in 0..3 {
            let fd = face_dims(self.dims, a);
            Stencil::new(a, x, self.h).for_each(fd, self.h, |node, w, _| {
                out[a] += w * self.velocity[a][face_index(self.dims, a, node)];
            });
        }
        out
    }

    /// Faces to particles: APIC's velocity and affine part (`c_a = 4/h² Σ w u (x_f − x_p)`,
    /// quadratic B-splines), or the PIC/FLIP blend against `before`, the faces as scattered.
    pub fn gather(&self, particles: &mut [WaterParticle], before: &FaceGrid, transfer: Transfer) {
        let scale = 4.0 / (self.h * self.h);
        for p in particles {
            let mut pic = Vector3::zeros();
            let mut change = Vector3::zeros();
            let mut affine = [Vector3::zeros(); 3];
            for a in 0..3 {
                let stencil = Stencil::new(a, &p.position, self.h);
                let fd = face_dims(self.dims, a);
                stencil.for_each(fd, self.h, |node, w, d| {
                    let f = face_index(self.dims, a, node);
                    pic[a] += w * self.velocity[a][f];
                    change[a] += w * (self.velocity[a][f] - before.velocity[a][f]);
                    affine[a] += scale * w * self.velocity[a][f] * d;
                });
            }
            match transfer {
                Transfer::Apic => {
                    p.velocity = pic;
                    p.affine = affine;
                }
                Transfer::PicFlip { ratio } => {
                    p.velocity = ratio * (p.velocity + change) + (1.0 - ratio) * pic;
                    p.affine = [Vector3::zeros(); 3];
                }
            }
        }
    }

    fn for_faces(&mut self, mut f: impl FnMut(&mut Self, usize, [usize; 3], usize)) {
        for a in 0..3 {
            let fd = face_dims(self.dims, a);
            for k in 0..fd[2] {
                for j in 0..fd[1] {
                    for i in 0..fd[0] {
                        let index = face_index(self.dims, a, [i, j, k]);
                        f(self, a, [i, j, k], index);
                    }
                }
            }
        }
    }
}

/// The index of the grid cell (of `dims`, the solid layer included) holding the point `x` (m from
/// the domain's corner), kept inside the domain's cells.
pub fn cell_of(x: &Vector3<f64>, h: f64, dims: [usize; 3]) -> usize {
    let c: [usize; 3] = std::array::from_fn(|a| ((x[a] / h).floor() as i64 + 1).clamp(1, dims[a] as i64 - 2) as usize);
    c[0] + dims[0] * (c[1] + dims[1] * c[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// APIC carries an affine velocity field through the grid unchanged (Jiang et al. 2015): a
    /// block of particles moving with v = (0.3 + 2 z, −y, 0.5 x) m/s and that gradient as their
    /// affine part gather the same velocity and gradient back, away from the block's edges.
    #[test]
    fn apic_keeps_an_affine_field() {
        let (dims, h) = ([10, 10, 10], 0.1);
        let field = |x: &Vector3<f64>| Vector3::new(0.3 + 2.0 * x.z, -x.y, 0.5 * x.x);
        let gradient = [Vector3::new(0.0, 0.0, 2.0), Vector3::new(0.0, -1.0, 0.0), Vector3::new(0.5, 0.0, 0.0)];
        let mut particles = Vec::new();
        for k in 0..16 {
            for j in 0..16 {
                for i in 0..16 {
                    let x = Vector3::new(i as f64 + 0.5, j as f64 + 0.5, k as f64 + 0.5) * (0.5 * h);
                    particles.push(WaterParticle { position: x, velocity: field(&x), affine: gradient });
                }
            }
        }
        let mut grid = FaceGrid::new(dims, h);
        grid.scatter(&particles);
        let before = grid.clone();
        grid.gather(&mut particles, &before, Transfer::Apic);
        let mut worst: f64 = 0.0;
        for p in &particles {
            // Three cells inside the block's edges every stencil is full.
            if (0..3).all(|a| p.position[a] > 0.3 && p.position[a] < 0.5) {
                worst = worst.max((p.velocity - field(&p.position)).norm());
                for (affine, expected) in p.affine.iter().zip(&gradient) {
                    worst = worst.max((affine - expected).norm() * h);
                }
            }
        }
        assert!(worst < 1e-12, "off by {worst}");
    }
}
