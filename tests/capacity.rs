//! The solver's up-front capacity check (GPU-free): a particle count or grid that does not fit is
//! refused before anything is allocated, with the numbers, and the largest count it names fits.

use powder::sim::particles::WIDEST_STREAM_BYTES;
use powder::sim::shaders::MpmPass;
use powder::sim::state::{DeviceLimits, StateError, check_fit, grid_bytes, particle_bytes};

mod common;

/// The H100's limits as wgpu reports them (shared/PLATFORM.md): a 2 GiB binding less 4 bytes, and
/// about 80 GB of device memory.
const H100: DeviceLimits = DeviceLimits { binding_bytes: 2_147_483_644, memory_bytes: Some(85_000_000_000) };

#[test]
fn sixteen_million_particles_fit_an_h100_and_the_binding_limit_is_the_widest_stream() {
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    check_fit(&params, 16_003_008, MpmPass::P2gTiled, H100).expect("the issue's 16M case fits");
    let max = (H100.binding_bytes / WIDEST_STREAM_BYTES) as usize;
    check_fit(&params, max, MpmPass::P2gTiled, H100).expect("the largest count the binding allows");
    match check_fit(&params, max + 1, MpmPass::P2gTiled, H100) {
        Err(e @ StateError::TooManyParticles { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&format!("at most {max} particles fit")), "{text}");
        }
        other => panic!("one past the binding limit gave {other:?}"),
    }
}

#[test]
fn p2g_gathers_scatter_sources_are_the_widest_buffer_where_it_runs() {
    // 80 bytes per particle (GpuScatterSource) against the streams' 48.
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    let max = (H100.binding_bytes / 80) as usize;
    check_fit(&params, max, MpmPass::P2gGather, H100).expect("the largest count the binding allows");
    assert!(matches!(
        check_fit(&params, max + 1, MpmPass::P2gGather, H100),
        Err(StateError::TooManyParticles { per_particle: 80, .. })
    ));
    check_fit(&params, max + 1, MpmPass::P2gTiled, H100).expect("without p2g_gather the streams are the widest");
}

#[test]
fn a_count_past_the_memory_is_refused_with_needed_and_available_bytes() {
    // A 4 GB GPU with an unlimited binding, so memory alone decides.
    let limits = DeviceLimits { binding_bytes: u64::MAX, memory_bytes: Some(4_000_000_000) };
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    // Per particle: six streams (168 B), an id (4 B), the reorder's scratch for one share of the
    // streams (48 B) and a 4-byte place in particle_order: 224 B; p2g_gather adds an 80-byte
    // scatter source.
    assert_eq!(particle_bytes(MpmPass::P2gTiled), 168 + 4 + 48 + 4);
    assert_eq!(particle_bytes(MpmPass::P2gGather), 168 + 4 + 48 + 4 + 80);
    for p2g in [MpmPass::P2gTiled, MpmPass::P2gGather] {
        let grid = grid_bytes(&params);
        let max = ((4_000_000_000 - grid) / particle_bytes(p2g)) as usize;
        check_fit(&params, max, p2g, limits).expect("the largest count the error names fits");
        match check_fit(&params, max + 1, p2g, limits) {
            Err(e @ StateError::OutOfMemory { needed, available, max_count, .. }) => {
                assert_eq!((available, max_count), (4_000_000_000, max as u64));
                assert!(needed > available);
                let text = e.to_string();
                assert!(text.contains(&needed.to_string()) && text.contains("4000000000"), "{text}");
            }
            other => panic!("{}: one past the memory gave {other:?}", p2g.name()),
        }
    }
    // Unknown memory (not a Vulkan device) leaves only the binding limit.
    let unknown = DeviceLimits { memory_bytes: None, ..limits };
    check_fit(&params, 100_000_000, MpmPass::P2gTiled, unknown).expect("no memory figure, no memory check");
}
