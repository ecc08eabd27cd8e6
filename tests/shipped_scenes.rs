//! Every scene in `scenes/` loads (with the glTF assets it refers to) and simulates a few frames
//! on lavapipe without a non-finite particle.

mod common;

use std::path::Path;

use powder::runner::run_scene;
use powder::scene::Scene;

#[test]
fn every_shipped_scene_runs_two_frames_cleanly() {
    let gpu = common::gpu();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenes/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    assert!(names.len() >= 6, "expected the v1 scenes and the three collider scenes, found {names:?}");
    let mut with_colliders = 0;
    for path in names {
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        with_colliders += !scene.colliders.is_empty() as usize;
        let out = tempfile::tempdir().expect("temp dir");
        let name = path.display().to_string();
        let out_dir = powder::export::OutputDir::inspect(out.path(), false).unwrap_or_else(|e| panic!("{e}"));
        let summary = run_scene(&gpu, &scene, &name, 2, &out_dir, |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(summary.nonfinite_count, 0, "{name}: particles reset for non-finite state");
        assert_eq!(summary.overflow_count, 0, "{name}: fixed-point contributions clamped");
        assert_eq!(summary.frames_written, 3, "{name}");
        let last = out.path().join(powder::export::frame_file_name(2));
        let particles = powder::export::read_ply(&last).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The particles of time zero, and the batches the pouring emitters made by frame 2.
        let pour = scene.pour_schedule(&name).expect("pour");
        let poured = pour.made_by(2.0 * scene.frame_duration()) - pour.made_by(0.0);
        let expected = scene.spawn_particles().expect("particles").len() as u64 + poured;
        assert_eq!(particles.len() as u64, expected, "{name}: particle count changed");
        let finite = |p: &powder::export::PlyPoint| p.position.iter().chain(&p.velocity).all(|x| x.is_finite());
        assert!(particles.iter().all(finite), "{name}: a non-finite value in the exported last frame");
    }
    assert!(with_colliders >= 3, "the ramp, figure and blade scenes have colliders");
}
