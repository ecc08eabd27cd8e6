//! Scene files: what to simulate. A scene is a JSON document (format v4, described field by field
//! in `docs/scene-format.md`) naming the domain, grid, time stepping, gravity, walls, material
//! and the emitters that fill shapes at time zero or keep pouring ([`PourSchedule`]).
//!
//! [`Scene::load`] reads, parses and validates a file; [`Scene::set_value`] applies a command-line
//! override; [`Scene::solver_params`], [`Scene::grid_spec`], [`Scene::sample_emitters`] and
//! [`Scene::make_particles`] turn a scene into what the solver needs. powder is z-up and uses SI units throughout.
//!
//! This file only declares the parts and re-exports what other modules use: [`Scene`] itself is in
//! `format.rs`, reading it in `load.rs`, making its particles in `spawn.rs`, its colliders as a
//! [`crate::collider::set::ColliderSet`] in `collider_set.rs`; each part names its siblings directly.

mod assets;
mod collider_set;
mod config;
mod emitter;
mod error;
mod format;
mod integrator_rules;
mod limit;
mod load;
mod material_section;
mod model;
mod overrides;
mod pour;
pub mod ranges;
mod shape;
mod spawn;
mod validate;
mod variation;
pub mod view;

/// The collider types of scene files, defined with the colliders ([`crate::collider::config`]).
pub use crate::collider::config::{ClipPlayback, ColliderConfig, ColliderShape, Key, Keyframes, Transform};
pub use assets::SceneAssets;
pub use config::{Domain, GridConfig, TimeConfig, TimeStep};
pub use emitter::{Emitter, JITTER, Sampling};
pub use error::SceneError;
pub use format::{BUILTIN_DEFAULT_JSON, DEFAULT_MAX_SPEED, MAX_PARTICLES, SCENE_VERSION, Scene};
pub use model::{is_model, scene_for_model};
pub use pour::{Pour, PourSchedule};
pub use spawn::{EmitterSamples, FillProgress, log_progress};
pub use variation::Packing;
