//! The [`Scene`] type: a scene file's fields one to one, and what follows from them alone (the
//! grid, the particle spacing, the solver's parameters).

use glam::{DVec3, UVec3};
use serde::{Deserialize, Serialize};

use super::assets::SceneAssets;
use super::config::{Domain, GridConfig, TimeConfig, TimeStep};
use super::emitter::Emitter;
use super::variation::Packing;
use super::view;
use crate::collider::config::ColliderConfig;
use crate::mesh::TriangleMesh;
use crate::sim::fixed_point::FixedPoint;
use crate::sim::integrator::Integrator;
use crate::sim::material::SnowMaterial;
use crate::sim::params::{Boundary, GridSpec, MAX_MATERIALS, SolverParams};

/// The scene-file format version this build writes. It reads this one, version 2 (which has no
/// emitter materials) and version 1 (which also has no colliders and no mesh emitters).
pub const SCENE_VERSION: u32 = 4;
/// Most particles a scene may make: 2²⁷ ≈ 134 million, about 19 GB on the host as spawned and
/// 30 GB on the GPU. A bound on what spawning may ask of the host; whether the GPU holds them is
/// checked, with the numbers, when the solver is made ([`crate::sim::capacity::check_limits`]).
pub const MAX_PARTICLES: u64 = 1 << 27;
/// Lower bound of the default `max_speed`, m/s.
pub const DEFAULT_MAX_SPEED: f64 = 50.0;

/// The text of the built-in default scene (`scenes/snowball_wall.json`).
pub const BUILTIN_DEFAULT_JSON: &str = include_str!("../../scenes/snowball_wall.json");

/// A parsed scene file (format v2, or v1). All fields but `assets` map one to one onto the JSON
/// document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Format version: 1 or [`SCENE_VERSION`].
    pub version: u32,
    /// Free-form title. Optional, default empty.
    #[serde(default)]
    pub name: String,
    /// The simulated box.
    pub domain: Domain,
    /// Grid resolution.
    pub grid: GridConfig,
    /// Frame rate and time step. Optional.
    #[serde(default)]
    pub time: TimeConfig,
    /// Gravitational acceleration, m/s². Optional, default `[0, 0, -9.81]` (z is up).
    #[serde(default = "default_gravity")]
    pub gravity: DVec3,
    /// Wall boundary condition. Optional, default separating walls with friction 0.3.
    #[serde(default)]
    pub boundary: Boundary,
    /// Snow parameters. Optional, and any subset of its fields may be given; `"preset": ID` starts
    /// from a named material ([`crate::sim::presets`]) instead of the reference snow.
    #[serde(default, deserialize_with = "super::material_section::material_with_preset")]
    pub material: SnowMaterial,
    /// Particles per grid cell in freshly emitted snow. Optional, default 8.
    #[serde(default = "default_particles_per_cell")]
    pub particles_per_cell: u32,
    /// How unevenly the snow is packed at time zero. Optional, default even.
    #[serde(default)]
    pub packing: Packing,
    /// Seed of the particle jitter. Optional, default 1.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Speed limit in m/s. Optional: `None` means [`Scene::effective_max_speed`]'s default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_speed: Option<f64>,
    /// The shapes filled with snow at time zero, at least one.
    pub emitters: Vec<Emitter>,
    /// Solids the snow meets (format v2). Optional, default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<ColliderConfig>,
    /// What steps the snow: `{"kind": "explicit"}` (the default) or `{"kind": "pbmpm", ...}` with
    /// any of the PB-MPM settings ([`crate::sim::pbmpm::PbmpmSettings`]). Optional.
    #[serde(default)]
    pub integrator: Integrator,
    /// The app's camera and render settings ([`view::ViewConfig`]). Optional; `powder run`
    /// ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<view::ViewConfig>,
    /// The files the scene refers to, loaded (not part of the JSON).
    #[serde(skip)]
    pub assets: SceneAssets,
}

fn default_gravity() -> DVec3 {
    DVec3::new(0.0, 0.0, -9.81)
}

fn default_particles_per_cell() -> u32 {
    8
}

fn default_seed() -> u64 {
    1
}

impl Scene {
    /// Mesh emitter `index`'s mesh in the world (its file's rest pose, placed by its transform),
    /// or `None` for other emitters or a file that is not loaded.
    pub fn emitter_mesh(&self, index: usize) -> Option<TriangleMesh> {
        let Some(Emitter::Mesh { path, transform, .. }) = self.emitters.get(index) else {
            return None;
        };
        let model = self.assets.model(path)?;
        Some(model.rest_mesh().transformed(&transform.matrix().as_mat4()))
    }

    /// The scene as pretty-printed JSON (it parses back to an equal scene).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Cell edge h in metres: the longest domain edge divided by `grid.resolution`.
    pub fn cell_size(&self) -> f64 {
        self.domain.size.max_element() / self.grid.resolution.max(1) as f64
    }

    /// The grid: h as in [`Scene::cell_size`], `ceil(size / h)` cells per axis (at least one).
    pub fn grid_spec(&self) -> GridSpec {
        let h = self.cell_size();
        let cells = (self.domain.size / h - DVec3::splat(1e-9)).ceil().max(DVec3::ONE);
        GridSpec {
            domain_min: self.domain.min,
            cell_size: h,
            cells: UVec3::new(cells.x as u32, cells.y as u32, cells.z as u32),
        }
    }

    /// Distance between emitted particles, metres: `h / cbrt(particles_per_cell)`.
    pub fn particle_spacing(&self) -> f64 {
        self.cell_size() / (self.particles_per_cell.max(1) as f64).cbrt()
    }

    /// Speed of the fastest emitter, m/s.
    pub fn max_emitter_speed(&self) -> f64 {
        self.emitters.iter().map(|e| e.velocity().length()).fold(0.0, f64::max)
    }

    /// `max_speed` if given, otherwise `max(50, 2 × the fastest emitter speed)` m/s.
    pub fn effective_max_speed(&self) -> f64 {
        self.max_speed.unwrap_or_else(|| DEFAULT_MAX_SPEED.max(2.0 * self.max_emitter_speed()))
    }

    /// Everything the solver needs besides the particles. With `time.dt = "auto"` the step is a
    /// first guess, `cfl · h / (c + fastest emitter)` with `c` the P-wave speed of unhardened snow;
    /// `powder run` recomputes it from the particles at the start of every frame.
    pub fn solver_params(&self) -> SolverParams {
        let grid = self.grid_spec();
        let max_speed = self.effective_max_speed();
        // Emitters past the table's end share its last entry, which validation makes sure they
        // agree on: the first 16 emitters fill the table.
        let mut emitter_materials = [None; MAX_MATERIALS];
        for (slot, e) in emitter_materials.iter_mut().zip(&self.emitters) {
            *slot = e.material().copied();
        }
        // The step and the fixed-point scales depend on every material: set once the table is in.
        let mut params = SolverParams {
            grid,
            material: self.material,
            emitter_materials,
            gravity: self.gravity,
            dt: 0.0,
            cfl: self.time.cfl,
            boundary: self.boundary,
            max_speed,
            fixed_point: FixedPoint { mass_scale: 0.0, momentum_scale: 0.0 },
        };
        params.fixed_point = FixedPoint::for_scene(params.densest(), grid.cell_size, max_speed);
        params.dt = match self.time.dt {
            TimeStep::Fixed(dt) => dt,
            TimeStep::Auto => {
                let speed = params.wave_speed_bound(1.0) + self.max_emitter_speed();
                self.time.cfl * grid.cell_size / speed
            }
        };
        params
    }

    /// Simulated seconds per output frame: `1 / time.fps`.
    pub fn frame_duration(&self) -> f64 {
        1.0 / self.time.fps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_sets_cell_size_and_cells() {
        let mut scene = Scene::builtin_default();
        scene.domain.size = DVec3::new(2.0, 1.0, 0.7);
        scene.grid.resolution = 64;
        let g = scene.grid_spec();
        assert_eq!(g.cell_size, 2.0 / 64.0);
        // 0.7 / (1/32) = 22.4 → 23 cells; exact multiples are not rounded up.
        assert_eq!(g.cells, UVec3::new(64, 32, 23));
    }

    #[test]
    fn default_max_speed_follows_emitters() {
        let mut scene = Scene::builtin_default();
        scene.max_speed = None;
        scene.emitters.truncate(1);
        let speed = |s: &Scene| s.effective_max_speed();
        if let Emitter::Sphere { velocity, .. } = &mut scene.emitters[0] {
            *velocity = DVec3::new(40.0, 0.0, 0.0);
        }
        assert_eq!(speed(&scene), 80.0);
        scene.emitters[0] = Emitter::Box {
            material: None,
            pour: None,
            min: DVec3::ZERO,
            max: DVec3::splat(0.2),
            velocity: DVec3::ZERO,
        };
        assert_eq!(speed(&scene), 50.0);
    }

    #[test]
    fn auto_dt_is_a_cfl_guess() {
        let scene = Scene::builtin_default();
        let p = scene.solver_params();
        let c = scene.material.wave_speed(1.0);
        let expected = scene.time.cfl * p.grid.cell_size / (c + scene.max_emitter_speed());
        assert!((p.dt - expected).abs() <= 1e-15 * expected);
        assert!(p.dt > 1e-5 && p.dt < 1e-3, "dt = {}", p.dt);
    }
}
