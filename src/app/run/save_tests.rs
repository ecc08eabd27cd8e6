//! A scene saved after panel edits loads back to the same parameters, and a short GPU run from
//! the saved file matches, bit for bit, a run of the edited scene the app holds in memory.

use glam::{DVec3, Vec3};

use powder::gpu::Gpu;
use powder::render::{Camera, ColorField, RenderMode, RenderSettings};
use powder::scene::{Scene, TimeStep};
use powder::sim::integrator::Integrator;
use powder::sim::material::SnowMaterial;
use powder::sim::pbmpm::PbmpmSettings;

use super::{scene_to_save, write};
use crate::app::events::{AppEvent, SceneSource, StepMode};
use crate::app::run::driver::Driver;
use crate::app::run::messages::Messages;

/// A block of snow falling onto the floor of a 10³ grid: small enough for lavapipe.
const SCENE: &str = r#"{ "version": 1, "domain": { "min": [0, 0, 0], "size": [1, 1, 1] },
  "grid": { "resolution": 8 }, "emitters": [ { "shape": "box", "min": [0.3, 0.3, 0.2], "max": [0.6, 0.6, 0.5],
  "velocity": [0.5, 0, -1] } ] }"#;

fn edited_driver(gpu: &Gpu) -> Driver {
    let scene = Scene::from_json(SCENE, "save test").expect("scene");
    let mut driver =
        Driver::new(gpu, scene, "save".into(), SceneSource::Builtin("save"), StepMode::RealTime).expect("driver");
    let mut messages = Messages::default();
    let edits = [
        AppEvent::SetMaterial(SnowMaterial {
            youngs_modulus: 7.7e4,
            hardening: 6.5,
            density: 310.0,
            ..Default::default()
        }),
        AppEvent::SetGravity(DVec3::new(0.0, 0.0, -4.25)),
        AppEvent::SetGridResolution(10),
        AppEvent::SetIntegrator(Integrator::Pbmpm(PbmpmSettings { iterations: 5, ..Default::default() })),
        AppEvent::SetAutoDt(false),
        AppEvent::SetDt(4.5e-4),
    ];
    for edit in edits {
        driver.apply(gpu, edit, &mut messages);
    }
    assert!(messages.all_errors().is_empty(), "{:?}", messages.all_errors());
    driver
}

#[test]
fn a_saved_scene_loads_back_to_the_edited_state_and_runs_the_same_bit_for_bit() {
    let gpu = Gpu::new_headless().expect("a Vulkan adapter");
    assert_eq!(gpu.info.backend, wgpu::Backend::Vulkan, "tests run on Vulkan (lavapipe without a GPU)");
    let driver = edited_driver(&gpu);
    let camera = Camera { target: Vec3::new(0.4, 0.5, 0.1), distance: 2.3, yaw: 0.7, pitch: 0.31, fov_y: 0.9 };
    let render = RenderSettings {
        mode: RenderMode::Volume,
        color_field: ColorField::PlasticJacobian,
        particle_scale: 1.7,
        exposure: 1.3,
        density_scale: 4.0,
        speed_scale: 12.0,
        resolution_scale: 0.75,
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("edited.json");
    let (_, _, auto_dt, fixed_dt, _) = driver.stepper().settings();
    let saved = scene_to_save(driver.scene(), (auto_dt, fixed_dt), &camera, &render, dir.path(), &path);
    write(&saved, &path).expect("saved");

    let loaded = Scene::load(&path).expect("the saved file loads");
    assert_eq!(loaded, saved, "every field loads back as written");
    assert_eq!(loaded.material, driver.scene().material);
    assert_eq!(loaded.gravity, driver.gravity());
    assert_eq!(loaded.grid.resolution, 10);
    assert_eq!(loaded.version, powder::scene::SCENE_VERSION, "a version-1 scene is saved as the current version");
    assert_eq!(loaded.integrator, driver.solver().integrator());
    assert_eq!(loaded.time.dt, TimeStep::Fixed(4.5e-4));
    let view = loaded.view.expect("a view section");
    assert_eq!(view.camera.expect("camera").camera(), camera);
    assert_eq!(view.render.expect("render").settings(), render);

    // The run: the app's edited scene in memory against the saved file, each spawned afresh and
    // stepped the same number of PB-MPM steps of the saved dt. The saved file must reproduce the
    // simulation exactly (same spawn, same parameters), so the particles must match in every bit.
    let run = |scene: &Scene| {
        let mut solver = powder::runner::build_solver(&gpu, scene, "save test").expect("solver");
        solver.set_integrator(&gpu, scene.integrator).expect("integrator");
        solver.step_pbmpm(&gpu, 4, 4.5e-4);
        solver.read_particles(&gpu).expect("particles")
    };
    let from_memory = run(driver.scene());
    let from_file = run(&loaded);
    assert!(from_memory.len() > 100, "{} particles", from_memory.len());
    let bytes = |p: &[powder::sim::params::GpuParticle]| bytemuck::cast_slice::<_, u8>(p).to_vec();
    assert_eq!(bytes(&from_memory), bytes(&from_file));
    // The comparison can fail: the unedited scene runs differently.
    let unedited = run(&Scene::from_json(SCENE, "unedited").expect("scene"));
    assert_ne!(bytes(&from_memory), bytes(&unedited));
    // The parameters the app's own solver runs with are those the saved file gives a new solver.
    let fresh = powder::runner::build_solver(&gpu, &loaded, "saved").expect("solver");
    assert_eq!(fresh.params().material, driver.solver().params().material);
    assert_eq!(fresh.params().gravity, driver.solver().params().gravity);
    assert_eq!(fresh.params().grid, driver.solver().params().grid);
}
