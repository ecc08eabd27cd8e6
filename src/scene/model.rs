//! A scene made in code around a bare glTF model (a `.glb` or `.gltf` given to `powder` or
//! `powder run`, opened or dropped on the window instead of a scene file), so any model can be
//! tried against snow without writing JSON.
//!
//! What it makes, with `L` = the longest edge of the model's bounding box (at least 0.1 m):
//! - the model as one static collider at its own position (rest pose, no animation), boundary
//!   `separate`, friction 0.3;
//! - a domain around the model: `0.2 L` of margin on each side in x and y, the floor at the
//!   model's lowest point (a model standing on z = 0 stands on the floor), `0.5 L` of room above it;
//! - a box of snow above the model, at rest: centred on the model in x and y, 40% of its width
//!   and depth (at least `0.1 L`), from `0.1 L` to `0.25 L` above its highest point;
//! - grid resolution 48 along the longest domain edge, and the defaults of everything else
//!   (reference snow, auto dt, 30 fps, gravity −9.81 m/s² along z).

use std::path::Path;

use glam::DVec3;

use super::assets::SceneAssets;
use super::config::{Domain, GridConfig, TimeConfig};
use super::emitter::Emitter;
use super::error::SceneError;
use super::format::{SCENE_VERSION, Scene};
use crate::collider::config::{ColliderConfig, ColliderShape, Transform};
use crate::sim::material::SnowMaterial;
use crate::sim::params::{Boundary, BoundaryKind};

/// Grid cells along the longest domain edge of a model's default scene: coarse enough for a
/// software driver to run it interactively; the Simulation panel can raise it.
const RESOLUTION: u32 = 48;

/// Whether `path` names a glTF model (by its extension, any case): [`Scene::open`] wraps such a
/// file in [`scene_for_model`]'s scene instead of reading it as JSON.
pub fn is_model(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("glb" | "gltf"))
}

impl Scene {
    /// Opens `path` as a scene: a `.glb`/`.gltf` model ([`is_model`]) wrapped in
    /// [`scene_for_model`]'s default scene, any other file read as a scene file ([`Scene::load`]).
    pub fn open(path: &Path) -> Result<Scene, SceneError> {
        if is_model(path) { scene_for_model(path) } else { Scene::load(path) }
    }
}

/// Loads the glTF file at `path` and builds the default scene around it (module docs). Errors
/// name the file (and, for the model, the field of the scene that refers to it).
pub fn scene_for_model(path: &Path) -> Result<Scene, SceneError> {
    let source = path.display().to_string();
    let base = path.parent().unwrap_or(Path::new("."));
    let file = path.file_name().map(Path::new).unwrap_or(path);
    let collider = ColliderConfig {
        name: file.display().to_string(),
        shape: ColliderShape::Gltf { path: file.to_path_buf() },
        transform: Transform::default(),
        boundary: BoundaryKind::Separate,
        friction: 0.3,
        animation: None,
        keyframes: None,
    };
    // Domain and snow are placed once the model's bounds are known; the model is read once.
    let mut scene = Scene {
        version: SCENE_VERSION,
        name: format!("snow falling on {}", file.display()),
        domain: Domain { min: DVec3::ZERO, size: DVec3::ONE },
        grid: GridConfig { resolution: RESOLUTION },
        time: TimeConfig::default(),
        gravity: DVec3::new(0.0, 0.0, -9.81),
        boundary: Boundary::default(),
        material: SnowMaterial::default(),
        particles_per_cell: 8,
        seed: 1,
        packing: Default::default(),
        max_speed: None,
        integrator: Default::default(),
        view: None,
        emitters: Vec::new(),
        colliders: vec![collider],
        assets: SceneAssets::default(),
    };
    scene.assets = SceneAssets::load(&scene.colliders, &scene.emitters, base, None, &source)?;
    let bounds = scene.assets.model(file).and_then(|m| m.rest_mesh().bounds());
    let Some((lo, hi)) = bounds else {
        return Err(SceneError::Asset {
            source_name: source,
            field: "colliders[0].shape.path".to_string(),
            message: format!("{} has no vertices", path.display()),
        });
    };
    let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
    let (domain, snow) = layout(lo, hi);
    scene.domain = domain;
    scene.emitters = vec![Emitter::Box { material: None, pour: None, min: snow.0, max: snow.1, velocity: DVec3::ZERO }];
    scene.validate(&source)?;
    Ok(scene)
}

/// The domain and the snow box (lower and upper corner) for a model whose bounding box is `lo`..`hi`.
fn layout(lo: DVec3, hi: DVec3) -> (Domain, (DVec3, DVec3)) {
    let size = hi - lo;
    let longest = size.max_element().max(0.1);
    let margin = DVec3::new(0.2 * longest, 0.2 * longest, 0.0);
    let min = lo - margin;
    let max = hi + margin + DVec3::new(0.0, 0.0, 0.5 * longest);
    let centre = 0.5 * (lo + hi);
    let half = (0.2 * size).max(DVec3::splat(0.05 * longest));
    let snow_lo = DVec3::new(centre.x - half.x, centre.y - half.y, hi.z + 0.1 * longest);
    let snow_hi = DVec3::new(centre.x + half.x, centre.y + half.y, hi.z + 0.25 * longest);
    (Domain { min, size: max - min }, (snow_lo, snow_hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ramp_model_gets_a_domain_around_it_and_snow_above_it() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/ramp.glb");
        let scene = scene_for_model(&path).expect("a scene around the ramp");
        // assets/README.md: the ramp spans x 0 … 2, y −0.5 … 0.5, z 0 … 2/√3 m; L = 2 m.
        let h = 2.0 / 3f64.sqrt();
        let close = |a: DVec3, b: DVec3| (a - b).abs().max_element() < 1e-5;
        assert!(close(scene.domain.min, DVec3::new(-0.4, -0.9, 0.0)), "{:?}", scene.domain);
        assert!(close(scene.domain.size, DVec3::new(2.8, 1.8, h + 1.0)), "{:?}", scene.domain);
        let Emitter::Box { min, max, .. } = scene.emitters[0] else { panic!("a box of snow") };
        assert!(close(min, DVec3::new(0.6, -0.2, h + 0.2)) && close(max, DVec3::new(1.4, 0.2, h + 0.5)), "{min} {max}");
        assert_eq!(scene.colliders.len(), 1);
        assert!(scene.colliders[0].animation.is_none() && scene.colliders[0].keyframes.is_none());
        assert_eq!(scene.assets.files(), vec![path.parent().expect("assets").join("ramp.glb")]);
        assert!(!scene.spawn_particles().expect("particles").is_empty());
    }

    #[test]
    fn a_file_that_is_not_gltf_is_refused_naming_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("broken.glb");
        std::fs::write(&path, b"not a model").expect("write");
        let err = scene_for_model(&path).expect_err("garbage is refused").to_string();
        assert!(err.contains("broken.glb") && err.contains("colliders[0].shape.path"), "{err}");
        let missing = scene_for_model(&dir.path().join("none.gltf")).expect_err("missing").to_string();
        assert!(missing.contains("none.gltf"), "{missing}");
    }

    #[test]
    fn models_are_told_from_scene_files_by_extension() {
        assert!(is_model(Path::new("a/B.GLB")) && is_model(Path::new("x.gltf")));
        assert!(!is_model(Path::new("x.json")) && !is_model(Path::new("glb")));
        let ramp = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/ramp.glb");
        let opened = Scene::open(&ramp).expect("a bare model opens as a scene");
        assert_eq!(opened.colliders.len(), 1);
        let json = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/ramp_wall.json");
        assert_eq!(Scene::open(&json).expect("a scene file opens"), Scene::load(&json).expect("and loads"));
    }
}
