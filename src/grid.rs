//! The simulation grid's geometry ([`GridSpec`]) and its walls' condition ([`Boundary`]): what the
//! solver ([`crate::sim`]) steps on and what the colliders ([`crate::collider`]) are voxelised
//! onto. Both stand on this module, so neither has to import the other for it;
//! [`crate::sim::params`] re-exports these under their old paths.

use glam::{DVec3, UVec3};
use serde::{Deserialize, Serialize};

/// Nodes of padding outside each domain wall. Two are enough for the quadratic B-spline's 3×3×3
/// stencil of a particle clamped to the domain box to stay inside the grid (see `GridSpec`).
pub const GRID_PADDING: u32 = 2;

/// How grid velocity is constrained at the domain walls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BoundaryKind {
    /// Velocity set to zero at the wall: snow freezes to it.
    Sticky,
    /// Normal velocity removed in both directions; tangential velocity kept, minus friction.
    Slip,
    /// Normal velocity removed only when moving into the wall, so snow can lift off. Friction
    /// acts only while in contact.
    #[default]
    Separate,
}

impl BoundaryKind {
    /// The value the shaders compare against (`BOUNDARY_*` in `types.wgsl`).
    pub fn gpu_code(self) -> u32 {
        match self {
            BoundaryKind::Sticky => 0,
            BoundaryKind::Slip => 1,
            BoundaryKind::Separate => 2,
        }
    }
}

/// The boundary condition of all six domain walls.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Boundary {
    /// Sticky, slip or separate.
    pub kind: BoundaryKind,
    /// Coulomb friction coefficient μ ≥ 0: tangential speed drops by μ times the normal speed removed.
    pub friction: f64,
}

impl Default for Boundary {
    fn default() -> Self {
        Self { kind: BoundaryKind::Separate, friction: 0.3 }
    }
}

/// The simulation grid: a box of `cells` cubic cells of edge `cell_size`, starting at `domain_min`,
/// plus [`GRID_PADDING`] nodes outside every wall.
///
/// Node `i` along an axis sits at `domain_min + (i − GRID_PADDING) · cell_size`. The walls are the
/// nodes `GRID_PADDING` and `GRID_PADDING + cells`; particles are clamped to the box between them,
/// so their stencil (nodes `floor(x/h − 0.5) .. +2`) never leaves `0 .. node_dims − 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSpec {
    /// The domain's lower corner, in metres.
    pub domain_min: DVec3,
    /// Edge length h of one cell, in metres.
    pub cell_size: f64,
    /// Cells inside the domain along each axis.
    pub cells: UVec3,
}

impl GridSpec {
    /// Nodes along each axis, padding included.
    pub fn node_dims(&self) -> UVec3 {
        self.cells + UVec3::splat(1 + 2 * GRID_PADDING)
    }

    /// Total number of grid nodes.
    pub fn node_count(&self) -> u64 {
        let d = self.node_dims();
        d.x as u64 * d.y as u64 * d.z as u64
    }

    /// Position of node (0, 0, 0), in metres.
    pub fn grid_origin(&self) -> DVec3 {
        self.domain_min - DVec3::splat(GRID_PADDING as f64 * self.cell_size)
    }

    /// The domain's upper corner: `domain_min + cells · h` (the requested size rounded up to whole cells).
    pub fn domain_max(&self) -> DVec3 {
        self.domain_min + self.cells.as_dvec3() * self.cell_size
    }

    /// Flat index of node `(i, j, k)`: x fastest, then y, then z (as in the shaders).
    pub fn node_index(&self, i: u32, j: u32, k: u32) -> usize {
        let d = self.node_dims();
        (i as usize) + d.x as usize * (j as usize + d.y as usize * k as usize)
    }
}
