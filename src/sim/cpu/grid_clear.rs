//! The `grid_clear` pass: every node's mass and momentum set to zero.

use nalgebra::Vector3;

use super::grid::CpuGrid;

/// Zeroes the mass and momentum of every node. Velocities are left alone: the grid update
/// overwrites all of them (nodes without mass get zero).
pub fn grid_clear(grid: &mut CpuGrid) {
    grid.mass.fill(0.0);
    grid.momentum.fill(Vector3::zeros());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::cpu::test_scene;

    #[test]
    fn clears_mass_and_momentum() {
        let params = test_scene::params();
        let mut grid = CpuGrid::new(&params.grid);
        grid.mass[5] = 1.0;
        grid.momentum[7] = Vector3::new(1.0, 2.0, 3.0);
        grid_clear(&mut grid);
        // Exact: the pass writes zeros.
        assert!(grid.mass.iter().all(|&m| m == 0.0));
        assert!(grid.momentum.iter().all(|p| *p == Vector3::zeros()));
    }
}
