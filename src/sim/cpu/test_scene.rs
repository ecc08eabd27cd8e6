//! A hand-built scene shared by the pass tests (compiled for tests only).

use glam::{DVec3, UVec3, Vec3};

use crate::sim::fixed_point::FixedPoint;
use crate::sim::material::SnowMaterial;
use crate::sim::params::{Boundary, GpuParticle, GridSpec, SolverParams};

/// 8³ cells of 0.1 m from the origin, reference snow, default walls, 50 m/s, dt = 1e-4 s.
pub(crate) fn params() -> SolverParams {
    let material = SnowMaterial::default();
    SolverParams {
        grid: GridSpec { domain_min: DVec3::ZERO, cell_size: 0.1, cells: UVec3::splat(8) },
        material,
        emitter_materials: Default::default(),
        gravity: DVec3::new(0.0, 0.0, -9.81),
        dt: 1e-4,
        cfl: 0.4,
        boundary: Boundary::default(),
        max_speed: 50.0,
        fixed_point: FixedPoint::for_scene(material.density, 0.1, 50.0),
    }
}

/// An undeformed particle of an eighth of a cell of reference snow (8 particles per cell).
pub(crate) fn particle(position: Vec3, velocity: Vec3) -> GpuParticle {
    let volume = 0.1f32.powi(3) / 8.0;
    GpuParticle::new(position, velocity, 400.0 * volume, volume, 0)
}
