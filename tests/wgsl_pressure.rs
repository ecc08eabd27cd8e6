//! GPU-free checks of the pressure solve's shaders (`shaders/pressure/`): every module validates
//! with naga after the common library, each has the entry points the host builds pipelines for,
//! and its uniforms and constants agree with the Rust side and the twin.

use std::path::Path;

mod common;

use common::layout::{f32_named, rust_layout, u32_named, validate, wgsl_layout};

#[test]
fn the_pressure_solve_validates_and_its_structs_match() {
    use powder::sim::pressure::cpu::multigrid::{COARSEST_CELLS, COARSEST_SWEEPS, JACOBI_WEIGHT, SMOOTHING_SWEEPS};
    use powder::sim::pressure::gpu::build::{self, BuildUniforms};
    use powder::sim::pressure::gpu::layout::{COMMON, WORKGROUP, compose};
    use powder::sim::pressure::gpu::mic::{self, MicUniforms};
    use powder::sim::pressure::gpu::multigrid::{self, CycleLevel, CycleUniforms, LevelUniforms, MAX_CYCLE_LEVELS};
    use powder::sim::pressure::gpu::{self as pcg, PcgScalars, PressureUniforms};
    // The shared library alone, then each module after it.
    let common = validate("pressure/common.wgsl", COMMON);
    let scalars = rust_layout!(PcgScalars, [sigma, alpha, beta, bb, rr, iterations, done, pad]);
    assert_eq!(wgsl_layout(&common, "PcgScalars"), scalars, "PcgScalars differs between WGSL and Rust");
    assert_eq!(u32_named(&common, "WORKGROUP"), WORKGROUP);
    // Every entry point the host builds a pipeline for, and each module's own uniforms.
    let files = [
        (
            "pcg.wgsl",
            pcg::source(),
            &pcg::ENTRIES[..],
            (
                "PressureUniforms",
                rust_layout!(PressureUniforms, [dims, cells, preconditioner, partial_count, tolerance_squared, warm]),
            ),
        ),
        ("mic.wgsl", mic::source(), &mic::ENTRIES[..], ("MicUniforms", rust_layout!(MicUniforms, [dims, cells]))),
        (
            "build.wgsl",
            build::source(),
            &build::ENTRIES[..],
            (
                "BuildUniforms",
                rust_layout!(BuildUniforms, [dims, cells, fine_dims, fine_cells, scale, pad0, pad1, pad2]),
            ),
        ),
        (
            "multigrid.wgsl",
            multigrid::source(),
            &multigrid::ENTRIES[..],
            ("LevelUniforms", rust_layout!(LevelUniforms, [dims, cells, coarse_dims, coarse_cells])),
        ),
        (
            "coarse_cycle.wgsl",
            multigrid::cycle_source(),
            &["mg_cycle"][..],
            ("CycleUniforms", rust_layout!(CycleUniforms, [count, pad0, pad1, pad2, levels])),
        ),
    ];
    for (file, source, entries, (name, layout)) in &files {
        let module = validate(file, source);
        for entry in entries.iter() {
            assert!(module.entry_points.iter().any(|e| e.name == *entry), "{file} has no entry point {entry}");
        }
        assert_eq!(wgsl_layout(&module, name), *layout, "layout of {name} differs between WGSL and Rust");
    }
    let mic_module = validate("mic.wgsl", &mic::source());
    use powder::sim::pressure::cpu::precond::{MIC_SIGMA, MIC_TAU};
    assert_eq!(f32_named(&mic_module, "MIC_TAU"), MIC_TAU as f32);
    assert_eq!(f32_named(&mic_module, "MIC_SIGMA"), MIC_SIGMA as f32);
    // The V-cycle's library alone after the common one; both V-cycle modules start with it, so
    // their sweeps and transfers share its constants.
    validate("vcycle.wgsl", &compose(multigrid::VCYCLE));
    let mg = validate("multigrid.wgsl", &multigrid::source());
    assert_eq!(u32_named(&mg, "COARSEST_SWEEPS") as usize, COARSEST_SWEEPS);
    assert_eq!(u32_named(&mg, "COARSEST_MAX") as usize, COARSEST_CELLS.pow(3));
    assert_eq!(u32_named(&mg, "SMOOTHING_SWEEPS") as usize, SMOOTHING_SWEEPS);
    assert_eq!(f32_named(&mg, "JACOBI_WEIGHT"), JACOBI_WEIGHT as f32);
    let cycle = validate("coarse_cycle.wgsl", &multigrid::cycle_source());
    assert_eq!(u32_named(&cycle, "MAX_CYCLE_LEVELS") as usize, MAX_CYCLE_LEVELS);
    let level = rust_layout!(CycleLevel, [dims, cells, offset, pad0, pad1, pad2]);
    assert_eq!(wgsl_layout(&cycle, "CycleLevel"), level, "layout of CycleLevel differs between WGSL and Rust");
    let mut on_disk: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/pressure"))
        .expect("shaders/pressure exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk,
        ["build.wgsl", "coarse_cycle.wgsl", "common.wgsl", "mic.wgsl", "multigrid.wgsl", "pcg.wgsl", "vcycle.wgsl"],
        "a pressure shader this test does not validate"
    );
}
