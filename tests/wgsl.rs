//! GPU-free shader checks: every WGSL file parses and validates with naga, and the structs the GPU
//! shares with Rust have the same member offsets and sizes on both sides.

use std::collections::BTreeSet;
use std::path::Path;

use powder::collider::field::{GpuColliderNode, GpuColliderSurface};
use powder::sim::explicit::GpuScatterSource;
use powder::sim::explicit::clock::{self, GpuSubstepClock};
use powder::sim::params::{GpuMaterial, GpuPickRay, GpuSimParams, GpuSolverStatus};
use powder::sim::particles::GpuParticlePlastic;
use powder::sim::passes::{MpmPass, PASSES};
use powder::sim::record;
use powder::sim::shaders::LIBRARIES;
use powder::sim::sort::bins::{self, GpuBinHeader, GpuBlockBin};
use wgpu::naga;

mod common;

use common::layout::{f32_named, rust_layout, u32_named, validate, wgsl_layout};

#[test]
fn every_library_prefix_and_pass_validates() {
    // Each library validates together with the ones before it (its only dependencies).
    let mut prefix = String::new();
    for (path, source) in LIBRARIES {
        prefix.push_str(source);
        prefix.push('\n');
        validate(path, &prefix);
    }
    for pass in MpmPass::ALL {
        let module = validate(pass.name(), &pass.composed_source());
        assert!(
            module.entry_points.iter().any(|e| e.name == pass.name() && e.stage == naga::ShaderStage::Compute),
            "{} has no compute entry point named after the pass",
            pass.name()
        );
    }
}

#[test]
fn the_bandwidth_probe_validates() {
    let module = validate("bench/copy.wgsl", powder::bench::COPY_SHADER);
    assert!(module.entry_points.iter().any(|e| e.name == "copy"));
}

#[test]
fn every_wgsl_file_on_disk_is_covered() {
    // The bench directory holds only the probe, validated above.
    let bench: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/bench"))
        .expect("shaders/bench exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(bench, ["copy.wgsl"]);
    let top: Vec<_> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"))
        .expect("shaders exists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wgsl"))
        .collect();
    assert!(top.is_empty(), "WGSL files directly under shaders/ are not validated: {top:?}");
    // Every .wgsl under shaders/mpm (its explicit/ folder included) is a library or a pass's file.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk = BTreeSet::new();
    for sub in ["mpm", "mpm/explicit", "mpm/pbmpm"] {
        for entry in std::fs::read_dir(dir.join(sub)).expect("shader folder exists") {
            let entry = entry.expect("readable entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().expect("file type").is_dir() {
                assert!(
                    sub == "mpm" && ["explicit", "pbmpm"].contains(&name.as_str()),
                    "an unexpected shader folder: {sub}/{name}"
                );
            } else if name.ends_with(".wgsl") {
                on_disk.insert(format!("{sub}/{name}"));
            }
        }
    }
    let covered: BTreeSet<String> = LIBRARIES
        .iter()
        .map(|(path, _)| path.to_string())
        .chain(PASSES.iter().map(|info| info.file.to_string()))
        .collect();
    assert_eq!(on_disk, covered, "a WGSL file is not validated by this test (or a listed one is missing)");
    // And the embedded copies are the files on disk.
    for info in PASSES {
        let text = std::fs::read_to_string(dir.join(info.file)).expect("pass file");
        assert_eq!(text, info.source, "{}", info.file);
    }
}

/// The (group, binding) pairs of the globals `entry` reaches, directly or through the functions
/// it calls: what naga's analysis records as used.
fn used_bindings(module: &naga::Module, entry: &str) -> BTreeSet<(u32, u32)> {
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
        .subgroup_operations(naga::valid::SubgroupOperationSet::all())
        .validate(module)
        .expect("valid module");
    let index = module.entry_points.iter().position(|e| e.name == entry).expect("entry point");
    let function = info.get_entry_point(index);
    module
        .global_variables
        .iter()
        .filter(|(handle, _)| !function[*handle].is_empty())
        .filter_map(|(_, var)| var.binding.as_ref().map(|b| (b.group, b.binding)))
        .collect()
}

#[test]
fn each_pass_declares_the_bindings_its_wgsl_uses() {
    // The pass table (src/sim/passes.rs) is what a reader looks up; naga's analysis of the
    // composed module is the truth. Group 1 (the indirect arguments as storage) is in the layout of
    // the passes that write dispatch arguments alone.
    let mut wrong = Vec::new();
    for info in PASSES {
        let module = validate(info.name, &info.pass.composed_source());
        let used = used_bindings(&module, info.name);
        let declared: BTreeSet<(u32, u32)> =
            info.bindings.iter().map(|&b| (0, b)).chain(info.writes_dispatch_args.then_some((1, 0))).collect();
        if used != declared {
            let group0: Vec<u32> = used.iter().filter(|(g, _)| *g == 0).map(|(_, b)| *b).collect();
            wrong.push(format!("{}: declared {:?}, uses {:?} (group 0: {group0:?})", info.name, declared, used));
        }
    }
    assert!(wrong.is_empty(), "the pass table's bindings disagree with the WGSL:\n{}", wrong.join("\n"));
}

#[test]
fn shared_struct_layouts_agree() {
    let module = validate(
        "particle.wgsl + materials.wgsl + types.wgsl",
        &format!("{}\n{}\n{}", LIBRARIES[0].1, LIBRARIES[1].1, LIBRARIES[2].1),
    );
    let cases = [
        (
            "SimParams",
            rust_layout!(
                GpuSimParams,
                [
                    grid_origin,
                    cell_size,
                    node_dims,
                    particle_count,
                    wall_lo,
                    boundary_kind,
                    wall_hi,
                    boundary_friction,
                    gravity,
                    pb_tolerance,
                    stiffest_modulus,
                    fastest_wave_squared,
                    lightest_density,
                    max_speed,
                    mass_scale,
                    momentum_scale,
                    contribution_limit,
                    interaction_mode,
                    repel_speed,
                    collider_count,
                    interaction_center,
                    interaction_radius,
                    interaction_velocity,
                    interaction_rate,
                    particle_order,
                    keep_grid_sums,
                    grid_pool_blocks,
                    reset_grid_blocks,
                    pb_relaxation,
                    pb_yield_time,
                    materials,
                ]
            ),
        ),
        (
            "Material",
            rust_layout!(
                GpuMaterial,
                [
                    mu0,
                    lambda0,
                    hardening,
                    critical_compression,
                    critical_stretch,
                    tensile_strength,
                    density,
                    plasticity,
                    friction_alpha,
                    wave_speed_squared,
                    yield_stress,
                    viscosity,
                    elasticity,
                    cohesion_strain,
                ]
            ),
        ),
        ("ParticlePlastic", rust_layout!(GpuParticlePlastic, [plastic_jacobian, material, damage, strength])),
        (
            "SolverStatus",
            rust_layout!(
                GpuSolverStatus,
                [
                    overflow_count,
                    nonfinite_count,
                    max_speed_bits,
                    max_hardening_bits,
                    min_plastic_jacobian_bits,
                    max_plastic_jacobian_bits,
                    pick_distance_bits,
                    fused_count,
                    grid_blocks_used,
                    grid_blocks_peak,
                    max_solve_residual_bits,
                    solve_iterations,
                    solve_steps,
                ]
            ),
        ),
        ("PickRay", rust_layout!(GpuPickRay, [origin, radius, direction])),
        ("ColliderNode", rust_layout!(GpuColliderNode, [normal, distance, velocity, surface])),
        ("ColliderSurface", rust_layout!(GpuColliderSurface, [kind, friction])),
        ("BinHeader", rust_layout!(GpuBinHeader, [particle_total, occupied_count, touched_count, listed_touched])),
        ("BlockBin", rust_layout!(GpuBlockBin, [count, offset, cursor, listed])),
        ("ScatterSource", rust_layout!(GpuScatterSource, [fraction, mass, velocity, bounded, gradient])),
        (
            "SubstepClock",
            rust_layout!(
                GpuSubstepClock,
                [
                    span,
                    fixed_dt,
                    planned,
                    max_substeps,
                    cfl,
                    wave_speed_squared,
                    viscous_dt,
                    pb_prev_dt,
                    pb_kick,
                    time,
                    dt,
                    blend,
                    substeps,
                    running,
                    finished,
                    max_ratio,
                    stable_dt,
                    min_stable_dt,
                    max_speed_bits,
                    max_wave_speed_squared_bits,
                    pb_gathering,
                ]
            ),
        ),
    ];
    for (name, rust) in cases {
        assert_eq!(wgsl_layout(&module, name), rust, "layout of {name} differs between WGSL and Rust");
    }
}

#[test]
fn a_broken_shader_is_caught() {
    // The check the kernels and hot reload run (pipelines::validate_source) must reject a real
    // mistake in a composed module and name the pass, or the tests above prove nothing.
    let broken = MpmPass::P2g.composed_source().replace("stencil_at(p.position)", "stencil_at(p.no_such_field)");
    let err = powder::sim::pipelines::validate_source(MpmPass::P2g, &broken).expect_err("a broken pass is refused");
    assert_eq!(err.pass, "p2g");
    assert!(err.message.contains("no_such_field"), "{}", err.message);
}

#[test]
fn the_newton_constants_agree_with_the_host() {
    // The buffer's layout (sizes.rs sizes it), the preconditioner's levels and level ratio, and
    // the residual floor the twin reports by.
    use powder::sim::page::sizes;
    use powder::sim::pbmpm::cpu::newton;
    let module = validate("pb_newton_reduce", &MpmPass::PbNewtonReduce.composed_source());
    assert_eq!(u32_named(&module, "NEWTON_HEAD") as u64, sizes::NEWTON_HEAD);
    assert_eq!(u32_named(&module, "NEWTON_LEVELS"), sizes::NEWTON_LEVELS);
    assert_eq!(f32_named(&module, "NEWTON_LEVEL_BOUND") as f64, newton::LEVEL_BOUND);
    assert_eq!(f32_named(&module, "NEWTON_RESIDUAL_FLOOR"), newton::RESIDUAL_FLOOR as f32);
    assert_eq!(sizes::NEWTON_LEVELS, newton::NewtonSettings::default().levels);
}

#[test]
fn the_sand_constant_agrees_with_the_twin() {
    // The flattest singular value sand's return mapping takes the logarithm of (snow.wgsl, g2p.rs).
    let module = validate("g2p", &MpmPass::G2p.composed_source());
    assert_eq!(f32_named(&module, "SAND_MIN_STRETCH") as f64, powder::sim::cpu::g2p::SAND_MIN_STRETCH as f32 as f64);
}

#[test]
fn the_clock_gate_knows_the_indirect_argument_layout() {
    // clock_gate copies the template behind the gated entries into them: its counts must be the
    // host's (src/sim/explicit/clock.rs), or it would switch the wrong dispatches.
    let module = validate("clock_gate", &MpmPass::ClockGate.composed_source());
    assert_eq!(u32_named(&module, "BIN_ENTRIES"), record::BIN_ENTRIES);
    assert_eq!(u32_named(&module, "GATED_ENTRIES"), record::GATED_ENTRIES);
    // And the clock's tolerance on the frame's end is the twin's.
    let module = validate("clock_advance", &MpmPass::ClockAdvance.composed_source());
    let (_, tolerance) =
        module.constants.iter().find(|(_, c)| c.name.as_deref() == Some("TIME_TOLERANCE")).expect("TIME_TOLERANCE");
    match module.global_expressions[tolerance.init] {
        naga::Expression::Literal(naga::Literal::F32(v)) => assert_eq!(v, clock::TIME_TOLERANCE as f32),
        ref e => panic!("TIME_TOLERANCE is not an f32 literal: {e:?}"),
    }
}

#[test]
fn the_tiles_hold_the_stencils_they_take() {
    // The default tile holds a block's stencils (BLOCK_REACH = BLOCK_EDGE + 2 nodes per axis);
    // g2p2g's pipeline overrides it with room for particles that moved a cell either way.
    let module = validate("g2p2g", &MpmPass::G2p2g.composed_source());
    let (edge, reach, fused) =
        (u32_named(&module, "BLOCK_EDGE"), u32_named(&module, "BLOCK_REACH"), u32_named(&module, "FUSED_REACH"));
    assert_eq!(edge, bins::BLOCK_EDGE);
    assert_eq!((reach, fused), (edge + 2, edge + 4));
    assert_eq!(u32_named(&module, "TILE_NODES"), reach.pow(3));
    assert_eq!(MpmPass::G2p2g.info().tile_nodes, Some(fused.pow(3)));
    assert!(MpmPass::ALL.iter().all(|p| *p == MpmPass::G2p2g || p.info().tile_nodes.is_none()));
}

/// Bytes per element of the storage array `name` in `module`, and its binding.
fn stream_stride(module: &naga::Module, name: &str) -> (u32, u32) {
    let (_, var) = module
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no global {name}"));
    let binding = var.binding.as_ref().map(|b| b.binding).unwrap_or_else(|| panic!("{name} has no binding"));
    match module.types[var.ty].inner {
        naga::TypeInner::Array { stride, .. } => (stride, binding),
        ref other => panic!("{name} is not an array: {other:?}"),
    }
}

#[test]
fn the_particle_streams_agree_with_the_host() {
    // The solver binds the streams at 1..=6 in STREAMS order (src/sim/page.rs); each particle's
    // elements must be as wide as the host sizes them (src/sim/particles.rs): one element each,
    // except the stress, two vec4s per particle (store_stress in types.wgsl).
    let module = validate("g2p2g", &MpmPass::G2p2g.composed_source());
    for (i, (name, bytes)) in powder::sim::particles::STREAMS.iter().enumerate() {
        let per_particle = if *name == "particle_stress" { 2 } else { 1 };
        let (stride, binding) = stream_stride(&module, name);
        assert_eq!((per_particle * stride, binding), (*bytes as u32, i as u32 + 1), "{name}");
        // A round of the reorder moves one share of the streams through the scratch; C and F, the
        // widest, fill it.
        assert!(u64::from(per_particle * stride) <= powder::sim::sort::reorder::SCRATCH_BYTES_PER_PARTICLE, "{name}");
    }
    assert_eq!(stream_stride(&module, "particle_id"), (4, 19));
    // The scratch is REORDER_SLOTS vec4s per particle (types.wgsl), sized by the host.
    let (slot, binding) = stream_stride(&module, "reorder_scratch");
    assert_eq!(binding, 20);
    assert_eq!(
        u64::from(slot * u32_named(&module, "REORDER_SLOTS")),
        powder::sim::sort::reorder::SCRATCH_BYTES_PER_PARTICLE
    );
    assert_eq!(
        powder::sim::page::BINDINGS,
        module.global_variables.iter().filter(|(_, v)| v.binding.is_some()).count()
    );
}

#[test]
fn the_sorts_constants_agree_with_the_host() {
    // bin_offsets and bin_cell_offsets run REACHED_BLOCKS threads per block (the host sizes
    // bin_cell_offsets' dispatch, bin_dispatch bin_offsets'), which split a block's cells evenly.
    let module = validate("bin_cell_offsets", &MpmPass::BinCellOffsets.composed_source());
    let (reached, cells) = (u32_named(&module, "REACHED_BLOCKS"), u32_named(&module, "BLOCK_CELLS"));
    assert_eq!((reached, cells), (bins::REACHED_BLOCKS, bins::BLOCK_CELLS));
    assert_eq!(u32_named(&module, "SEGMENT_CELLS") * reached, cells);
    assert_eq!(powder::sim::params::WORKGROUP_SIZE % reached, 0, "a block's threads would span two workgroups");
    let (_, sums) = module
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some("segment_sums"))
        .expect("place_cells_together's workgroup sums");
    match module.types[sums.ty].inner {
        naga::TypeInner::Array { size: naga::ArraySize::Constant(n), .. } => {
            assert_eq!(n.get(), powder::sim::params::WORKGROUP_SIZE, "one segment sum per thread");
        }
        ref other => panic!("segment_sums is not a sized array: {other:?}"),
    }
    // The indirect buffer holds the arguments bin_dispatch writes, one vec4<u32> per pass.
    let module = validate("bin_dispatch", &MpmPass::BinDispatch.composed_source());
    let (_, var) = module
        .global_variables
        .iter()
        .find(|(_, v)| v.name.as_deref() == Some("dispatch_args"))
        .expect("bin_dispatch declares dispatch_args");
    assert_eq!(module.types[var.ty].inner.size(module.to_ctx()) as u64, bins::INDIRECT_ARGS_BYTES);
    for offset in [bins::P2G_ARGS_OFFSET, bins::UPDATE_ARGS_OFFSET, bins::OFFSETS_ARGS_OFFSET] {
        assert!(offset + 16 <= bins::INDIRECT_ARGS_BYTES && offset % 16 == 0);
    }
}
