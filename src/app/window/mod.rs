//! The open window: the frame loop ([`running`]) that builds the model, runs the panels, applies
//! the events they send and draws; the device and surface ([`gfx`]), mouse and keys ([`input`]),
//! screenshots, and the grid view's overlay.

pub mod capture;
pub mod gfx;
pub mod grid_view;
pub mod input;
pub mod running;
pub mod screenshot;
pub mod ui_layer;
pub mod view;
