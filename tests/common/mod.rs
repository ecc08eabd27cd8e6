//! Shared helpers of the GPU tests: a Vulkan device (lavapipe on machines without a GPU) and small
//! scenes built by hand.

#![allow(dead_code)] // Each test binary uses a different subset of these helpers.

use glam::{DVec3, UVec3, Vec3};
use powder::gpu::Gpu;
use powder::sim::fixed_point::FixedPoint;
use powder::sim::material::SnowMaterial;
use powder::sim::params::{Boundary, BoundaryKind, GpuParticle, GridSpec, SolverParams};

/// A device on the Vulkan backend. Fails loudly if wgpu picked anything else, so a silent fallback
/// (e.g. to GL) cannot make the GPU tests pass on the wrong driver.
pub fn gpu() -> Gpu {
    let gpu = Gpu::new_headless().expect("a Vulkan adapter (lavapipe on CI)");
    assert_eq!(gpu.info.backend, wgpu::Backend::Vulkan, "tests must run on Vulkan, got {}", gpu.describe());
    gpu
}

/// Solver parameters for a cube domain of `cells`³ cells of edge `h` starting at the origin.
pub fn params(cells: u32, h: f64, dt: f64) -> SolverParams {
    let material = SnowMaterial::default();
    let max_speed = 50.0;
    SolverParams {
        grid: GridSpec { domain_min: DVec3::ZERO, cell_size: h, cells: UVec3::splat(cells) },
        material,
        gravity: DVec3::new(0.0, 0.0, -9.81),
        dt,
        boundary: Boundary { kind: BoundaryKind::Separate, friction: 0.0 },
        max_speed,
        fixed_point: FixedPoint::for_scene(material.density, h),
    }
}

/// Particles on a lattice of spacing `h/2` (8 per cell) filling the box `[lo, hi)`, each with the
/// mass and volume of its lattice cell at `density`.
pub fn block(lo: Vec3, hi: Vec3, h: f32, density: f32, velocity: impl Fn(Vec3) -> Vec3) -> Vec<GpuParticle> {
    let s = 0.5 * h;
    let volume = s * s * s;
    let n = ((hi - lo) / s).round().as_uvec3();
    let mut out = Vec::new();
    for k in 0..n.z {
        for j in 0..n.y {
            for i in 0..n.x {
                let x = lo + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s;
                out.push(GpuParticle::new(x, velocity(x), density * volume, volume, 0));
            }
        }
    }
    out
}

/// Column `c` of a particle matrix as a Vec3.
pub fn column(m: &[[f32; 4]; 3], c: usize) -> Vec3 {
    Vec3::new(m[c][0], m[c][1], m[c][2])
}

/// The matrix as glam's Mat3.
pub fn mat3(m: &[[f32; 4]; 3]) -> glam::Mat3 {
    glam::Mat3::from_cols(column(m, 0), column(m, 1), column(m, 2))
}

/// Writes a glam Mat3 into the padded GPU layout.
pub fn padded(m: glam::Mat3) -> [[f32; 4]; 3] {
    let c = m.to_cols_array_2d();
    [[c[0][0], c[0][1], c[0][2], 0.0], [c[1][0], c[1][1], c[1][2], 0.0], [c[2][0], c[2][1], c[2][2], 0.0]]
}
