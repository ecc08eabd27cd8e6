//! Emitters: the shapes that are filled with snow at time zero, and how they are sampled.
//!
//! Sampling: a regular lattice of spacing `s = h / cbrt(particles_per_cell)`, centred on the
//! shape's bounding box, every point jittered uniformly by ±s/4 per axis, and kept if the jittered
//! point lies inside the shape. Each particle stands for a cube of volume `s³`, so the emitted mass
//! is `ρ s³ · count`, which equals `ρ · volume` up to the lattice's resolution of the surface.

use std::path::PathBuf;

use glam::{DVec3, Vec3};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use super::pour::Pour;
use crate::collider::config::Transform;
use crate::collider::{WindingTree, lattice_inside};
use crate::mesh::TriangleMesh;
use crate::sim::material::SnowMaterial;

/// Largest jitter of a lattice point, as a fraction of the spacing, per axis.
pub const JITTER: f64 = 0.25;

/// A region filled with snow at the start of the simulation. Positions in metres, velocities in m/s.
///
/// In JSON the shape is the `"shape"` tag: `{"shape": "sphere", "center": [..], "radius": r}`,
/// `{"shape": "box", "min": [..], "max": [..]}` or (format v2) `{"shape": "mesh", "path": ..,
/// "transform": {..}}`; `velocity` is optional (default zero).
///
/// A mesh emitter fills the inside of a glTF file's meshes (rest pose), decided by the generalised
/// winding number (≥ ½ inside, evaluated over a hierarchy of the triangles:
/// [`crate::collider::WindingTree`]), so meshes with small holes still fill. Its methods take the mesh,
/// placed in the world, as `mesh`; the other shapes ignore it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "lowercase", deny_unknown_fields)]
pub enum Emitter {
    /// An axis-aligned box.
    Box {
        /// Lower corner, metres.
        min: DVec3,
        /// Upper corner, metres; greater than `min` on every axis.
        max: DVec3,
        /// Initial velocity of all its particles, m/s.
        #[serde(default)]
        velocity: DVec3,
        /// Its own material (format v3; `None`: the scene's), written as the scene's `material`
        /// section is, a preset's id and fields over it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "super::material_section::own_material"
        )]
        material: Option<SnowMaterial>,
        /// Keeps emitting from `pour.start` to `pour.end` (format v4; `None`: fills once, at time
        /// zero): [`super::pour`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pour: Option<Pour>,
    },
    /// A ball.
    Sphere {
        /// Centre, metres.
        center: DVec3,
        /// Radius, metres.
        radius: f64,
        /// Initial velocity of all its particles, m/s.
        #[serde(default)]
        velocity: DVec3,
        /// Its own material (format v3; `None`: the scene's), written as the scene's `material`
        /// section is, a preset's id and fields over it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "super::material_section::own_material"
        )]
        material: Option<SnowMaterial>,
        /// Keeps emitting from `pour.start` to `pour.end` (format v4; `None`: fills once, at time
        /// zero): [`super::pour`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pour: Option<Pour>,
    },
    /// The inside of every mesh of a glTF file.
    Mesh {
        /// The `.gltf` or `.glb` file, relative to the scene file's folder.
        path: PathBuf,
        /// Placement of the file's meshes (after glTF's y-up is mapped to z-up).
        #[serde(default)]
        transform: Transform,
        /// Initial velocity of all its particles, m/s.
        #[serde(default)]
        velocity: DVec3,
        /// Its own material (format v3; `None`: the scene's), written as the scene's `material`
        /// section is, a preset's id and fields over it.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "super::material_section::own_material"
        )]
        material: Option<SnowMaterial>,
        /// Keeps emitting from `pour.start` to `pour.end` (format v4; `None`: fills once, at time
        /// zero): [`super::pour`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pour: Option<Pour>,
    },
}

impl Emitter {
    /// The emitter's own material, if it names one (its particles otherwise take the scene's).
    pub fn material(&self) -> Option<&SnowMaterial> {
        match self {
            Emitter::Box { material, .. } | Emitter::Sphere { material, .. } | Emitter::Mesh { material, .. } => {
                material.as_ref()
            }
        }
    }

    /// Gives the emitter a material of its own (`None`: the scene's).
    pub fn set_material(&mut self, own: Option<SnowMaterial>) {
        match self {
            Emitter::Box { material, .. } | Emitter::Sphere { material, .. } | Emitter::Mesh { material, .. } => {
                *material = own;
            }
        }
    }

    /// How it keeps emitting, if it does ([`super::pour`]).
    pub fn pour(&self) -> Option<&Pour> {
        match self {
            Emitter::Box { pour, .. } | Emitter::Sphere { pour, .. } | Emitter::Mesh { pour, .. } => pour.as_ref(),
        }
    }

    /// Its shape's length along the direction of its velocity, metres: how far a batch moves
    /// before it has left the place the next is born in (a mesh's bounding box stands for it).
    /// 0 for an emitter at rest.
    pub fn length_along_velocity(&self, mesh: Option<&TriangleMesh>) -> f64 {
        let v = self.velocity();
        if v.length() <= 0.0 {
            return 0.0;
        }
        let (lo, hi) = self.bounds(mesh);
        match *self {
            Emitter::Sphere { radius, .. } => 2.0 * radius,
            _ => super::pour::length_along(hi - lo, v.normalize()),
        }
    }

    /// The volume of an analytic shape, m³ (`None` for a mesh, known only once sampled).
    pub fn shape_volume(&self) -> Option<f64> {
        match *self {
            Emitter::Box { min, max, .. } => Some((max - min).max(DVec3::ZERO).element_product()),
            Emitter::Sphere { radius, .. } => Some(4.0 / 3.0 * std::f64::consts::PI * radius.powi(3)),
            Emitter::Mesh { .. } => None,
        }
    }

    /// Initial velocity of the emitted snow, m/s.
    pub fn velocity(&self) -> DVec3 {
        match *self {
            Emitter::Box { velocity, .. } | Emitter::Sphere { velocity, .. } | Emitter::Mesh { velocity, .. } => {
                velocity
            }
        }
    }

    /// The shape's name as written in scene files (`"box"` or `"sphere"`).
    pub fn shape_name(&self) -> &'static str {
        match self {
            Emitter::Box { .. } => "box",
            Emitter::Sphere { .. } => "sphere",
            Emitter::Mesh { .. } => "mesh",
        }
    }

    /// Axis-aligned bounding box `(min, max)`, metres (a mesh emitter's: of `mesh`; empty
    /// without one).
    pub fn bounds(&self, mesh: Option<&TriangleMesh>) -> (DVec3, DVec3) {
        match *self {
            Emitter::Box { min, max, .. } => (min, max),
            Emitter::Sphere { center, radius, .. } => (center - DVec3::splat(radius), center + DVec3::splat(radius)),
            Emitter::Mesh { .. } => match mesh.and_then(TriangleMesh::bounds) {
                Some((lo, hi)) => (lo.as_dvec3(), hi.as_dvec3()),
                None => (DVec3::ZERO, DVec3::ZERO),
            },
        }
    }

    /// Whether `p` lies inside an analytic shape (boundary included); meshes are tested in batches
    /// by [`Emitter::for_each_point`].
    pub fn contains(&self, p: DVec3) -> bool {
        match *self {
            Emitter::Box { min, max, .. } => p.cmpge(min).all() && p.cmple(max).all(),
            Emitter::Sphere { center, radius, .. } => p.distance_squared(center) <= radius * radius,
            Emitter::Mesh { .. } => false,
        }
    }

    /// Lattice points per axis at `spacing`. A box gets `round(extent / s)` points, all of them at
    /// least `s/2 − s/4` inside its faces, so an extent that is a multiple of `s` is filled exactly;
    /// a sphere gets enough points to cover it (`ceil(2r / s) + 1`) and the inside test trims them.
    fn lattice_counts(&self, spacing: f64, mesh: Option<&TriangleMesh>) -> [u64; 3] {
        let (lo, hi) = self.bounds(mesh);
        let extent = (hi - lo) / spacing;
        let count = |e: f64| -> u64 {
            let n = match self {
                Emitter::Box { .. } => e.round(),
                Emitter::Sphere { .. } | Emitter::Mesh { .. } => e.ceil() + 1.0,
            };
            if n.is_finite() && n > 0.0 { n.min(u32::MAX as f64) as u64 } else { 0 }
        };
        [count(extent.x), count(extent.y), count(extent.z)]
    }

    /// Upper bound on the number of particles this emitter makes at `spacing` (the lattice size).
    pub fn max_points(&self, spacing: f64, mesh: Option<&TriangleMesh>) -> u64 {
        self.lattice_counts(spacing, mesh).iter().fold(1u64, |a, &n| a.saturating_mul(n))
    }

    /// The jittered lattice points in order, from the random stream seeded by `seed`.
    fn jittered(&self, spacing: f64, seed: u64, mesh: Option<&TriangleMesh>) -> Jittered {
        let dims = self.lattice_counts(spacing, mesh);
        let (lo, hi) = self.bounds(mesh);
        let n = DVec3::new(dims[0] as f64, dims[1] as f64, dims[2] as f64);
        let start = 0.5 * (lo + hi) - 0.5 * (n - DVec3::ONE) * spacing;
        Jittered { rng: StdRng::seed_from_u64(seed), start, spacing, dims, next: [0; 3] }
    }

    /// Which points of the jittered lattice (seeded by `seed`) lie inside the shape, without making
    /// any particles: one bit per lattice point, so the count is known before anything is allocated
    /// for the particles. `until_first` stops at the first slab of points that holds one (enough to
    /// tell that the emitter is not empty). `progress(done, total)` is called after each slab of a
    /// mesh emitter with the lattice points tested so far. The caller bounds [`Emitter::max_points`]
    /// first (scene validation does): the bits take an eighth of a byte per lattice point.
    pub fn sample(
        &self,
        spacing: f64,
        seed: u64,
        mesh: Option<&TriangleMesh>,
        until_first: bool,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Sampling {
        let mut points = self.jittered(spacing, seed, mesh);
        let total = self.max_points(spacing, mesh);
        let mut sampling = Sampling { bits: vec![0; total.div_ceil(64) as usize], count: 0 };
        let mesh = match (self, mesh) {
            (Emitter::Mesh { .. }, Some(mesh)) => mesh,
            (Emitter::Mesh { .. }, None) => return sampling,
            _ => {
                for index in 0..total {
                    if points.next().is_some_and(|p| self.contains(p)) {
                        sampling.set(index);
                    }
                }
                progress(total, total);
                return sampling;
            }
        };
        let tree = WindingTree::new(mesh);
        let [nx, ny, nz] = points.dims.map(|n| n as usize);
        // Slabs of whole layers, large enough to keep the threads busy, small enough to bound the
        // memory of the candidates.
        let layers = (SLAB_POINTS / (nx * ny).max(1)).clamp(1, nz.max(1));
        let mut done = 0u64;
        for k0 in (0..nz).step_by(layers) {
            let slab = layers.min(nz - k0);
            let candidates: Vec<Vec3> =
                (0..nx * ny * slab).filter_map(|_| points.next()).map(|p| p.as_vec3()).collect();
            for (i, inside) in lattice_inside(&tree, &candidates, [nx, ny, slab]).into_iter().enumerate() {
                if inside {
                    sampling.set(done + i as u64);
                }
            }
            done += candidates.len() as u64;
            progress(done, total);
            if until_first && sampling.count > 0 {
                break;
            }
        }
        sampling
    }

    /// Calls `f` with every point of the jittered lattice (seeded by `seed`) that `sampling`, from
    /// [`Emitter::sample`] with the same arguments, keeps, in lattice order.
    pub fn emit(
        &self,
        spacing: f64,
        seed: u64,
        mesh: Option<&TriangleMesh>,
        sampling: &Sampling,
        mut f: impl FnMut(DVec3),
    ) {
        for (index, p) in self.jittered(spacing, seed, mesh).enumerate() {
            if sampling.get(index as u64) {
                f(p);
            }
        }
    }

    /// Calls `f` with every sampled position, in a fixed order, using a random stream seeded by
    /// `seed` alone (so the result is deterministic and independent of other emitters).
    pub fn for_each_point(&self, spacing: f64, seed: u64, mesh: Option<&TriangleMesh>, f: impl FnMut(DVec3)) {
        let sampling = self.sample(spacing, seed, mesh, false, &mut |_, _| {});
        self.emit(spacing, seed, mesh, &sampling, f);
    }
}

/// Candidate points a mesh emitter tests at a time (whole lattice layers, at least one).
const SLAB_POINTS: usize = 1 << 18;

/// Which points of an emitter's jittered lattice it keeps ([`Emitter::sample`]): one bit per
/// lattice point, in lattice order (x fastest, then y, then z).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sampling {
    bits: Vec<u64>,
    count: u64,
}

impl Sampling {
    /// Points kept: the particles the emitter makes.
    pub fn count(&self) -> u64 {
        self.count
    }

    fn set(&mut self, index: u64) {
        if let Some(word) = self.bits.get_mut((index / 64) as usize) {
            *word |= 1 << (index % 64);
            self.count += 1;
        }
    }

    fn get(&self, index: u64) -> bool {
        self.bits.get((index / 64) as usize).is_some_and(|word| word >> (index % 64) & 1 == 1)
    }
}

/// An emitter's lattice points, each jittered uniformly by ±[`JITTER`]·spacing per axis, x fastest.
struct Jittered {
    rng: StdRng,
    start: DVec3,
    spacing: f64,
    dims: [u64; 3],
    /// Lattice index of the next point.
    next: [u64; 3],
}

impl Iterator for Jittered {
    type Item = DVec3;

    fn next(&mut self) -> Option<DVec3> {
        let [i, j, k] = self.next;
        if k >= self.dims[2] || self.dims[0] == 0 || self.dims[1] == 0 {
            return None;
        }
        self.next = if i + 1 < self.dims[0] {
            [i + 1, j, k]
        } else if j + 1 < self.dims[1] {
            [0, j + 1, k]
        } else {
            [0, 0, k + 1]
        };
        let amplitude = JITTER * self.spacing;
        let jitter = DVec3::new(
            self.rng.random_range(-1.0..=1.0),
            self.rng.random_range(-1.0..=1.0),
            self.rng.random_range(-1.0..=1.0),
        ) * amplitude;
        Some(self.start + DVec3::new(i as f64, j as f64, k as f64) * self.spacing + jitter)
    }
}

/// The seed of emitter `index`'s random stream, from the scene's `seed` (splitmix64 mixing, so
/// neighbouring seeds and indices give unrelated streams).
pub(crate) fn emitter_seed(seed: u64, index: usize) -> u64 {
    fn splitmix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    splitmix(seed ^ splitmix(index as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_box_is_filled_exactly() {
        let e = Emitter::Box {
            material: None,
            pour: None,
            min: DVec3::ZERO,
            max: DVec3::new(0.5, 0.25, 1.0),
            velocity: DVec3::X,
        };
        let mut count = 0;
        e.for_each_point(0.05, 7, None, |p| {
            assert!(e.contains(p));
            count += 1;
        });
        assert_eq!(count, 10 * 5 * 20);
        assert_eq!(e.max_points(0.05, None), 1000);
    }

    #[test]
    fn tiny_shapes_make_no_points() {
        let e = Emitter::Box {
            material: None,
            pour: None,
            min: DVec3::ZERO,
            max: DVec3::new(0.01, 1.0, 1.0),
            velocity: DVec3::ZERO,
        };
        assert_eq!(e.max_points(0.05, None), 0);
        let s =
            Emitter::Sphere { material: None, pour: None, center: DVec3::ZERO, radius: 1e-4, velocity: DVec3::ZERO };
        let mut count = 0;
        s.for_each_point(0.05, 1, None, |_| count += 1);
        assert_eq!(count, 0);
    }
}
