//! GPU-free checks of the water step's shaders (`shaders/water/`): the composed module validates
//! with naga, has every entry point the host builds and no other, its uniforms match the Rust
//! mirror, and every file on disk is one the module composes.

use std::path::Path;

use wgpu::naga;

mod common;

use common::layout::{rust_layout, validate, wgsl_layout};

#[test]
fn the_water_step_validates_and_its_structs_match() {
    use powder::sim::water::gpu::layout::{self, WaterUniforms};
    let module = validate("water", &layout::source());
    for entry in layout::ENTRIES {
        assert!(module.entry_points.iter().any(|e| e.name == entry), "the water step has no entry point {entry}");
    }
    let uniforms = rust_layout!(
        WaterUniforms,
        [
            dims,
            cells,
            face_offsets,
            faces,
            gravity_dt,
            dt,
            extent,
            h,
            particles,
            transfer,
            flip_ratio,
            gradient_scale,
            rhs_scale,
            rest,
            fixed,
            max_speed,
            origin,
            snow_particles,
            cell_mass,
            snow,
            pad0,
            pad1
        ]
    );
    assert_eq!(wgsl_layout(&module, "WaterUniforms"), uniforms, "WaterUniforms differs between WGSL and Rust");
    let compute = module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute).count();
    assert_eq!(compute, layout::ENTRIES.len(), "a compute entry point the host does not build");
    let mut on_disk: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/water"))
        .expect("shaders/water exists")
        .map(|e| format!("water/{}", e.expect("entry").file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = layout::SOURCES.iter().map(|(path, _)| path.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "a water shader this test does not validate");
}
