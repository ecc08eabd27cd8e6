//! Scene files: what to simulate. A scene is a JSON document (format v2, described field by field
//! in `docs/scene-format.md`) naming the domain, grid, time stepping, gravity, walls, snow material
//! and the emitters that fill shapes with snow at time zero.
//!
//! [`Scene::load`] reads, parses and validates a file; [`Scene::set_value`] applies a command-line
//! override; [`Scene::solver_params`], [`Scene::grid_spec`], [`Scene::sample_emitters`] and
//! [`Scene::make_particles`] turn a scene into what the solver needs. powder is z-up and uses SI units throughout.

mod assets;
pub mod collider;
mod config;
mod emitter;
mod error;
mod limit;
mod model;
mod overrides;
pub mod ranges;
mod shape;
mod validate;
mod variation;
pub mod view;

use std::path::Path;

use glam::{DVec3, UVec3};
use serde::{Deserialize, Serialize};

pub use assets::SceneAssets;
pub use collider::{ClipPlayback, ColliderConfig, ColliderShape, Key, Keyframes, Transform};
pub use config::{Domain, GridConfig, TimeConfig, TimeStep};
pub use emitter::{Emitter, JITTER, Sampling};
pub use error::SceneError;
pub use model::{is_model, scene_for_model};
pub use variation::Packing;

use crate::mesh::TriangleMesh;
use crate::sim::fixed_point::FixedPoint;
use crate::sim::integrator::Integrator;
use crate::sim::material::SnowMaterial;
use crate::sim::params::{Boundary, GpuParticle, GridSpec, SolverParams};

/// The scene-file format version this build writes. It reads this one and version 1 (which has no
/// colliders and no mesh emitters).
pub const SCENE_VERSION: u32 = 2;
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
    /// Snow parameters. Optional, and any subset of its fields may be given.
    #[serde(default)]
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
    /// Reads, parses and validates the scene file at `path`, and loads the files it refers to
    /// (relative to the scene file's folder).
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let text = crate::fsio::read_text_limited(path, crate::fsio::SCENE_FILE_LIMIT)
            .map_err(|source| SceneError::Io { path: path.to_path_buf(), source })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_json_at(&text, &path.display().to_string(), base)
    }

    /// Parses and validates scene JSON whose relative paths start from the working directory.
    /// `source` names the text in messages (usually a file name). A UTF-8 byte order mark at the
    /// start is ignored, as when reading a file.
    pub fn from_json(text: &str, source: &str) -> Result<Scene, SceneError> {
        Self::from_json_at(text, source, Path::new("."))
    }

    /// Parses scene JSON, loads the files it refers to (relative to `base_dir`) and validates it.
    pub fn from_json_at(text: &str, source: &str, base_dir: &Path) -> Result<Scene, SceneError> {
        // Editors on Windows start files with a byte order mark; it is not part of the JSON.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let parse = |e: serde_json::Error| SceneError::parse(source, &e);
        let mut scene: Scene = serde_json::from_str(text).map_err(parse)?;
        let doc: serde_json::Value = serde_json::from_str(text).map_err(parse)?;
        scene.check_shape(&doc, source)?;
        scene.assets = SceneAssets::load(&scene, base_dir, None, source)?;
        scene.validate(source)?;
        Ok(scene)
    }

    /// Mesh emitter `index`'s mesh in the world (its file's rest pose, placed by its transform),
    /// or `None` for other emitters or a file that is not loaded.
    pub fn emitter_mesh(&self, index: usize) -> Option<TriangleMesh> {
        let Some(Emitter::Mesh { path, transform, .. }) = self.emitters.get(index) else {
            return None;
        };
        let model = self.assets.model(path)?;
        Some(model.rest_mesh().transformed(&transform.matrix().as_mat4()))
    }

    /// The built-in default scene: `scenes/snowball_wall.json`, compiled into the binary.
    pub fn builtin_default() -> Scene {
        Self::from_json(BUILTIN_DEFAULT_JSON, "<built-in default scene>")
            .expect("the built-in default scene is valid (tested in tests/scene_files.rs)")
    }

    /// Checks every field against its allowed range, that emitters lie inside the domain, and that
    /// each emitter makes at least one particle. `source` names the scene in messages.
    pub fn validate(&self, source: &str) -> Result<(), SceneError> {
        validate::validate(self, source)
    }

    /// Refuses a `doc` (the JSON this scene was parsed from) that writes a section as a list of
    /// values or a field as `null` ([`shape`]).
    fn check_shape(&self, doc: &serde_json::Value, source: &str) -> Result<(), SceneError> {
        let canonical = serde_json::to_value(self).map_err(|e| SceneError::Shape {
            source_name: source.to_string(),
            field: "the scene".to_string(),
            message: e.to_string(),
        })?;
        shape::check(doc, &canonical, source)
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
        let dt = match self.time.dt {
            TimeStep::Fixed(dt) => dt,
            TimeStep::Auto => {
                let speed = self.material.wave_speed(1.0) + self.max_emitter_speed();
                self.time.cfl * grid.cell_size / speed
            }
        };
        SolverParams {
            grid,
            material: self.material,
            gravity: self.gravity,
            dt,
            cfl: self.time.cfl,
            boundary: self.boundary,
            max_speed,
            fixed_point: FixedPoint::for_scene(self.material.density, grid.cell_size, max_speed),
        }
    }

    /// Which lattice points each emitter keeps, and so how many particles the scene makes, without
    /// making them: what a capacity check needs before anything is allocated for the particles
    /// (the bits take an eighth of a byte per lattice point). `progress` hears how far the mesh
    /// emitters, the slow ones, have got. Refuses a scene whose lattices exceed [`MAX_PARTICLES`]
    /// (validation does too, before anything is sampled).
    pub fn sample_emitters(
        &self,
        source: &str,
        progress: &mut dyn FnMut(FillProgress),
    ) -> Result<EmitterSamples, SceneError> {
        let s = self.particle_spacing();
        let meshes: Vec<_> = (0..self.emitters.len()).map(|i| self.emitter_mesh(i)).collect();
        let bound =
            self.emitters.iter().zip(&meshes).fold(0u64, |t, (e, m)| t.saturating_add(e.max_points(s, m.as_ref())));
        if bound > MAX_PARTICLES {
            return Err(SceneError::TooManyParticles {
                source_name: source.to_string(),
                count: bound,
                limit: MAX_PARTICLES,
            });
        }
        let samplings = self
            .emitters
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mut report = |done, total| progress(FillProgress { emitter: i, done, total });
                e.sample(s, emitter::emitter_seed(self.seed, i), meshes[i].as_ref(), false, &mut report)
            })
            .collect();
        Ok(EmitterSamples { samplings, meshes })
    }

    /// The particles `samples` (from [`Scene::sample_emitters`] on this scene) counted, in emitter
    /// order. Each stands for a cube of side [`Scene::particle_spacing`]: volume `s³`, mass
    /// `density · s³`, the emitter's velocity, and material id = emitter index. Deterministic for a
    /// given scene (seeded by `seed` and the emitter's index). Overlapping emitters both emit, so
    /// their overlap holds denser snow. Asks the allocator for exactly the counted particles, and
    /// refuses if the host cannot give that much.
    pub fn make_particles(&self, samples: &EmitterSamples, source: &str) -> Result<Vec<GpuParticle>, SceneError> {
        let s = self.particle_spacing();
        let volume = s.powi(3);
        let mass = (self.material.density * volume) as f32;
        let count = samples.count();
        let mut out = Vec::new();
        out.try_reserve_exact(count as usize).map_err(|_| SceneError::HostMemory {
            source_name: source.to_string(),
            count,
            bytes: count.saturating_mul(size_of::<GpuParticle>() as u64),
        })?;
        for (i, (e, sampling)) in self.emitters.iter().zip(&samples.samplings).enumerate() {
            let v = e.velocity().as_vec3();
            let seed = emitter::emitter_seed(self.seed, i);
            e.emit(s, seed, samples.meshes[i].as_ref(), sampling, |p| {
                let mut particle = GpuParticle::new(p.as_vec3(), v, mass, volume as f32, i as u32);
                particle.plastic_jacobian = self.packing.plastic_jacobian(p, self.seed) as f32;
                particle.strength = self.packing.strength_factor(p, self.seed, s) as f32;
                out.push(particle);
            });
        }
        Ok(out)
    }

    /// [`Scene::sample_emitters`] then [`Scene::make_particles`], progress logged. Errors (lattices
    /// past [`MAX_PARTICLES`], host memory refused) name the scene as `"scene"`; callers that know
    /// the file call the two with its name.
    pub fn spawn_particles(&self) -> Result<Vec<GpuParticle>, SceneError> {
        let samples = self.sample_emitters("scene", &mut log_progress())?;
        self.make_particles(&samples, "scene")
    }

    /// Simulated seconds per output frame: `1 / time.fps`.
    pub fn frame_duration(&self) -> f64 {
        1.0 / self.time.fps
    }
}

/// How far [`Scene::sample_emitters`] has got with emitter `emitter`: `done` of its `total`
/// lattice points tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FillProgress {
    /// Index of the emitter in `emitters`.
    pub emitter: usize,
    /// Lattice points tested so far.
    pub done: u64,
    /// Lattice points in all.
    pub total: u64,
}

/// A progress callback for [`Scene::sample_emitters`] that logs (at info level) every tenth of an
/// emitter of more than a million lattice points, for callers without a progress bar.
pub fn log_progress() -> impl FnMut(FillProgress) {
    let mut logged = (usize::MAX, 0);
    move |p: FillProgress| {
        let tenth = (p.done * 10).checked_div(p.total).unwrap_or(10);
        if p.total > 1_000_000 && (p.emitter, tenth) != logged {
            logged = (p.emitter, tenth);
            log::info!("emitters[{}]: {}% of {} lattice points tested", p.emitter, tenth * 10, p.total);
        }
    }
}

/// The emitters of a scene sampled ([`Scene::sample_emitters`]): which lattice points each keeps.
#[derive(Clone, Debug)]
pub struct EmitterSamples {
    samplings: Vec<Sampling>,
    meshes: Vec<Option<TriangleMesh>>,
}

impl EmitterSamples {
    /// Particles the scene makes.
    pub fn count(&self) -> u64 {
        self.samplings.iter().map(Sampling::count).sum()
    }

    /// Particles emitter `index` makes.
    pub fn emitter_count(&self, index: usize) -> u64 {
        self.samplings.get(index).map_or(0, Sampling::count)
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
        scene.emitters[0] = Emitter::Box { min: DVec3::ZERO, max: DVec3::splat(0.2), velocity: DVec3::ZERO };
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
