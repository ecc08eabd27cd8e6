//! The `powder` binary end to end: `run` writes readable frames; bad input gets one clear message,
//! a non-zero exit and no half-written output.

use std::path::Path;
use std::process::{Command, Output};

use powder::export::read_ply;

fn powder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_powder")).args(args).output().expect("the powder binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small scene: a 0.2 m snowball thrown at 3 m/s in a 0.5 m box at resolution 16.
const SMALL_SCENE: &str = r#"{
  "version": 1,
  "domain": { "size": [0.5, 0.5, 0.5] },
  "grid": { "resolution": 16 },
  "time": { "fps": 60 },
  "emitters": [ { "shape": "sphere", "center": [0.25, 0.25, 0.2], "radius": 0.1, "velocity": [3, 0, 0] } ]
}"#;

fn write_scene(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scene written");
    path.to_string_lossy().into_owned()
}

#[test]
fn run_writes_every_frame_as_readable_ply_inside_the_domain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write_scene(dir.path(), "small.json", SMALL_SCENE);
    let out_dir = dir.path().join("frames");
    let out = powder(&["run", &scene, "--frames", "3", "--out", out_dir.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "powder run failed: {}", stderr(&out));
    let mut names: Vec<String> = std::fs::read_dir(&out_dir)
        .expect("output dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["frame_00000.ply", "frame_00001.ply", "frame_00002.ply", "frame_00003.ply"]);
    let first = read_ply(&out_dir.join("frame_00000.ply")).expect("frame 0 reads");
    let last = read_ply(&out_dir.join("frame_00003.ply")).expect("frame 3 reads");
    assert_eq!(first.len(), last.len());
    assert!(first.len() > 1000, "{} particles", first.len());
    // The snowball moved: its mean x advanced by roughly 3 m/s · 3/60 s = 0.15 m (gravity and the
    // wall can only slow it; at least half of that must be there).
    let mean_x =
        |pts: &[powder::export::PlyPoint]| pts.iter().map(|p| p.position[0] as f64).sum::<f64>() / pts.len() as f64;
    let advance = mean_x(&last) - mean_x(&first);
    assert!((0.075..=0.16).contains(&advance), "mean x advanced {advance} m");
    for p in &last {
        assert!(p.position.iter().all(|c| c.is_finite() && (0.0..=0.5).contains(c)), "{:?}", p.position);
        assert_eq!(p.material, 0);
    }
}

#[test]
fn a_set_override_reaches_the_scene_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write_scene(dir.path(), "small.json", SMALL_SCENE);
    let out_dir = dir.path().join("frames");
    let out_arg = out_dir.to_str().expect("utf-8 path");
    let bad = powder(&["run", &scene, "--frames", "1", "--out", out_arg, "--set", "material.poisson_ratio=0.7"]);
    assert!(!bad.status.success());
    let msg = stderr(&bad);
    assert!(msg.contains("material.poisson_ratio") && msg.contains("0.5"), "{msg}");
    assert!(!out_dir.exists(), "nothing may be written for a refused scene");
    // Zero gravity and no velocity: nothing moves at all.
    let ok = powder(&[
        "run",
        &scene,
        "--frames",
        "1",
        "--out",
        out_arg,
        "--set",
        "gravity=[0,0,0]",
        "--set",
        "emitters.0.velocity=[0,0,0]",
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let a = read_ply(&out_dir.join("frame_00000.ply")).expect("frame 0");
    let b = read_ply(&out_dir.join("frame_00001.ply")).expect("frame 1");
    let drift = a
        .iter()
        .zip(&b)
        .map(|(p, q)| (0..3).map(|k| (p.position[k] - q.position[k]).abs()).fold(0.0f32, f32::max))
        .fold(0.0f32, f32::max);
    // Undisturbed snow at rest stays put to f32 rounding of positions (~3e-8 m per step, ~50 steps).
    assert!(drift < 1e-5, "particles drifted {drift} m without any force");
}

#[test]
fn bad_scene_files_get_one_clear_message_and_a_nonzero_exit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        ("syntax.json", "{ \"version\": 1, \"domain\": { \"size\": [1, 1 1] } }", vec!["syntax.json:1:", "expected"]),
        ("unknown.json", &SMALL_SCENE.replace("\"grid\"", "\"gird\""), vec!["unknown.json:", "gird"]),
        (
            "nu.json",
            &SMALL_SCENE.replace("\"time\"", "\"material\": { \"poisson_ratio\": 0.5 }, \"time\""),
            vec!["material.poisson_ratio", "[0, 0.5)"],
        ),
        ("neg.json", &SMALL_SCENE.replace("\"radius\": 0.1", "\"radius\": -0.1"), vec!["emitters[0].radius", "-0.1"]),
        (
            "empty.json",
            &SMALL_SCENE.replace(
                r#"[ { "shape": "sphere", "center": [0.25, 0.25, 0.2], "radius": 0.1, "velocity": [3, 0, 0] } ]"#,
                "[]",
            ),
            vec!["emitters"],
        ),
    ];
    for (name, text, needles) in cases {
        let scene = write_scene(dir.path(), name, text);
        let out_dir = dir.path().join(format!("out_{name}"));
        let out = powder(&["run", &scene, "--frames", "1", "--out", out_dir.to_str().expect("utf-8")]);
        assert!(!out.status.success(), "{name} was accepted");
        let msg = stderr(&out);
        for needle in needles {
            assert!(msg.contains(needle), "{name}: message lacks {needle:?}: {msg}");
        }
        assert!(!msg.contains("panicked"), "{name}: {msg}");
        assert!(!out_dir.exists(), "{name}: output written for a refused scene");
    }
    let missing = powder(&["run", "/no/such/scene.json", "--frames", "1"]);
    assert!(!missing.status.success());
    assert!(stderr(&missing).contains("/no/such/scene.json"), "{}", stderr(&missing));
}

#[test]
fn a_grid_larger_than_the_gpu_allows_is_refused_with_the_largest_that_fits() {
    let dir = tempfile::tempdir().expect("temp dir");
    // 1024³ cells need ~17 GB per grid buffer; lavapipe allows 128 MiB per storage binding and
    // real GPUs at most a few GiB. A sparse grid would still need 275 MB of block bins, one per
    // block of the domain, past lavapipe's binding.
    let text = SMALL_SCENE
        .replace("\"resolution\": 16", "\"resolution\": 1024")
        .replace("\"radius\": 0.1", "\"radius\": 0.004");
    let scene = write_scene(dir.path(), "huge.json", &text);
    let out_dir = dir.path().join("out");
    let out = powder(&["run", &scene, "--frames", "1", "--out", out_dir.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    let msg = stderr(&out);
    assert!(msg.contains("huge.json") && msg.contains("grid.resolution = 1024") && msg.contains("at most"), "{msg}");
    assert!(!out_dir.exists());
}

#[test]
fn bench_reports_every_stage_of_every_path_and_the_throughput() {
    let args = ["bench", "--particles", "4000", "--grid", "32", "--substeps", "3", "--path", "naive,sorted,fused"];
    let out = powder(&[&args[..], &["--p2g", "p2g_tiled,p2g_gather"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let stages =
        ["grid_clear", "p2g ", "grid_update ", "sort", "p2g_tiled", "p2g_gather", "grid_update_blocks", "g2p", "g2p2g"];
    let headings = ["naive path", "sorted path", "fused path", "particle-substeps/s", "GB/s on the GPU"];
    for needed in stages.iter().chain(&headings) {
        assert!(text.contains(needed), "bench output lacks {needed:?}: {text}");
    }
    // One naive case, then the sorted path once per P2G kernel, then the fused path (its P2G kernel
    // is not varied). The sorted grid update visits the touched blocks only: far fewer nodes than
    // the dense grid.
    let visited: Vec<u64> =
        text.lines().filter_map(|l| l.split(" nodes, ").nth(1)?.split(' ').next()?.parse().ok()).collect();
    assert_eq!(visited.len(), 4, "{text}");
    assert!(visited[1] * 2 < visited[0], "sorted visits {} nodes of {}", visited[1], visited[0]);
    let bad = powder(&["bench", "--particles", "4000", "--path", "fast"]);
    assert!(!bad.status.success() && stderr(&bad).contains("expected naive, sorted or fused"), "{}", stderr(&bad));
    let bad = powder(&["bench", "--particles", "4000", "--p2g", "p2g_fast"]);
    assert!(!bad.status.success() && stderr(&bad).contains("expected p2g_tiled"), "{}", stderr(&bad));
}
