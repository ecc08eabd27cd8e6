//! What several commands share: opening a scene with its command-line changes, and the parsers of
//! `--size` and `--gpu`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use powder::gpu::GpuChoice;
use powder::scene::Scene;
use powder::sim::integrator::Integrator;

/// Opens the scene at `path` (the built-in default scene without one) and returns it with its
/// name for messages.
pub fn open_scene(path: Option<&PathBuf>) -> Result<(Scene, String)> {
    Ok(match path {
        Some(p) => (Scene::open(p)?, p.display().to_string()),
        None => (Scene::builtin_default(), "built-in default scene".to_string()),
    })
}

/// `scene` with its integrator switched to the one called `integrator` (its settings kept where
/// the kind stays the same), then each `--set KEY=VALUE` of `overrides` applied, in that order:
/// an override of the integrator's settings (`integrator.iterations=20`) applies to the integrator
/// asked for instead of being reset by the switch.
pub fn change_scene(mut scene: Scene, name: &str, integrator: Option<&str>, overrides: &[String]) -> Result<Scene> {
    if let Some(integrator) = integrator
        && scene.integrator.name() != integrator
    {
        scene.integrator = Integrator::from_name(integrator).expect("clap checked the name");
    }
    for item in overrides {
        let (key, value) = item
            .split_once('=')
            .with_context(|| format!("--set {item}: expected KEY=VALUE, e.g. material.youngs_modulus=5e4"))?;
        scene.set_value(key.trim(), value.trim(), &format!("{name} (--set {item})"))?;
    }
    Ok(scene)
}

/// [`open_scene`] then [`change_scene`].
pub fn load_scene(path: Option<&PathBuf>, integrator: Option<&str>, overrides: &[String]) -> Result<(Scene, String)> {
    let (scene, name) = open_scene(path)?;
    Ok((change_scene(scene, &name, integrator, overrides)?, name))
}

/// `--size WIDTHxHEIGHT`.
pub fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let parsed = text.split_once('x').and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if (1..=16384).contains(&w) && (1..=16384).contains(&h) => Ok((w, h)),
        _ => Err(format!("expected WIDTHxHEIGHT with each in [1, 16384], e.g. 1280x800, not {text:?}")),
    }
}

/// `--gpu INDEX|NAME`.
pub fn parse_gpu(text: &str) -> std::result::Result<GpuChoice, String> {
    if text.trim().is_empty() {
        return Err("expected an adapter index (see `powder adapters`) or part of its name".to_string());
    }
    Ok(GpuChoice::parse(text))
}

/// The help text of `--gpu`, the same for every command that takes it.
pub const GPU_HELP: &str = "The GPU adapter to run on: its index in `powder adapters`'s list, or part of its name \
     (case ignored). Default: $POWDER_GPU if set, else the best adapter (a discrete GPU first)";
