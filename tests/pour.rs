//! Emitters that keep emitting (an emitter's `pour` section, format v4): the particle count grows
//! batch by batch in a bake on lavapipe as the schedule says, the batches meet as a stream without
//! overlapping, a bake resumed from a checkpoint pours on byte for byte, and bad `pour` sections
//! are refused naming the field and its range.
//!
//! Mutation checks (each made by hand, the test seen failing, the code restored): handing the
//! batches over without moving them since their birth (`born_between` with τ = 0) lays the two
//! batches of frame 2 on each other (closest particles 0 m apart); checkpoints that keep the stale
//! stress of a state that just grew (no `refresh_stale_stress` in `SolverSnapshot::capture`) make
//! the resumed bake's frame 7 differ.

use std::path::Path;

use powder::export::ply::read_ply;
use powder::scene::{Scene, SceneError};
use serde_json::json;

mod common;

mod scene_support;
use scene_support::{assert_invalid, modified};

/// A spout 0.1 × 0.1 m across and 0.05 m long pouring reference snow down at 3 m/s from 0.02 s to
/// 0.27 s: its own flow gives a batch every 1/60 s, fifteen in all, two in most frames of 1/30 s,
/// in a 0.5 m box at resolution 12 (particle spacing 0.0208 m: 5 × 5 × 2 particles a batch) over
/// a slab of snow on the floor.
const SCENE: &str = r#"{
  "version": 4,
  "domain": { "size": [0.5, 0.5, 0.5] },
  "grid": { "resolution": 12 },
  "time": { "fps": 30 },
  "emitters": [
    { "shape": "box", "min": [0.1, 0.1, 0.0], "max": [0.4, 0.4, 0.06] },
    { "shape": "box", "min": [0.2, 0.2, 0.35], "max": [0.3, 0.3, 0.4], "velocity": [0, 0, -3],
      "pour": { "start": 0.02, "end": 0.27 } }
  ]
}"#;

/// When the spout's batches are born, seconds.
fn births() -> Vec<f64> {
    (0..15).map(|k| 0.02 + k as f64 / 60.0).collect()
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn frame(dir: &Path, n: u32) -> std::path::PathBuf {
    dir.join(format!("frame_{n:05}.ply"))
}

#[test]
fn a_bake_pours_batch_by_batch_without_overlap() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene_file = dir.path().join("pour.json");
    std::fs::write(&scene_file, SCENE).expect("scene written");
    let out = dir.path().join("out");
    common::succeeded(common::powder_cli(&["run", s(&scene_file), "--frames", "12", "--out", s(&out)]));
    let scene = Scene::from_json(SCENE, "pour.json").expect("scene");
    let schedule = scene.pour_schedule("pour.json").expect("schedule");
    assert_eq!(schedule.total(), 15 * 50, "fifteen batches of 5 × 5 × 2");
    let counts: Vec<usize> = (0..=12).map(|n| read_ply(&frame(&out, n)).expect("frame").len()).collect();
    let floor = counts[0];
    eprintln!("particles per frame: {counts:?}");
    // Frame n ends at n/30 s and holds the batches born by then.
    for (n, &count) in counts.iter().enumerate() {
        let born = births().iter().filter(|&&t| t <= n as f64 / 30.0 + 1e-9).count();
        assert_eq!(count, floor + 50 * born, "frame {n}: {counts:?}");
    }
    // Frame 2 hands over two batches at once (born at 0.0367 and 0.0533 s, the frame ending at
    // 0.0667 s), each moved on as thrown since its birth: no two particles of the stream are closer
    // than the lattice allows (spacing s = 0.0208 m, each point jittered by up to s/4 per axis: at
    // least s/2 apart). Handed over where they were born, the two would lie on each other.
    let stream: Vec<[f32; 3]> =
        read_ply(&frame(&out, 2)).expect("frame").iter().filter(|p| p.material == 1).map(|p| p.position).collect();
    assert_eq!(stream.len(), 150);
    let spacing = scene.particle_spacing();
    let mut closest = f64::MAX;
    for (i, a) in stream.iter().enumerate() {
        for b in &stream[i + 1..] {
            let d = (glam::Vec3::from(*a) - glam::Vec3::from(*b)).length() as f64;
            closest = closest.min(d);
        }
    }
    eprintln!("closest particles of the stream at frame 2: {closest:.4} m (spacing {spacing:.4} m)");
    assert!(closest > 0.45 * spacing, "batches overlap: {closest} m apart at spacing {spacing}");
}

#[test]
fn a_resumed_pouring_bake_writes_the_same_bytes() {
    // Killed after frame 7 (its last checkpoint frame 6, at 0.2 s, with batches still to be born)
    // and resumed to frame 12, against a bake that never stopped.
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("pour.json");
    std::fs::write(&scene, SCENE).expect("scene written");
    let (killed, whole) = (dir.path().join("killed"), dir.path().join("whole"));
    for (frames, out) in [("7", &killed), ("12", &whole)] {
        common::succeeded(common::powder_cli(&[
            "run",
            s(&scene),
            "--frames",
            frames,
            "--checkpoint-every",
            "3",
            "--out",
            s(out),
        ]));
    }
    common::succeeded(common::powder_cli(&["run", "--resume", s(&killed), "--frames", "12"]));
    for n in 0..=12 {
        let read = |dir: &Path| std::fs::read(frame(dir, n)).expect("frame");
        assert!(read(&killed) == read(&whole), "frame {n} differs between the resumed and the whole bake");
    }
}

#[test]
fn bad_pour_sections_are_refused_by_field_and_range() {
    // The base scene's sphere thrown at 3 m/s, radius 0.2: its own flow is (4/3 π 0.2³) · 3 / 0.4.
    let pour = |section: serde_json::Value| {
        modified(|d| {
            d["version"] = json!(4);
            d["emitters"][0]["pour"] = section;
        })
    };
    assert!(pour(json!({ "end": 1.0 })).is_ok());
    assert_invalid(pour(json!({ "start": 1.0, "end": 1.0 })), "emitters[0].pour.end", "(1, 1e6]");
    assert_invalid(pour(json!({ "start": -1.0, "end": 1.0 })), "emitters[0].pour.start", "[0, 1e6]");
    let own = 4.0 / 3.0 * std::f64::consts::PI * 0.2f64.powi(3) * 3.0 / 0.4;
    assert!(pour(json!({ "end": 1.0, "rate": own * 0.99 })).is_ok());
    let too_fast = pour(json!({ "end": 1.0, "rate": own * 1.01 }));
    let message = too_fast.as_ref().unwrap_err().to_string();
    assert!(message.contains("emitters[0].pour.rate") && message.contains("(0, 0.251327"), "{message}");
    let at_rest = modified(|d| {
        d["version"] = json!(4);
        d["emitters"][1]["pour"] = json!({ "end": 1.0 });
    });
    assert_invalid(at_rest, "|emitters[1].velocity| (pouring)", "> 0");
    // A version-3 file may not pour.
    let old = modified(|d| {
        d["version"] = json!(3);
        d["emitters"][0]["pour"] = json!({ "end": 1.0 });
    });
    assert!(matches!(&old, Err(SceneError::Invalid { field, .. }) if field == "version"), "{old:?}");
}

#[test]
fn particles_added_to_a_running_solver_move_under_both_integrators() {
    // A block at rest in the air, stepped a frame; then a second block added (as a pouring
    // emitter's batch or a dropped ball is) and both stepped a frame more. Free fall: the added
    // block falls in its frame as the first did in its first, and the first falls as it does in a
    // solver to which nothing was added, in either integrator.
    use powder::sim::Solver;
    use powder::sim::integrator::Integrator;
    use powder::sim::params::GpuParticle;
    use powder::sim::pbmpm::PbmpmSettings;
    use powder::sim::solver::SolverOptions;
    let gpu = common::gpu();
    let h = 1.0 / 16.0;
    let params = common::params(16, h, 1e-3);
    let block = |x: f32| {
        common::block(glam::Vec3::new(x, 0.4, 0.6), glam::Vec3::new(x + 0.2, 0.6, 0.8), h as f32, 400.0, |_| {
            glam::Vec3::ZERO
        })
    };
    let mean_z = |ps: &[GpuParticle]| ps.iter().map(|p| p.position[2] as f64).sum::<f64>() / ps.len() as f64;
    for integrator in [Integrator::Explicit, Integrator::Pbmpm(PbmpmSettings::default())] {
        let options = SolverOptions { integrator, ..Default::default() };
        let solver = || Solver::with_options(&gpu, params, &block(0.2), options).expect("solver");
        let frame = |solver: &Solver| match integrator {
            Integrator::Explicit => solver.step(&gpu, 50),
            Integrator::Pbmpm(_) => solver.step_pbmpm(&gpu, 12, 50e-3 / 12.0),
            Integrator::Flip(_) => unreachable!("only the two snow integrators are listed"),
        };
        let (mut grown, alone) = (solver(), solver());
        let start = mean_z(&block(0.2));
        frame(&grown);
        frame(&alone);
        let one_frame = start - mean_z(&grown.read_particles(&gpu).expect("particles"));
        let first = block(0.2).len();
        grown.append_particles(&gpu, &block(0.6)).expect("append");
        assert_eq!(grown.particle_count() as usize, 2 * first);
        frame(&grown);
        frame(&alone);
        let out = grown.read_particles(&gpu).expect("particles");
        let (old, new) = (start - mean_z(&out[..first]), start - mean_z(&out[first..]));
        let control = start - mean_z(&alone.read_particles(&gpu).expect("particles"));
        eprintln!(
            "{integrator:?}: one frame from rest {one_frame:.5} m; after the second, the first block {old:.5} m \
             (alone {control:.5}), the added one {new:.5} m"
        );
        // f32 positions near 0.7 m round at 6e-8 m; 1e-5 m is far below the 1 cm falls.
        assert!(one_frame > 0.01, "{integrator:?}: the block fell only {one_frame} m");
        assert!((new - one_frame).abs() < 1e-5, "{integrator:?}: the added block fell {new}, not {one_frame}");
        assert!((old - control).abs() < 1e-5, "{integrator:?}: the first block fell {old}, alone {control}");
    }
}
