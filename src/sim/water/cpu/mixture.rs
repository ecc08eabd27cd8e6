//! Snow in the water's pressure projection (f64 twin): one pressure solve for water and the snow
//! that touches it, each phase keeping its own velocity.
//!
//! The snow's particles put their mass, momentum and current volume on the water's MAC faces. A
//! face the snow reaches holds a snow share `α_s` (its volume over a cell's) at the snow's density
//! `ρ_s`, and a water share `α_w`. Cells holding snow that connect to the water through cells of
//! snow or water join the liquid, and the projection makes the two phases' volume flux
//! `α_w u_w + α_s u_s` divergence-free, each phase accelerated by the same pressure gradient over
//! its own density: the face's coefficient is `α_w + α_s ρ_w/ρ_s`. Water cannot enter the snow's
//! cells without moving the snow, and a pressure gradient of `ρ_w g` accelerates the snow by
//! `ρ_w g / ρ_s`, Archimedes' buoyancy, from the same solve that holds the water up. The solve is
//! one linear system, so light snow in heavy water needs no added-mass iteration (an explicit
//! exchange of pressure forces between two solves is unstable once the displaced water outweighs
//! the snow).
//!
//! After the projection the snow's velocity change on each face is given to its particles (a FLIP
//! increment sampled with the same weights that scattered them: the momentum the snow's faces
//! gained is exactly what its particles gain; its affine part is left as it was), and its own step
//! (elasticity, plasticity, walls) goes on on its own grid. The volume correction counts the
//! snow's volume in each cell, so water that ended up inside the snow is pushed out of it.

use nalgebra::Vector3;

use super::faces::{FaceGrid, Stencil, cell_of};
use crate::sim::cpu::CpuParticle;
use crate::sim::pressure::cells::{CellKind, PressureCells, face_dims, face_index};

/// The snow as one water step sees it.
#[derive(Clone, Debug)]
pub struct SnowOnFaces {
    /// Snow mass per face (B-spline weights of its particles' masses), kg.
    pub mass: [Vec<f64>; 3],
    /// Snow momentum per face, the face's own component (APIC's affine part included), kg·m/s.
    pub momentum: [Vec<f64>; 3],
    /// Snow volume per face (the particles' current volumes `V⁰ det F_E J_P`), m³.
    pub volume: [Vec<f64>; 3],
    /// Snow volume per cell as a share of the cell (trilinear weights, as the water's count).
    pub occupied: Vec<f64>,
    /// Whether a snow particle lies in each cell.
    pub holds_snow: Vec<bool>,
    /// After the projection: each face's velocity change, m/s, zero where the solve did not act.
    pub change: [Vec<f64>; 3],
    /// The water's domain corner in the snow's coordinates, m.
    pub origin: Vector3<f64>,
}

impl SnowOnFaces {
    /// The snow `particles` (at `origin` + water coordinates) on a water grid of `dims` cells
    /// (solid layer included) of `h` m.
    pub fn new(particles: &[CpuParticle], origin: Vector3<f64>, dims: [usize; 3], h: f64) -> Self {
        let count = |a| face_dims(dims, a).iter().product::<usize>();
        let zeros = || -> [Vec<f64>; 3] { std::array::from_fn(|a| vec![0.0; count(a)]) };
        let (mut mass, mut momentum, mut volume) = (zeros(), zeros(), zeros());
        let cell_count = dims.iter().product();
        let mut holds_snow = vec![false; cell_count];
        let mut points = Vec::with_capacity(particles.len());
        for p in particles {
            let x = p.position - origin;
            let v = p.mass.max(0.0);
            let current = p.volume * p.deformation.determinant() * p.plastic_jacobian;
            for a in 0..3 {
                let fd = face_dims(dims, a);
                Stencil::new(a, &x, h).for_each(fd, h, |node, w, d| {
                    let f = face_index(dims, a, node);
                    mass[a][f] += w * v;
                    momentum[a][f] += w * v * (p.velocity[a] + (p.affine.row(a) * d)[0]);
                    volume[a][f] += w * current;
                });
            }
            holds_snow[cell_of(&x, h, dims)] = true;
            points.push((x, current / h.powi(3)));
        }
        let occupied = super::volume::spread(points.iter().map(|(x, w)| (x, *w)), dims, h, true);
        Self { mass, momentum, volume, occupied, holds_snow, change: zeros(), origin }
    }

    /// Marks the cells holding snow that connect to liquid (through snow cells, across faces
    /// not closed) as liquid: the snow the water touches, and the snow touching that.
    pub fn join(&self, cells: &mut PressureCells) {
        let mut stack: Vec<usize> = (0..cells.len()).filter(|&c| cells.kind[c] == CellKind::Liquid).collect();
        let [nx, ny, _] = cells.dims;
        while let Some(c) = stack.pop() {
            let at = [c % nx, (c / nx) % ny, c / (nx * ny)];
            for a in 0..3 {
                for up in [false, true] {
                    let mut f = at;
                    if up {
                        f[a] += 1;
                    }
                    if cells.open[a][cells.face(a, f[0], f[1], f[2])] <= 0.0 {
                        continue;
                    }
                    let n = if up { c + cells.stride(a) } else { c - cells.stride(a) };
                    if cells.kind[n] == CellKind::Air && self.holds_snow[n] {
                        cells.kind[n] = CellKind::Liquid;
                        stack.push(n);
                    }
                }
            }
        }
    }

    /// The snow's volume share `α_s` of face `f` along axis `a` (its particles' volume over a
    /// cell's, at most 1) and its density there, kg/m³; `None` where no snow reaches the face.
    fn share(&self, a: usize, f: usize, h: f64) -> Option<(f64, f64)> {
        self.density(a, f).map(|rho| ((self.volume[a][f] / h.powi(3)).min(1.0), rho))
    }

    /// The snow's density on face `f` along axis `a`, kg/m³; `None` where no snow reaches it.
    fn density(&self, a: usize, f: usize) -> Option<f64> {
        let (m, v) = (self.mass[a][f], self.volume[a][f]);
        (m > 0.0 && v > 0.0).then(|| m / v)
    }

    /// The mixture's volume flux on each face and the projection's coefficients. `grid` holds the
    /// water's face velocities (gravity added, walls closed); a face the snow reaches carries
    /// `α_w u_w + α_s u_s`, the water's share `α_w` its particles' weight over `rest` (the rest
    /// packing), at most `1 − α_s`. Returns the flux grid and, per face, `α_w + α_s ρ_w / ρ_s`
    /// (1 where no snow is), the factor on the face's coefficient: each phase is accelerated by
    /// the same pressure gradient over its own density.
    pub fn flux(&self, grid: &FaceGrid, rest: f64, density: f64) -> (FaceGrid, [Vec<f64>; 3]) {
        let mut flux = grid.clone();
        let weights = std::array::from_fn(|a| {
            let mut weight = vec![1.0; grid.velocity[a].len()];
            for (f, w) in weight.iter_mut().enumerate() {
                let Some((alpha_s, rho_s)) = self.share(a, f, grid.h) else { continue };
                let alpha_w = if grid.valid[a][f] { (grid.weight[a][f] / rest).min(1.0 - alpha_s) } else { 0.0 };
                let snow_velocity = self.momentum[a][f] / self.mass[a][f];
                flux.velocity[a][f] = alpha_w * grid.velocity[a][f] + alpha_s * snow_velocity;
                flux.valid[a][f] = true;
                *w = alpha_w + alpha_s * density / rho_s;
            }
            weight
        });
        (flux, weights)
    }

    /// Records the projection's change on the snow's faces: `−k (ρ_w/ρ_s) (p₊ − p₋)` on each face
    /// between two non-solid cells of `cells` with liquid on one side at least (air holding
    /// p = 0), zero elsewhere; `k = dt / (ρ_w h)` as the water's faces take it.
    pub fn record_change(&mut self, cells: &PressureCells, p: &[f64], k: f64, density: f64) {
        let dims = cells.dims;
        for a in 0..3 {
            let fd = face_dims(dims, a);
            for f in 0..self.change[a].len() {
                self.change[a][f] = 0.0;
                let Some(rho_s) = self.density(a, f) else { continue };
                let at = [f % fd[0], (f / fd[0]) % fd[1], f / (fd[0] * fd[1])];
                if at[a] == 0 || at[a] >= dims[a] {
                    continue;
                }
                let hi = cells.cell(at[0], at[1], at[2]);
                let lo = hi - cells.stride(a);
                let (klo, khi) = (cells.kind[lo], cells.kind[hi]);
                let fluid = klo != CellKind::Solid && khi != CellKind::Solid;
                if fluid && (klo == CellKind::Liquid || khi == CellKind::Liquid) {
                    self.change[a][f] = -k * density / rho_s * (p[hi] - p[lo]);
                }
            }
        }
    }

    /// Gives the snow's particles the projection's change, sampled with the weights that
    /// scattered them (`dims`, `h` the water grid's).
    pub fn apply(&self, particles: &mut [CpuParticle], dims: [usize; 3], h: f64) {
        for p in particles {
            let x = p.position - self.origin;
            let mut dv = Vector3::zeros();
            for a in 0..3 {
                let fd = face_dims(dims, a);
                Stencil::new(a, &x, h).for_each(fd, h, |node, w, _| {
                    dv[a] += w * self.change[a][face_index(dims, a, node)];
                });
            }
            p.velocity += dv;
        }
    }
}

/// `cells` with each face's open fraction multiplied by `ratio` (the operator's coefficients of a
/// projection of two phases, [`SnowOnFaces::flux`]).
pub fn weighted(mut cells: PressureCells, ratio: &[Vec<f64>; 3]) -> PressureCells {
    for (open, ratio) in cells.open.iter_mut().zip(ratio) {
        for (o, r) in open.iter_mut().zip(ratio) {
            *o *= r;
        }
    }
    cells
}
