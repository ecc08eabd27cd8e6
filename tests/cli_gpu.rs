//! Choosing the GPU from the command line: `powder adapters` lists the adapters in the order
//! `--gpu INDEX` counts them; `--gpu` (or `POWDER_GPU`) picks one by index or by part of its name,
//! and a choice that matches none is one line listing the adapters, without a panic. On the test
//! machines the one Vulkan adapter is Mesa's lavapipe, named "llvmpipe (LLVM …)".

use std::process::{Command, Output};

mod common;
use common::SMALL_SCENE;

fn powder(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_powder"));
    command.args(args).env_remove("POWDER_GPU");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("the powder binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn adapters_lists_each_adapter_with_its_index_backend_and_type() {
    let out = powder(&["adapters"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = listing.lines().collect();
    assert!(!lines.is_empty(), "no adapters listed");
    for (i, line) in lines.iter().enumerate() {
        assert!(line.starts_with(&format!("{i}: ")) && line.contains("(Vulkan, "), "{line}");
    }
    assert!(lines.iter().any(|l| l.contains("llvmpipe") && l.ends_with("Cpu)")), "{listing}");
}

#[test]
fn gpu_by_index_or_name_runs_a_bake_on_that_adapter() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("small.json");
    std::fs::write(&scene, SMALL_SCENE).expect("scene written");
    let scene = scene.to_str().expect("utf-8 path");
    // The index of llvmpipe in the listing, and part of its name in another case.
    let listing = String::from_utf8_lossy(&powder(&["adapters"], &[]).stdout).into_owned();
    let index = listing.lines().find(|l| l.contains("llvmpipe")).and_then(|l| l.split(':').next()).expect("listed");
    for (n, choice) in [index, "LLVMpipe"].into_iter().enumerate() {
        let out_dir = dir.path().join(format!("out{n}"));
        let args = ["run", scene, "--frames", "1", "--out", out_dir.to_str().expect("utf-8"), "--gpu", choice];
        let out = powder(&args, &[]);
        assert!(out.status.success(), "--gpu {choice}: {}", stderr(&out));
        assert!(stderr(&out).contains("GPU: llvmpipe"), "--gpu {choice}: {}", stderr(&out));
        assert!(out_dir.join("frame_00001.ply").is_file(), "--gpu {choice}: no frame 1");
    }
    // POWDER_GPU is the default of --gpu.
    let out_dir = dir.path().join("env");
    let out =
        powder(&["run", scene, "--frames", "1", "--out", out_dir.to_str().expect("utf-8")], &[("POWDER_GPU", "llvm")]);
    assert!(out.status.success() && stderr(&out).contains("GPU: llvmpipe"), "{}", stderr(&out));
}

/// Arguments, environment variables, and the start of the message expected.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[test]
fn a_gpu_that_is_not_there_is_one_line_listing_the_adapters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let out_arg = out_dir.to_str().expect("utf-8 path");
    let cases: [Case; 4] = [
        (&["run", "--frames", "1", "--out", out_arg, "--gpu", "5"], &[], "--gpu 5: there is no adapter 5"),
        (&["run", "--frames", "1", "--out", out_arg, "--gpu", "nosuch"], &[], "--gpu nosuch: no adapter's name"),
        (&["run", "--frames", "1", "--out", out_arg], &[("POWDER_GPU", "nosuch")], "--gpu nosuch: no adapter's name"),
        (&["bench", "--particles", "1000", "--substeps", "1", "--gpu", "7"], &[], "--gpu 7: there is no adapter 7"),
    ];
    for (args, env, start) in cases {
        let out = powder(args, env);
        let msg = stderr(&out);
        assert!(!out.status.success(), "{args:?} accepted: {msg}");
        assert_eq!(msg.trim_end().lines().count(), 1, "not one line: {msg}");
        assert!(msg.starts_with(&format!("error: {start}")) && !msg.contains("panicked"), "{msg}");
        assert!(msg.contains("the adapters are") && msg.contains("0: ") && msg.contains("llvmpipe"), "{msg}");
    }
    assert!(!out_dir.exists(), "nothing may be written when the GPU is refused");
}

/// `--integrator pbmpm` switched the integrator after the `--set`s were applied, so
/// `--set integrator.iterations=20` was dropped silently (the bake ran the default 5 iterations).
#[test]
fn set_reaches_the_integrator_chosen_on_the_command_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let scene = dir.path().join("small.json");
    std::fs::write(&scene, SMALL_SCENE).expect("scene written");
    let out_dir = dir.path().join("out");
    let args = [
        "run",
        scene.to_str().expect("utf-8"),
        "--frames",
        "1",
        "--out",
        out_dir.to_str().expect("utf-8"),
        "--integrator",
        "pbmpm",
        "--set",
        "integrator.iterations=20",
    ];
    let out = powder(&args, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("PB-MPM steps of at most 20 Newton–PCG iterations"), "{}", stderr(&out));
}
