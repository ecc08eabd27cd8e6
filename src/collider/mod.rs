//! Colliders: solid shapes the snow meets, as signed distance fields sampled on the simulation grid.

mod geometry;
pub mod sdf;
mod sdf_layer;
mod topology;
pub mod winding;

pub use sdf::{MeshSdf, mesh_sdf};
pub use winding::{points_inside, winding_number};
pub mod display;
pub mod field;
pub mod set;
pub mod shapes;
