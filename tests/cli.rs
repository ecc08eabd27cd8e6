//! The `powder` binary end to end: `run` writes readable frames, from a scene file or a bare glTF
//! model, durably and without mixing with an earlier run's; bad input gets one clear line, a
//! non-zero exit and no output.

use std::path::Path;
use std::process::{Command, Output};

use powder::export::read_ply;

mod common;
use common::SMALL_SCENE;

fn powder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_powder")).args(args).output().expect("the powder binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The message of a refusal, checked to be one: a non-zero exit and one line on stderr, no panic.
fn refusal(out: &Output) -> String {
    let msg = stderr(out);
    assert!(!out.status.success(), "accepted: {msg}");
    assert_eq!(msg.trim_end().lines().count(), 1, "not one line: {msg}");
    assert!(msg.starts_with("error: ") && !msg.contains("panicked"), "{msg}");
    msg
}

/// The sorted names in `dir` with each file's bytes (empty for a folder).
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| {
            let path = e.expect("entry").path();
            let bytes = if path.is_file() { std::fs::read(&path).expect("read") } else { Vec::new() };
            (path.file_name().expect("name").to_string_lossy().into_owned(), bytes)
        })
        .collect();
    entries.sort();
    entries
}

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
    let msg = refusal(&bad);
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
        let msg = refusal(&out);
        for needle in needles {
            assert!(msg.contains(needle), "{name}: message lacks {needle:?}: {msg}");
        }
        assert!(!out_dir.exists(), "{name}: output written for a refused scene");
    }
    let missing = powder(&["run", "/no/such/scene.json", "--frames", "1"]);
    assert!(refusal(&missing).contains("/no/such/scene.json"));
    // An output path that is a file is refused before anything runs, and the file is left alone.
    let scene = write_scene(dir.path(), "small.json", SMALL_SCENE);
    let file = write_scene(dir.path(), "taken", "keep me");
    let msg = refusal(&powder(&["run", &scene, "--frames", "1", "--out", &file]));
    assert!(msg.contains(&file) && msg.contains("not a directory"), "{msg}");
    assert_eq!(std::fs::read_to_string(&file).expect("still there"), "keep me");
}

#[test]
fn command_line_mistakes_get_one_line_and_exit_status_2() {
    let cases: [(&[&str], &str); 5] = [
        (&["run", "--frames", "x"], "'x' for '--frames <FRAMES>': invalid digit"),
        (&["run", "--bogus"], "unexpected argument '--bogus' found; tip: "),
        (&["bench", "--particles", "1,z"], "--particles"),
        (&["--size", "0x0"], "WIDTHxHEIGHT"),
        (&["--report", "r.json"], "arguments were not provided: --frames <FRAMES> (see --help)"),
    ];
    for (args, needle) in cases {
        let out = powder(args);
        let msg = refusal(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {msg}");
        assert!(msg.contains(needle) && msg.contains("--help"), "{args:?}: {msg}");
    }
    let help = powder(&["run", "--help"]);
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("--overwrite"));
}

#[test]
fn run_refuses_an_output_directory_holding_frames_unless_told_to_overwrite() {
    // `run --help` says what --overwrite removes, as the README does: the frames, the images and
    // the checkpoint (it used to say the frames alone).
    let help = String::from_utf8_lossy(&powder(&["run", "--help"]).stdout).into_owned();
    let overwrite =
        help.split("\n      --overwrite").nth(1).and_then(|h| h.split("\n      --").next()).expect("--overwrite");
    for removed in ["frame_NNNNN.ply", "frame_NNNNN.png", "checkpoint.powder"] {
        assert!(overwrite.contains(removed), "--overwrite's help lacks {removed}: {overwrite}");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write_scene(dir.path(), "small.json", SMALL_SCENE);
    let out_dir = dir.path().join("frames");
    let out_arg = out_dir.to_str().expect("utf-8 path");
    let first = powder(&["run", &scene, "--frames", "3", "--out", out_arg]);
    assert!(first.status.success(), "{}", stderr(&first));
    std::fs::write(out_dir.join("notes.txt"), "mine").expect("write");
    let before = listing(&out_dir);

    // A shorter run would overwrite frames 0…1 and leave 2…3 of the first: refused, nothing touched.
    let msg = refusal(&powder(&["run", &scene, "--frames", "1", "--out", out_arg]));
    assert!(msg.contains(out_arg) && msg.contains("4 frames") && msg.contains("--overwrite"), "{msg}");
    assert_eq!(listing(&out_dir), before);
    // With --overwrite a scene that is refused still removes nothing.
    let bad = ["--overwrite", "--set", "material.poisson_ratio=0.7"];
    refusal(&powder(&[&["run", &scene, "--frames", "1", "--out", out_arg][..], &bad].concat()));
    assert_eq!(listing(&out_dir), before);

    let second = powder(&["run", &scene, "--frames", "1", "--out", out_arg, "--overwrite"]);
    assert!(second.status.success(), "{}", stderr(&second));
    let names: Vec<String> = listing(&out_dir).into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["frame_00000.ply", "frame_00001.ply", "notes.txt"]);
    assert!(stderr(&second).contains("removed the 4 frames"), "{}", stderr(&second));
}

#[test]
fn frames_are_synced_to_disk_before_and_after_the_rename() {
    // What reaches the disk is only visible in the system calls; strace shows them.
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("strace is not installed: the fsync order of frame writes is not checked here");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write_scene(dir.path(), "small.json", SMALL_SCENE);
    let out_dir = dir.path().join("frames");
    let log = dir.path().join("trace");
    let calls = "trace=fsync,fdatasync,rename,renameat,renameat2";
    let out = Command::new("strace")
        .args(["-f", "--seccomp-bpf", "-y", "-e", calls, "-o"])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_powder"))
        .args(["run", &scene, "--frames", "1", "--out"])
        .arg(&out_dir)
        .output()
        .expect("strace runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let trace = std::fs::read_to_string(&log).expect("trace");
    let lines: Vec<&str> = trace.lines().collect();
    let dir_fd = format!("<{}>)", out_dir.display());
    for frame in 0..=1 {
        let name = powder::export::frame_file_name(frame);
        let temp = format!("/.powder-{name}-");
        let find = |what: &str, test: &dyn Fn(&str) -> bool| {
            lines.iter().position(|l| test(l)).unwrap_or_else(|| panic!("{name}: no {what} in\n{trace}"))
        };
        let rename =
            find("rename", &|l| l.contains("rename") && l.contains(&temp) && l.contains(&format!("/{name}\"")));
        // The temporary's name is the one tests/ply.rs relies on when it tidies up after a kill.
        assert!(lines[rename].contains(".tmp\""), "{}", lines[rename]);
        let synced = find("fsync of the data", &|l| l.contains("fsync(") && l.contains(&temp));
        assert!(synced < rename, "{name}: the data was synced after the rename\n{trace}");
        let dir_synced = lines[rename..].iter().any(|l| l.contains("fsync(") && l.contains(&dir_fd));
        assert!(dir_synced, "{name}: the directory was not synced after the rename\n{trace}");
    }
}

#[test]
fn run_opens_a_bare_gltf_model_in_a_default_scene() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ramp = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/ramp.glb");
    let out_dir = dir.path().join("frames");
    let args = ["--frames", "1", "--set", "grid.resolution=24", "--out", out_dir.to_str().expect("utf-8")];
    let out = powder(&[&["run", ramp.to_str().expect("utf-8")][..], &args].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let first = read_ply(&out_dir.join("frame_00000.ply")).expect("frame 0");
    assert!(read_ply(&out_dir.join("frame_00001.ply")).is_ok());
    assert!(first.len() > 100, "{} particles", first.len());
    // The default scene starts the snow 0.1 L = 0.2 m above the ramp's top, 2/√3 m.
    let lowest = first.iter().map(|p| p.position[2]).fold(f32::INFINITY, f32::min);
    let above_top = lowest - 2.0 / 3f32.sqrt();
    assert!((0.15..0.3).contains(&above_top), "snow starts {above_top} m above the ramp");
}

#[test]
fn headless_commands_do_not_probe_the_window_system() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = write_scene(dir.path(), "small.json", SMALL_SCENE);
    let out_dir = dir.path().join("frames");
    // As on a server or in CI: no session runtime directory, no compositor, no device choice.
    let unset = ["XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "NODEVICE_SELECT", "MESA_VK_DEVICE_SELECT"];
    let mut command = Command::new(env!("CARGO_BIN_EXE_powder"));
    for name in unset.iter().chain(&["MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE", "DRI_PRIME"]) {
        command.env_remove(name);
    }
    let out = command.args(["run", &scene, "--frames", "1", "--out"]).arg(&out_dir).output().expect("runs");
    let msg = stderr(&out);
    assert!(out.status.success(), "{msg}");
    assert!(!msg.contains("XDG_RUNTIME_DIR") && !msg.contains("error"), "{msg}");
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
    let msg = refusal(&out);
    assert!(msg.contains("huge.json") && msg.contains("lower grid.resolution to at most"), "{msg}");
    assert!(!out_dir.exists());
    // Refused only once the GPU is asked: an earlier run's frames survive even with --overwrite.
    std::fs::create_dir(&out_dir).expect("dir");
    std::fs::write(out_dir.join("frame_00000.ply"), "an earlier run").expect("write");
    let out = powder(&["run", &scene, "--frames", "1", "--overwrite", "--out", out_dir.to_str().expect("utf-8")]);
    refusal(&out);
    assert_eq!(std::fs::read_to_string(out_dir.join("frame_00000.ply")).expect("kept"), "an earlier run");
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
    // The ratio says what it is: the run's one fixed dt against each stepped state's stable dt,
    // and what a value above 1 means (it used to be a bare "dt / stable dt … at most 2.873").
    let ratio = text.lines().find(|l| l.contains("fixed dt / stable dt: at most")).expect("the dt ratio line");
    assert!(
        ratio.contains("stable dt of the state each timed substep stepped") && ratio.contains("above 1"),
        "{ratio}"
    );
    let bad = powder(&["bench", "--particles", "4000", "--path", "fast"]);
    assert!(!bad.status.success() && stderr(&bad).contains("expected naive, sorted or fused"), "{}", stderr(&bad));
    let bad = powder(&["bench", "--particles", "4000", "--p2g", "p2g_fast"]);
    assert!(!bad.status.success() && stderr(&bad).contains("expected p2g_tiled"), "{}", stderr(&bad));
}

#[test]
fn bench_pressure_reports_each_preconditioner_at_the_twins_iterations() {
    use powder::sim::pressure::Preconditioner;
    use powder::sim::pressure::cpu::pcg::solve;
    use powder::sim::pressure::cpu::precond::Precond;
    let out = powder(&["bench", "--pressure", "--grid", "12"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let (op, b) = powder::sim::pressure::problem::sphere_tank(12);
    for kind in Preconditioner::ALL {
        let (_, twin) = solve(&op, &Precond::new(kind, &op), &b, powder::bench::pressure::TOLERANCE, 1000);
        let row =
            text.lines().find(|l| l.split_whitespace().next() == Some(kind.name())).expect("a row per preconditioner");
        let iterations: u32 = row.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("iterations");
        // The GPU's f32 sums may cross the tolerance one iteration apart from the twin's f64.
        assert!(
            iterations.abs_diff(twin.iterations) <= 1,
            "{}: GPU {iterations}, twin {}",
            kind.name(),
            twin.iterations
        );
    }
}

#[test]
fn bench_pressure_names_the_preconditioners_it_knows() {
    let out = powder(&["bench", "--pressure", "--preconditioner", "ilu"]);
    assert!(!out.status.success());
    let message = stderr(&out);
    assert!(message.contains("no preconditioner 'ilu'") && message.contains("multigrid"), "{message}");
}
