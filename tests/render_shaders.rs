//! GPU-free checks of the render shaders: every `shaders/render/*.wgsl` file, composed as the
//! renderer composes it, parses and validates with naga; and the structs shared with Rust have the
//! same member offsets and sizes on both sides.

use std::collections::BTreeSet;
use std::path::Path;

use powder::render::mesh::{MESH_VERTEX_ATTRIBUTES, MESH_VERTEX_BYTES, MeshVertex};
use powder::render::particles::IMPOSTOR_RECORD_BYTES;
use powder::render::shaders::{COLORS, DepthKind, LIGHTING, PARTICLE, RenderShader, TYPES};
use powder::render::uniforms::GpuFrame;
use powder::render::volume_splat::VOLUME_FIXED_SCALE;
use powder::sim::params::GpuParticle;
use wgpu::naga;

mod common;

/// render/types.wgsl as every module includes it: after the shared particle file.
fn types() -> String {
    format!("{}\n{}", PARTICLE.1, TYPES.1)
}

use common::layout::{rust_layout, validate, wgsl_layout};

/// The entry points each stage must have, with their stage.
fn expected_entry_points(shader: RenderShader) -> Vec<(&'static str, naga::ShaderStage)> {
    use naga::ShaderStage::{Compute, Fragment, Vertex};
    match shader {
        RenderShader::Environment => vec![
            ("ground_vertex", Vertex),
            ("ground_fragment", Fragment),
            ("ground_shadowed_fragment", Fragment),
            ("sky_vertex", Vertex),
            ("sky_fragment", Fragment),
            ("bounds_vertex", Vertex),
            ("bounds_fragment", Fragment),
        ],
        RenderShader::Particles => {
            vec![("particles_shade", Compute), ("particles_vertex", Vertex), ("particles_fragment", Fragment)]
        }
        RenderShader::VolumeSplat => vec![("volume_splat", Compute), ("volume_resolve", Compute)],
        RenderShader::VolumeRaymarch => {
            vec![("volume_raymarch_vertex", Vertex), ("volume_raymarch_fragment", Fragment)]
        }
        RenderShader::Mesh => vec![("mesh_vertex", Vertex), ("mesh_fragment", Fragment)],
        RenderShader::ViewBlit => vec![("view_blit_vertex", Vertex), ("view_blit_fragment", Fragment)],
        RenderShader::GridView => {
            vec![("grid_view_slice", Compute), ("grid_view_splat", Compute), ("grid_view_resolve", Compute)]
        }
        RenderShader::Surface => vec![
            ("surface_prepare", Compute),
            ("surface_make_vertices", Compute),
            ("surface_make_triangles", Compute),
            ("surface_finish", Compute),
            ("surface_vertex", Vertex),
            ("surface_fragment", Fragment),
        ],
        RenderShader::SurfaceCover => vec![("surface_cover", Compute)],
    }
}

#[test]
fn every_render_stage_validates_as_composed() {
    validate(TYPES.0, &types());
    validate(LIGHTING.0, &format!("{}\n{}", types(), LIGHTING.1));
    validate(COLORS.0, &format!("{}\n{}", types(), COLORS.1));
    for shader in RenderShader::ALL {
        for depth in [DepthKind::Single, DepthKind::Multisampled] {
            let label = format!("{} ({depth:?} depth)", shader.name());
            let module = validate(&label, &shader.composed_source(depth));
            for (name, stage) in expected_entry_points(shader) {
                assert!(
                    module.entry_points.iter().any(|e| e.name == name && e.stage == stage),
                    "{label} has no {stage:?} entry point {name}"
                );
            }
        }
    }
}

#[test]
fn every_wgsl_file_under_shaders_render_is_covered() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/render");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("shaders/render exists")
        .map(|e| e.expect("readable entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".wgsl"))
        .collect();
    let covered: BTreeSet<String> = [TYPES.0, LIGHTING.0, COLORS.0]
        .iter()
        .map(|path| path.trim_start_matches("render/").to_string())
        .chain(RenderShader::ALL.iter().map(|s| format!("{}.wgsl", s.name())))
        .collect();
    assert_eq!(on_disk, covered, "a WGSL file is not validated by this test (or a listed one is missing)");
    // The embedded copies are the files on disk.
    for shader in RenderShader::ALL {
        let text = std::fs::read_to_string(dir.join(format!("{}.wgsl", shader.name()))).expect("stage file");
        assert_eq!(text, shader.source(), "{} differs from its embedded copy", shader.name());
    }
}

#[test]
fn shared_struct_layouts_agree() {
    let module = validate(TYPES.0, &types());
    let frame = rust_layout!(
        GpuFrame,
        [
            view_proj,
            inv_view_proj,
            eye,
            exposure,
            sun_direction,
            particle_radius,
            domain_min,
            speed_scale,
            domain_max,
            density_scale,
            volume_dims,
            volume_voxel,
            viewport,
            pixel_angle,
            color_field,
            particle_count,
            ground_tile,
            volume_valid,
            far_distance,
            ground_shadow_rect,
            gap_radius,
        ]
    );
    assert_eq!(wgsl_layout(&module, "Frame"), frame, "layout of Frame differs between WGSL and Rust");
    // Particle is the value the passes work with (the solver stores streams, checked in
    // tests/wgsl.rs); its fields mirror the host's record.
    let particle = rust_layout!(
        GpuParticle,
        [position, mass, velocity, volume, affine, deformation, plastic_jacobian, material, damage, strength]
    );
    assert_eq!(wgsl_layout(&module, "Particle"), particle, "layout of Particle differs between WGSL and Rust");
    // A uniform block's size must be a multiple of 16 bytes.
    assert_eq!(size_of::<GpuFrame>() % 16, 0);
    // The host sizes the impostor records and the indirect arguments the shade pass writes.
    let particles = validate("particles", &RenderShader::Particles.composed_source(DepthKind::Single));
    assert_eq!(wgsl_layout(&particles, "ImpostorRecord").1 as u64, IMPOSTOR_RECORD_BYTES);
    let (members, size) = wgsl_layout(&particles, "DrawArgs");
    assert_eq!(size as usize, size_of::<wgpu::util::DrawIndirectArgs>());
    let names: Vec<_> = members.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["vertex_count", "instance_count", "first_vertex", "first_instance"]);
    // The surface's triangle corners, read back for tests and mesh export.
    let surface = validate("surface", &RenderShader::Surface.composed_source(DepthKind::Single));
    let vertex = rust_layout!(powder::render::surface::SurfaceVertex, [position, light, normal, albedo]);
    assert_eq!(wgsl_layout(&surface, "SurfaceVertex"), vertex, "layout of SurfaceVertex differs");
    // The indexed draw's arguments, then the dispatch of surface_light_vertices right after them.
    use powder::render::surface::{DRAW_ARGS_BYTES, LIGHT_DISPATCH_OFFSET};
    let (members, size) = wgsl_layout(&surface, "SurfaceDrawArgs");
    assert_eq!(size as u64, DRAW_ARGS_BYTES);
    assert_eq!(LIGHT_DISPATCH_OFFSET as usize, size_of::<wgpu::util::DrawIndexedIndirectArgs>());
    let names: Vec<_> = members.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "index_count",
            "instance_count",
            "first_index",
            "base_vertex",
            "first_instance",
            "light_groups_x",
            "light_groups_y",
            "light_groups_z"
        ]
    );
    assert_eq!(members[5].1 as u64, LIGHT_DISPATCH_OFFSET);
    // The host reads the counts at words 6 and 7 of the grid record and sizes the buffer.
    let (members, size) = wgsl_layout(&surface, "SurfaceGrid");
    assert_eq!(size, 36);
    assert_eq!(
        &members[6..],
        &[("vertex_count".to_string(), 24), ("triangle_count".to_string(), 28), ("cube_count".to_string(), 32)]
    );
}

#[test]
fn mesh_vertex_inputs_match_the_vertex_buffer_layout() {
    let module = validate("mesh", &RenderShader::Mesh.composed_source(DepthKind::Single));
    let entry = module.entry_points.iter().find(|e| e.name == "mesh_vertex").expect("mesh_vertex");
    // The shader's inputs by location: (location, WGSL type) of each member of its argument struct.
    let mut inputs = Vec::new();
    for argument in &entry.function.arguments {
        let naga::TypeInner::Struct { members, .. } = &module.types[argument.ty].inner else {
            panic!("mesh_vertex takes its inputs as one struct");
        };
        for member in members {
            let Some(naga::Binding::Location { location, .. }) = member.binding else { continue };
            inputs.push((location, module.types[member.ty].inner.clone()));
        }
    }
    let vec3_f32 = naga::TypeInner::Vector {
        size: naga::VectorSize::Tri,
        scalar: naga::Scalar { kind: naga::ScalarKind::Float, width: 4 },
    };
    let expected: Vec<_> = MESH_VERTEX_ATTRIBUTES
        .iter()
        .map(|a| {
            assert_eq!(a.format, wgpu::VertexFormat::Float32x3, "location {}", a.shader_location);
            (a.shader_location, vec3_f32.clone())
        })
        .collect();
    assert_eq!(inputs, expected, "mesh_vertex's inputs differ from MESH_VERTEX_ATTRIBUTES");
    // The attributes' offsets are the Rust struct's fields, and the stride its size.
    let (fields, size) = rust_layout!(MeshVertex, [position, normal]);
    let field_offsets: Vec<u64> = fields.iter().map(|(_, offset)| *offset as u64).collect();
    let attribute_offsets: Vec<u64> = MESH_VERTEX_ATTRIBUTES.iter().map(|a| a.offset).collect();
    assert_eq!(attribute_offsets, field_offsets, "MESH_VERTEX_ATTRIBUTES' offsets are not MeshVertex's fields");
    assert_eq!(size as u64, MESH_VERTEX_BYTES);
}

#[test]
fn shared_constants_agree() {
    // Constants both sides need, read from the WGSL text as naga evaluated them.
    let module = validate(TYPES.0, &types());
    let constant = |name: &str| -> f64 {
        let (_, c) = module
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("constant {name} not in types.wgsl"));
        match module.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::F32(v)) => v as f64,
            naga::Expression::Literal(naga::Literal::U32(v)) => v as f64,
            ref other => panic!("{name} is not a literal: {other:?}"),
        }
    };
    assert_eq!(constant("VOLUME_FIXED_SCALE"), VOLUME_FIXED_SCALE as f64);
    for field in powder::render::ColorField::ALL {
        let name = match field {
            powder::render::ColorField::Snow => "COLOR_SNOW",
            powder::render::ColorField::Speed => "COLOR_SPEED",
            powder::render::ColorField::PlasticJacobian => "COLOR_PLASTIC_JACOBIAN",
            powder::render::ColorField::Material => "COLOR_MATERIAL",
        };
        assert_eq!(constant(name), field.gpu_code() as f64, "{name}");
    }
}

#[test]
fn grid_view_params_layout_agrees() {
    use powder::render::grid_view::GpuGridViewParams;
    let module = validate("grid_view", &RenderShader::GridView.composed_source(DepthKind::Single));
    let params = rust_layout!(
        GpuGridViewParams,
        [node_dims, axis, slice_index, quantity, pool_blocks, particle_count, grid_origin, cell_size, touched_only]
    );
    assert_eq!(wgsl_layout(&module, "GridViewParams"), params, "layout of GridViewParams differs");
    assert_eq!(size_of::<GpuGridViewParams>() % 16, 0, "a uniform block's size is a multiple of 16 bytes");
    // The pass reads the solver's collider field as its own struct.
    use powder::collider::field::GpuColliderNode;
    let node = rust_layout!(GpuColliderNode, [normal, distance, velocity, surface]);
    assert_eq!(wgsl_layout(&module, "ViewColliderNode"), node, "layout of ViewColliderNode differs");
    // And the sort's block bins.
    use powder::sim::sort::bins::GpuBlockBin;
    let bin = rust_layout!(GpuBlockBin, [count, offset, cursor, listed]);
    assert_eq!(wgsl_layout(&module, "ViewBlockBin"), bin, "layout of ViewBlockBin differs");
}

/// The surface's levels are written in two WGSL files and in Rust (the CPU twin and the tests
/// use the Rust ones); a change to one side alone would make the twin extract another surface.
#[test]
fn surface_levels_agree() {
    use powder::render::surface::{COVER_FILL, SURFACE_EDGE_MARGIN, SURFACE_ISO};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/render");
    let constant = |file: &str, name: &str| -> f32 {
        let text = std::fs::read_to_string(dir.join(file)).expect("shader file");
        let prefix = format!("const {name}: f32 = ");
        let line = text.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("{name} not in {file}"));
        line.trim_end_matches(';').trim().parse().unwrap_or_else(|e| panic!("{name} in {file}: {e}"))
    };
    assert_eq!(constant("surface.wgsl", "SURFACE_ISO"), SURFACE_ISO);
    assert_eq!(constant("surface.wgsl", "SURFACE_EDGE_MARGIN"), SURFACE_EDGE_MARGIN);
    assert_eq!(constant("surface_cover.wgsl", "COVER_FILL"), COVER_FILL);
}
