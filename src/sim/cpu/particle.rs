//! The CPU twin's particle ([`CpuParticle`]): a [`GpuParticle`] widened to f64, and the speed
//! guard every pass applies to particle and node velocities ([`clamp_speed`]).

use glam::Vec3;
use nalgebra::{Matrix3, Vector3};

use crate::sim::params::GpuParticle;

/// One material point in f64. Fields as in [`GpuParticle`]; matrices are nalgebra's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuParticle {
    /// Position x_p, metres.
    pub position: Vector3<f64>,
    /// Velocity v_p, m/s.
    pub velocity: Vector3<f64>,
    /// Mass m_p, kg (constant).
    pub mass: f64,
    /// Initial volume V⁰_p, m³ (constant).
    pub volume: f64,
    /// Affine velocity matrix C_p, 1/s.
    pub affine: Matrix3<f64>,
    /// Elastic deformation gradient F_E.
    pub deformation: Matrix3<f64>,
    /// Plastic volume ratio J_P.
    pub plastic_jacobian: f64,
    /// Material id.
    pub material: u32,
    /// 1 once the particle has cracked (it then carries no tension), else 0.
    pub damage: f64,
    /// Strength relative to the material's (tensile strength and cracking stretch).
    pub strength: f64,
}

/// A GPU matrix (three columns padded to four floats) as an f64 matrix.
fn matrix_from_gpu(m: &[[f32; 4]; 3]) -> Matrix3<f64> {
    Matrix3::from_fn(|row, col| m[col][row] as f64)
}

/// An f64 matrix in the GPU layout (column-major, columns padded with a zero).
fn matrix_to_gpu(m: &Matrix3<f64>) -> [[f32; 4]; 3] {
    let col = |c: usize| [m[(0, c)] as f32, m[(1, c)] as f32, m[(2, c)] as f32, 0.0];
    [col(0), col(1), col(2)]
}

impl CpuParticle {
    /// Widens a GPU particle to f64.
    pub fn from_gpu(p: &GpuParticle) -> Self {
        let v = |a: [f32; 3]| Vector3::new(a[0] as f64, a[1] as f64, a[2] as f64);
        Self {
            position: v(p.position),
            velocity: v(p.velocity),
            mass: p.mass as f64,
            volume: p.volume as f64,
            affine: matrix_from_gpu(&p.affine),
            deformation: matrix_from_gpu(&p.deformation),
            plastic_jacobian: p.plastic_jacobian as f64,
            material: p.material,
            damage: p.damage as f64,
            strength: p.strength as f64,
        }
    }

    /// Rounds the particle to the GPU's f32 layout.
    pub fn to_gpu(&self) -> GpuParticle {
        let v = |a: &Vector3<f64>| Vec3::new(a.x as f32, a.y as f32, a.z as f32);
        let mut p =
            GpuParticle::new(v(&self.position), v(&self.velocity), self.mass as f32, self.volume as f32, self.material);
        p.affine = matrix_to_gpu(&self.affine);
        p.deformation = matrix_to_gpu(&self.deformation);
        p.plastic_jacobian = self.plastic_jacobian as f32;
        p.damage = self.damage as f32;
        p.strength = self.strength as f32;
        p
    }
}

/// `v` scaled down to length `max_speed` if it is longer (the speed guard of every pass).
pub fn clamp_speed(v: Vector3<f64>, max_speed: f64) -> Vector3<f64> {
    let speed = v.norm();
    if speed > max_speed { v * (max_speed / speed) } else { v }
}
