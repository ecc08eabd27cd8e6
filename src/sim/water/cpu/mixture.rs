//! Snow in the water's pressure projection (f64 twin): one pressure solve for water and the snow
//! that touches it, each phase keeping its own velocity grid.
//!
//! The snow's particles put their mass, momentum and current volume on the water's MAC faces.
//! Each face's velocity becomes the mass-weighted mean of the two phases, and its density the
//! mixture's, `ρ_f = (m_w + m_s) / (m_w / ρ_w + V_s)`. Cells holding snow that are connected to
//! the water through cells of snow or water join the liquid, and the projection with per-face
//! coefficients `1/ρ_f` (a variable-density projection) makes the mixture divergence-free:
//! water cannot enter the snow's cells without moving the snow, and a pressure gradient of
//! `ρ_w g` accelerates the snow's faces by `ρ_w g / ρ_s`, Archimedes' buoyancy, from the same
//! solve that holds the water up. The solve is one linear system, so light snow in heavy water
//! needs no added-mass iteration (an explicit exchange of pressure forces between two solves is
//! unstable once the displaced water outweighs the snow).
//!
//! After the projection each face's velocity change is given to the snow's particles (a FLIP
//! increment sampled with the same weights that scattered them: the momentum the snow's faces
//! gained is exactly what its particles gain), and its own step (elasticity, plasticity, walls)
//! goes on on its own grid. The volume correction counts the snow's volume in each cell, so water
//! that ended up inside the snow is pushed out of it.

use nalgebra::Vector3;

use super::faces::{FaceGrid, Stencil};
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
            let c: [usize; 3] =
                std::array::from_fn(|a| ((x[a] / h).floor() as i64 + 1).clamp(1, dims[a] as i64 - 2) as usize);
            holds_snow[c[0] + dims[0] * (c[1] + dims[1] * c[2])] = true;
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

    /// Mixes the snow into the water's faces `grid` (each water particle of `water_mass` kg, water
    /// of `density` kg/m³): the faces' velocity becomes the two phases' mass-weighted mean. Returns
    /// each face's `ρ_w / ρ_f`, the factor on its coefficient in the projection.
    pub fn mix(&self, grid: &mut FaceGrid, water_mass: f64, density: f64) -> [Vec<f64>; 3] {
        std::array::from_fn(|a| {
            let mut ratio = vec![1.0; grid.velocity[a].len()];
            for (f, r) in ratio.iter_mut().enumerate() {
                let ms = self.mass[a][f];
                if ms <= 0.0 {
                    continue;
                }
                let mw = grid.weight[a][f] * water_mass;
                let water_momentum = if grid.valid[a][f] { mw * grid.velocity[a][f] } else { 0.0 };
                grid.velocity[a][f] = (water_momentum + self.momentum[a][f]) / (mw + ms);
                grid.valid[a][f] = true;
                grid.weight[a][f] += ms / water_mass;
                let mixture = (mw + ms) / (mw / density + self.volume[a][f].max(1e-30));
                *r = density / mixture;
            }
            ratio
        })
    }

    /// Records the projection's velocity change on every face: `after − before`.
    pub fn record_change(&mut self, before: &FaceGrid, after: &FaceGrid) {
        for a in 0..3 {
            for (f, change) in self.change[a].iter_mut().enumerate() {
                *change = after.velocity[a][f] - before.velocity[a][f];
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
/// variable-density projection).
pub fn weighted(mut cells: PressureCells, ratio: &[Vec<f64>; 3]) -> PressureCells {
    for (open, ratio) in cells.open.iter_mut().zip(ratio) {
        for (o, r) in open.iter_mut().zip(ratio) {
            *o *= r;
        }
    }
    cells
}
