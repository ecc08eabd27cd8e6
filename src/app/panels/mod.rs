//! Every egui panel: each draws from the read-only [`crate::app::model`] of the frame and sends
//! [`crate::app::events::AppEvent`]s; none holds the driver, the solver or the renderer.

pub mod grid_view;
pub mod legend;
pub mod material;
pub mod overlay;
pub mod render;
pub mod scene;
pub mod side;
pub mod simulation;
pub mod stats;
pub mod timeline;
pub mod tips;
pub mod toolbar;
pub mod widgets;
