//! Undo and redo against the real driver (a small scene on the GPU): every kind of panel edit,
//! undone one by one, puts back exactly the value before it; redo puts the edits back.

use std::time::{Duration, Instant};

use glam::DVec3;

use powder::gpu::Gpu;
use powder::render::{ColorField, RenderMode, RenderSettings};
use powder::scene::Scene;
use powder::sim::integrator::Integrator;
use powder::sim::material::SnowMaterial;
use powder::sim::pbmpm::PbmpmSettings;
use powder::sim::sort::bins::SolverPath;

use super::{History, MERGE_WINDOW};
use crate::app::events::{AppEvent, SceneSource, StepMode, ToolSettings};
use crate::app::run::driver::Driver;
use crate::app::run::messages::Messages;

/// A block of snow on an 8³ grid: the smallest scene the solver takes, so each edit is quick.
const SCENE: &str = r#"{ "version": 2, "domain": { "min": [0, 0, 0], "size": [1, 1, 1] },
  "grid": { "resolution": 8 }, "emitters": [ { "shape": "box", "min": [0.3, 0.3, 0.3], "max": [0.6, 0.6, 0.6] } ] }"#;

/// Applies `event` at `now` through the history the way the app loop does
/// ([`History::apply`], inverses from [`Driver::edited`]): the view's settings here, the rest in
/// the driver, an error refusing the edit.
fn send(
    history: &mut History,
    driver: &mut Driver,
    render: &mut RenderSettings,
    gpu: &Gpu,
    event: AppEvent,
    now: Instant,
) {
    let before = driver.edited(render);
    let _ = history.apply(event, now, &before, |event| {
        let mut messages = Messages::default();
        match event {
            AppEvent::SetRender(settings) => *render = settings,
            other => {
                driver.apply(gpu, other, &mut messages);
            }
        }
        ((), !messages.all_errors().is_empty())
    });
}

#[test]
fn every_edit_undoes_to_the_exact_previous_value_and_redo_restores_it() {
    let gpu = Gpu::new_headless().expect("a Vulkan adapter");
    assert_eq!(gpu.info.backend, wgpu::Backend::Vulkan, "tests run on Vulkan (lavapipe without a GPU)");
    let scene = Scene::from_json(SCENE, "undo test").expect("scene");
    let mut driver =
        Driver::new(&gpu, scene, "undo".into(), SceneSource::Builtin("undo"), StepMode::RealTime).expect("driver");
    let mut render = RenderSettings::default();
    let mut history = History::default();
    let soft = SnowMaterial { youngs_modulus: 4.8e4, hardening: 7.25, ..SnowMaterial::default() };
    let pbmpm = PbmpmSettings { iterations: 7, ..PbmpmSettings::default() };
    let water = powder::sim::presets::preset_by_id("water").expect("water").material;
    let edits = [
        AppEvent::SetMaterial(soft),
        AppEvent::SetMaterial(SnowMaterial { critical_stretch: 3.3e-3, ..soft }),
        AppEvent::ResetMaterial,
        AppEvent::SetEmitterMaterial(0, Some(water)),
        AppEvent::SetEmitterMaterial(0, Some(SnowMaterial { bulk_modulus: 3.0e5, ..water })),
        AppEvent::SetGravity(DVec3::new(0.0, 0.0, -3.71)),
        AppEvent::SetStepMode(StepMode::FixedSubsteps),
        AppEvent::SetSubsteps(17),
        AppEvent::SetSolverPath(SolverPath::ALL[SolverPath::ALL.len() - 1]),
        AppEvent::SetIntegrator(Integrator::Pbmpm(pbmpm)),
        AppEvent::SetIntegrator(Integrator::Pbmpm(PbmpmSettings { yield_time: 2.5e-3, ..pbmpm })),
        AppEvent::SetAutoDt(false),
        AppEvent::SetDt(3.5e-4),
        AppEvent::SetRealTimeBudget(42.0),
        AppEvent::SetGridResolution(10),
        AppEvent::SetRender(RenderSettings {
            mode: RenderMode::Both,
            color_field: ColorField::Speed,
            exposure: 2.5,
            ..render
        }),
        AppEvent::SetTool(ToolSettings { radius: 0.25, rate: 900.0, repel_speed: 7.0, repel: true, drop: None }),
        // Each kind once more, so that undoing these must restore an edited value, not a default.
        AppEvent::SetMaterial(SnowMaterial { poisson_ratio: 0.31, ..soft }),
        AppEvent::SetEmitterMaterial(0, None),
        AppEvent::SetGravity(DVec3::new(0.0, 0.0, -1.62)),
        AppEvent::SetStepMode(StepMode::SceneFrames),
        AppEvent::SetSubsteps(4),
        AppEvent::SetSolverPath(SolverPath::ALL[0]),
        AppEvent::SetIntegrator(Integrator::Explicit),
        AppEvent::SetAutoDt(true),
        AppEvent::SetDt(1.25e-4),
        AppEvent::SetRealTimeBudget(7.0),
        AppEvent::SetGridResolution(12),
        AppEvent::SetRender(RenderSettings { particle_scale: 2.25, color_field: ColorField::Material, ..render }),
        AppEvent::SetTool(ToolSettings {
            radius: 0.05,
            rate: 120.0,
            repel_speed: 1.5,
            repel: false,
            drop: Some("honey"),
        }),
    ];
    // Edits a second apart: each is its own undo step (none within MERGE_WINDOW of the last).
    let start = Instant::now();
    let mut clock = 0;
    let mut tick = || {
        clock += 1;
        start + Duration::from_secs(clock)
    };
    let mut seen = vec![driver.edited(&render)];
    for edit in edits {
        send(&mut history, &mut driver, &mut render, &gpu, edit.clone(), tick());
        let now = driver.edited(&render);
        assert_ne!(&now, seen.last().expect("one"), "{edit:?} changed nothing, so undoing it tests nothing");
        // The solver steps the emitter's particles (material id 0) with what the panel set.
        let own = now.emitter_materials[0].unwrap_or(now.material);
        assert_eq!(driver.solver().params().material_of(0), &own, "after {edit:?}");
        seen.push(now);
    }
    for expected in seen.iter().rev().skip(1) {
        send(&mut history, &mut driver, &mut render, &gpu, AppEvent::Undo, tick());
        assert_eq!(&driver.edited(&render), expected);
    }
    assert_eq!(history.next_undo(), None);
    for expected in seen.iter().skip(1) {
        send(&mut history, &mut driver, &mut render, &gpu, AppEvent::Redo, tick());
        assert_eq!(&driver.edited(&render), expected);
    }
    assert_eq!(history.next_redo(), None);

    // A slider drag: one event per frame, closer than MERGE_WINDOW, is one undo step back to
    // the value before the drag; a new edit after an undo drops the redo.
    let before = driver.edited(&render);
    let t = tick();
    for (k, g) in [-5.0, -6.0, -7.0].into_iter().enumerate() {
        let at = t + MERGE_WINDOW / 4 * k as u32;
        send(&mut history, &mut driver, &mut render, &gpu, AppEvent::SetGravity(DVec3::new(0.0, 0.0, g)), at);
    }
    assert_eq!(driver.gravity().z, -7.0);
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::Undo, tick());
    assert_eq!(driver.edited(&render), before);
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::SetSubsteps(3), tick());
    assert_eq!(history.next_redo(), None);

    // A refused edit (a grid resolution past the allowed 1024) changes nothing and leaves no
    // step: the next undo still undoes the substeps, also when the refusal came within the merge
    // window of another grid edit.
    let before = driver.edited(&render);
    let t = tick();
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::SetGridResolution(8), t);
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::SetGridResolution(5000), t + MERGE_WINDOW / 4);
    assert_eq!(driver.scene().grid.resolution, 8, "the refused grid was applied");
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::Undo, tick());
    assert_eq!(driver.edited(&render), before, "undo did not go back to before the accepted grid edit");
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::Redo, tick());
    assert_eq!(driver.scene().grid.resolution, 8, "redo must apply the accepted edit, not the refused one");
    send(&mut history, &mut driver, &mut render, &gpu, AppEvent::Undo, tick());
    assert_eq!(history.next_undo(), Some("substeps per frame"), "the substeps edit was the step before");
}
