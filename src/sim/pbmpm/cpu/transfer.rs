//! The two transfers of an iteration: particles scatter displacement to the grid ([`p2g`]) and
//! gather it back ([`g2p`]). Both use the explicit integrator's quadratic B-spline stencil
//! (`crate::sim::cpu::grid::Stencil`), so the same 27 nodes and weights.
//!
//! Together they conserve mass and linear momentum exactly (in exact arithmetic): the weights
//! sum to one and `Σ_i w_ip (x_i − x_p) = 0`, so the grid holds `Σ_p m_p d_p` and hands it back.

use nalgebra::{Matrix3, Vector3};

use super::state::{PbmpmGrid, StepState};
use crate::sim::cpu::CpuParticle;
use crate::sim::cpu::grid::Stencil;
use crate::sim::params::GridSpec;

/// Clears the grid and scatters every particle onto it (APIC-style, in displacements).
///
/// Node i gets mass `Σ_p w_ip m_p` and mass-weighted displacement
/// `Σ_p w_ip m_p (d_p + D_p (x_i − x_p))`: each particle hands its nodes its own affine
/// displacement field, so a field that is affine over the particle's stencil comes back unchanged.
pub fn p2g(spec: &GridSpec, particles: &[CpuParticle], state: &[StepState], grid: &mut PbmpmGrid) {
    grid.clear();
    for (p, s) in particles.iter().zip(state) {
        let stencil = Stencil::new(spec, &p.position);
        for (node, w, offset) in stencil.nodes(spec) {
            grid.mass[node] += w * p.mass;
            grid.displacement_sum[node] += w * p.mass * (s.displacement + s.affine * offset);
        }
    }
}

/// Gathers every particle's displacement and affine displacement from the node displacements:
///
/// `d_p = Σ_i w_ip u_i`, `D_p = (4/h²) Σ_i w_ip u_i (x_i − x_p)ᵀ`.
///
/// `4/h²` inverts the quadratic B-spline's second moment `Σ_i w_ip (x_i − x_p)(x_i − x_p)ᵀ = h²/4·I`,
/// so `D_p` is the least-squares gradient of the node displacements around the particle (MLS).
/// The constraint impulse Λ is left alone.
pub fn g2p(spec: &GridSpec, grid: &PbmpmGrid, particles: &[CpuParticle], state: &mut [StepState]) {
    for (p, s) in particles.iter().zip(state) {
        (s.displacement, s.affine) = gather(spec, &grid.displacement, &p.position);
    }
}

/// `Σ_i w_ip u_i` and `(4/h²) Σ_i w_ip u_i (x_i − x_p)ᵀ` of a node field `u` at `position`: what
/// [`g2p`] gathers.
pub fn gather(spec: &GridSpec, field: &[Vector3<f64>], position: &Vector3<f64>) -> (Vector3<f64>, Matrix3<f64>) {
    let h = spec.cell_size;
    let mut d = Vector3::zeros();
    let mut b = Matrix3::zeros();
    for (node, w, offset) in Stencil::new(spec, position).nodes(spec) {
        let u = field[node];
        d += w * u;
        b += w * u * offset.transpose();
    }
    (d, (4.0 / (h * h)) * b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cpu::test_scene;
    use crate::sim::pbmpm::cpu::grid::grid_update;
    use glam::Vec3;

    #[test]
    fn an_affine_field_comes_back_unchanged() {
        // One particle well inside the domain with d and D set; P2G, grid update (no walls reached,
        // no gravity in the grid), G2P: a lone particle's nodes hold exactly its affine field, and
        // the gather's MLS gradient reproduces it.
        let params = test_scene::params();
        let p = CpuParticle::from_gpu(&test_scene::particle(Vec3::new(0.43, 0.41, 0.47), Vec3::ZERO));
        let d = Vector3::new(1e-3, -2e-3, 5e-4);
        let a = Matrix3::new(0.01, -0.02, 0.003, 0.004, -0.005, 0.006, 0.007, 0.008, -0.009);
        let mut state = [StepState { displacement: d, affine: a, impulse: Matrix3::zeros() }];
        let mut grid = PbmpmGrid::new(&params.grid);
        p2g(&params.grid, &[p], &state, &mut grid);
        // Mass: the weights sum to one (relative 1e-14: 27 products and sums of order-1 numbers).
        let total: f64 = grid.mass.iter().sum();
        assert!((total - p.mass).abs() <= 1e-14 * p.mass);
        grid_update(&params, 1e-3, None, &mut grid);
        state[0] = StepState::default();
        g2p(&params.grid, &grid, &[p], &mut state);
        // 1e-15 absolute on metres-sized sums of 27 terms of order 1e-3: rounding only.
        assert!((state[0].displacement - d).norm() < 1e-15, "{}", state[0].displacement);
        assert!((state[0].affine - a).norm() < 1e-13, "{}", state[0].affine);
    }
}
