//! A layer of fluid on an incline (`tests/visco.rs`, `tests/visco_pbmpm.rs`): the scene, and where
//! its surface is and how fast it moves.

use glam::{DVec3, UVec3, Vec3};
use powder::sim::cpu::particle::CpuParticle;
use powder::sim::material::SnowMaterial;
use powder::sim::params::{BoundaryKind, GpuParticle, SolverParams};

/// Gravity, m/s².
pub const G: f64 = 9.81;
/// The incline, degrees: gravity is tilted by it, the domain floor is the slope.
pub const SLOPE: f64 = 30.0;
/// Cell size, m.
pub const H: f64 = 1.0 / 128.0;
/// Height of the floor, m: two cells above the domain's.
pub const FLOOR: f64 = 2.0 * H;

/// A layer `thickness` deep and 0.3 m long of `material` on the floor of a channel 0.5 m long
/// (x), 4 cells wide (y), gravity tilted by [`SLOPE`] along x; at rest, against the upper end;
/// `dt` the explicit step. The lower end is open ground: in a channel closed at both ends the
/// liquid, which is slightly compressible, only compresses against the lower wall until the
/// pressure balances the slope (1.8 % for honey here), and stops.
///
/// The floor must hold the fluid still (no slip) and the channel's sides must not (a 3 cm wide
/// duct with no-slip sides is a different flow, and walls with friction stick too, pressed by the
/// particles' jitter): the domain's walls slip without friction, and the floor is the sticky
/// half-space collider two cells up that [`super::sticky_floor`] makes at [`FLOOR`].
pub fn layer(material: SnowMaterial, thickness: f64, dt: f64) -> (SolverParams, Vec<GpuParticle>) {
    let mut params = super::params(1, H, dt);
    params.grid.cells = UVec3::new(64, 4, 20);
    params.material = material;
    params.boundary.kind = BoundaryKind::Slip;
    params.boundary.friction = 0.0;
    let theta = SLOPE.to_radians();
    params.gravity = DVec3::new(G * theta.sin(), 0.0, -G * theta.cos());
    params.fixed_point = powder::sim::fixed_point::FixedPoint::for_scene(material.density, H, params.max_speed);
    let lo = Vec3::new(0.0, 0.0, FLOOR as f32);
    let hi = Vec3::new(0.3, (4.0 * H) as f32, (FLOOR + thickness) as f32);
    (params, super::block(lo, hi, H as f32, material.density as f32, |_| Vec3::ZERO))
}

/// The surface speed of a Newtonian film of `material` and depth `h` on the slope (Nusselt):
/// ρ g sin θ h² / (2η), m/s.
pub fn nusselt(material: &SnowMaterial, h: f64) -> f64 {
    material.density * G * SLOPE.to_radians().sin() * h * h / (2.0 * material.viscosity)
}

/// The mean down-slope speed of the particles within half a cell of the layer's top, over its
/// middle (x in [0.1, 0.2] m: away from the upper end, where it thins, and its front), and the
/// layer's depth there: from the floor to its top particles' centres, plus the quarter cell by
/// which a particle's centre lies below the surface of the cube of fluid it stands for.
pub fn surface(particles: &[CpuParticle]) -> (f64, f64) {
    let middle: Vec<&CpuParticle> = particles.iter().filter(|p| (0.1..0.2).contains(&p.position.x)).collect();
    let top = middle.iter().map(|p| p.position.z).fold(f64::MIN, f64::max);
    let surface: Vec<&&CpuParticle> = middle.iter().filter(|p| p.position.z > top - 0.5 * H).collect();
    let n = surface.len() as f64;
    let speed = surface.iter().map(|p| p.velocity.x).sum::<f64>() / n;
    let depth = surface.iter().map(|p| p.position.z).sum::<f64>() / n + 0.25 * H - FLOOR;
    (speed, depth)
}

/// How far the particles of the layer's middle (x in [0.1, 0.2] m at the start, `start`) moved
/// down the slope, on average, m.
pub fn middle_moved(start: &[GpuParticle], now: &[CpuParticle]) -> f64 {
    let moved: Vec<f64> = now
        .iter()
        .zip(start)
        .filter(|(_, p0)| (0.1..0.2).contains(&p0.position[0]))
        .map(|(p, p0)| p.position.x - p0.position[0] as f64)
        .collect();
    moved.iter().sum::<f64>() / moved.len() as f64
}
