//! What the water step reports and is built on: its grid, a frame's status, the projection's
//! per-cell diagnostics, and the fixed point of its face sums.

use nalgebra::Vector3;

use crate::sim::pressure::cells::{CellKind, PressureCells};
use crate::sim::pressure::gpu::{HISTORY_LENGTH, PcgScalars};

/// The face sums' fixed-point units per unit: the largest power of two, at most 2²⁰ (a millionth
/// of a particle's weight), at which a face's momentum stays within i32 with four times the rest
/// packing of `particles_per_cell` moving at `max_speed` (a face sums about one cell's weights).
pub fn fixed_point_scale(particles_per_cell: f64, max_speed: f64) -> f32 {
    let largest = i32::MAX as f64 / (4.0 * particles_per_cell * max_speed.max(1.0));
    largest.log2().floor().clamp(0.0, 20.0).exp2() as f32
}

/// The residual curve of a solve from its scalars' and history's bytes: the start and each
/// iteration taken.
pub(super) fn history_of(scalars: &[u8], history: &[u8]) -> Vec<f32> {
    let scalars: PcgScalars = bytemuck::pod_read_unaligned(&scalars[..size_of::<PcgScalars>()]);
    let history: &[f32] = bytemuck::cast_slice(&history[..4 * HISTORY_LENGTH]);
    history[..(scalars.iterations as usize + 1).min(HISTORY_LENGTH)].to_vec()
}

/// Per cell 1 where `solids` is solid, else 0 (`solid` in the WGSL).
pub(super) fn solid_mask(solids: &PressureCells) -> Vec<u32> {
    solids.kind.iter().map(|k| u32::from(*k == CellKind::Solid)).collect()
}

/// What a step's projection did, per cell of the water's grid (solid layer included, x fastest).
#[derive(Clone, Debug, PartialEq)]
pub struct WaterDiagnostics {
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// The kind each cell was solved as: 0 air, 1 liquid, 2 solid.
    pub kinds: Vec<u32>,
    /// Per cell: the divergence before the projection and after it (1/s, each face's flux
    /// weighted by its open fraction), the pressure (Pa) and the solve's residual b − A p (Pa;
    /// zero off the unknowns).
    pub cells: Vec<[f32; 4]>,
}

/// Where the water's grid lies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WaterGrid {
    /// Cells along x, y, z (the solid layer around them not counted).
    pub cells: [usize; 3],
    /// Cell edge, m.
    pub h: f64,
    /// The domain's lowest corner, m.
    pub origin: Vector3<f64>,
    /// Gravity, m/s².
    pub gravity: Vector3<f64>,
    /// The fastest a particle may move, m/s.
    pub max_speed: f64,
}

/// What a frame's steps report ([`WaterGpu::finish_frame`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameStatus {
    /// The fastest particle's speed after the last step, m/s.
    pub fastest: f64,
    /// The most iterations a projection solve took.
    pub iterations: u32,
    /// The most iterations a volume correction's solve took.
    pub volume_iterations: u32,
    /// Solves (of both kinds) that stopped at the recorded iterations before their tolerance.
    pub unconverged: u32,
    /// The iterations the next frame records per projection solve.
    pub budget: u32,
}

#[cfg(test)]
mod tests {
    use super::fixed_point_scale;

    /// 8 particles a cell at 50 m/s: 2³¹ / 1600 = 1.34e6 units, so 2²⁰; 64 at 50 m/s: 1.68e5, so
    /// 2¹⁷, and then four times the rest packing at the top speed still fits an i32.
    #[test]
    fn the_fixed_point_scale_keeps_a_crowded_fast_face_within_i32() {
        assert_eq!(fixed_point_scale(8.0, 50.0), 1048576.0);
        assert_eq!(fixed_point_scale(64.0, 50.0), 131072.0);
        assert!(4.0 * 64.0 * 50.0 * 131072.0 <= i32::MAX as f64);
    }
}
