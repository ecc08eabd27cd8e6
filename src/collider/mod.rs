//! Colliders: solid shapes the snow meets, as signed distance fields sampled on the simulation grid.

pub mod config;
mod geometry;
pub mod sdf;
mod sdf_context;
mod sdf_layer;
mod topology;
pub mod winding;
pub mod winding_tree;

pub use sdf::{MeshSdf, mesh_sdf};
pub use winding::{lattice_inside, points_inside, winding_number};
pub use winding_tree::WindingTree;
pub mod display;
pub mod field;
pub mod set;
pub mod shapes;
