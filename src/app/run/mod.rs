//! The simulation side of the app, without egui: the scene and solver ([`driver`]), how much a
//! frame advances ([`stepping`]), kept frames ([`timeline`]), colliders, the mouse tool, scene
//! files, undo history, recording, saving, reports and the test script. Imports only
//! [`crate::app::events`] and the library.

pub mod colliders;
pub mod dialog;
pub mod driver;
pub mod hot_reload;
pub mod messages;
pub mod presets;
pub mod recording;
pub mod report;
pub mod save;
pub mod scene_files;
pub mod script;
pub mod shown;
pub mod stepping;
pub mod timeline;
pub mod timing;
pub mod tool;
pub mod undo;
