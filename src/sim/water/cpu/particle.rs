//! A water particle of the CPU twin.

use nalgebra::Vector3;

/// A water particle.
#[derive(Clone, Debug, PartialEq)]
pub struct WaterParticle {
    /// Position, m.
    pub position: Vector3<f64>,
    /// Velocity, m/s.
    pub velocity: Vector3<f64>,
    /// APIC's affine velocity: row a is the gradient of velocity component a, 1/s.
    pub affine: [Vector3<f64>; 3],
}

impl WaterParticle {
    /// A particle at rest at `position`.
    pub fn at_rest(position: Vector3<f64>) -> Self {
        Self { position, velocity: Vector3::zeros(), affine: [Vector3::zeros(); 3] }
    }
}
