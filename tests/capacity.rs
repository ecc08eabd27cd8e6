//! The solver's up-front capacity check (GPU-free): a particle count or grid that does not fit is
//! refused before anything is allocated, with the numbers, and the largest count it names fits.

use powder::sim::capacity::{DeviceLimits, PageLayout, check_fit, grid_bytes, page_bytes, particle_bytes};
use powder::sim::grid_pool::GridStorage;
use powder::sim::page::StateError;
use powder::sim::particles::WIDEST_STREAM_BYTES;
use powder::sim::passes::MpmPass;

mod common;

/// The H100's limits as wgpu reports them (shared/PLATFORM.md): a 2 GiB binding less 4 bytes, and
/// about 80 GB of device memory.
const H100: DeviceLimits = DeviceLimits { binding_bytes: 2_147_483_644, memory_bytes: Some(85_000_000_000) };

#[test]
fn sixteen_million_particles_are_one_page_and_past_one_binding_the_particles_take_pages() {
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    // One page holds as many particles as the widest per-particle buffer (48 bytes) fits in a binding.
    let max = (H100.binding_bytes / WIDEST_STREAM_BYTES) as u32;
    assert_eq!(max, 44_739_242);
    let fit = |count: usize, pages: Option<u32>| {
        check_fit(&params, count, MpmPass::P2gTiled, H100, pages, GridStorage::Dense)
    };
    assert_eq!(fit(16_003_008, None).expect("the issue's 16M case fits"), PageLayout { capacity: max, pages: 1 });
    assert_eq!(fit(max as usize, None).expect("a full page"), PageLayout { capacity: max, pages: 1 });
    assert_eq!(fit(max as usize + 1, None).expect("one past a page"), PageLayout { capacity: max, pages: 2 });
    assert_eq!(fit(3 * max as usize, None).expect("three pages"), PageLayout { capacity: max, pages: 3 });
    // Pages asked for: smaller ones are made; one past the binding is refused with the numbers.
    assert_eq!(fit(2500, Some(1000)).expect("small pages"), PageLayout { capacity: 1000, pages: 3 });
    match fit(max as usize + 5, Some(max + 1)) {
        Err(e @ StateError::PageTooLarge { .. }) => {
            let text = e.to_string();
            assert!(text.contains(&format!("at most {max} particles fit in one page")), "{text}");
        }
        other => panic!("a page one past the binding limit gave {other:?}"),
    }
    assert!(matches!(fit(1000, Some(0)), Err(StateError::PageTooLarge { .. })), "an empty page");
    // A page asked for larger than the particles is as large as they are.
    assert_eq!(fit(1000, Some(max + 1)).expect("one small page"), PageLayout { capacity: 1000, pages: 1 });
}

#[test]
fn p2g_gathers_scatter_sources_are_the_widest_buffer_where_it_runs() {
    // 80 bytes per particle (GpuScatterSource) against the streams' 48: smaller pages.
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    let max = (H100.binding_bytes / 80) as u32;
    let layout =
        check_fit(&params, max as usize + 1, MpmPass::P2gGather, H100, None, GridStorage::Dense).expect("two pages");
    assert_eq!(layout, PageLayout { capacity: max, pages: 2 });
    // Switching a solver with full 48-byte pages to p2g_gather keeps its pages, which are too large.
    let full = (H100.binding_bytes / WIDEST_STREAM_BYTES) as u32;
    assert!(matches!(
        check_fit(&params, full as usize, MpmPass::P2gGather, H100, Some(full), GridStorage::Dense),
        Err(StateError::PageTooLarge { per_particle: 80, .. })
    ));
}

#[test]
fn more_particles_than_u32_indices_are_refused() {
    let limits = DeviceLimits { binding_bytes: u64::MAX, memory_bytes: None };
    let params = common::params(64, 1.0 / 64.0, 1e-4);
    let count = u32::MAX as usize + 1;
    match check_fit(&params, count, MpmPass::P2gTiled, limits, None, GridStorage::Dense) {
        Err(StateError::TooManyParticles { count: c, max_count }) => {
            assert_eq!((c, max_count), (count, u32::MAX as u64));
        }
        other => panic!("2^32 particles gave {other:?}"),
    }
}

#[test]
fn with_pages_the_memory_is_the_limit_and_the_count_it_names_fits() {
    // The H100's binding with 20 GB of memory: about 89M particles, two pages, each with bins of its own.
    let limits = DeviceLimits { memory_bytes: Some(20_000_000_000), ..H100 };
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    let count = 100_000_000;
    let Err(StateError::OutOfMemory { max_count, needed, .. }) =
        check_fit(&params, count, MpmPass::P2gTiled, limits, None, GridStorage::Dense)
    else {
        panic!("100M particles fit 20 GB");
    };
    assert!(needed > 20_000_000_000);
    let layout = check_fit(&params, max_count as usize, MpmPass::P2gTiled, limits, None, GridStorage::Dense)
        .expect("the count named fits");
    assert_eq!(layout.pages, 2);
    assert!(
        check_fit(&params, max_count as usize + 1, MpmPass::P2gTiled, limits, None, GridStorage::Dense).is_err(),
        "and no more"
    );
    // The second page's bins are counted: the count is below what the particles' bytes alone allow.
    let by_particles = (20_000_000_000 - grid_bytes(&params, GridStorage::Dense)) / particle_bytes(MpmPass::P2gTiled);
    assert!(by_particles - max_count >= page_bytes(&params, GridStorage::Dense) / particle_bytes(MpmPass::P2gTiled));
}

#[test]
fn a_count_past_the_memory_is_refused_with_needed_and_available_bytes() {
    // A 4 GB GPU with an unlimited binding, so memory alone decides.
    let limits = DeviceLimits { binding_bytes: u64::MAX, memory_bytes: Some(4_000_000_000) };
    let params = common::params(256, 1.0 / 256.0, 1e-4);
    // Per particle: six streams (176 B, with the 16-byte Jp, damage and strength stream), an id
    // (4 B), the reorder's scratch for one share of the streams (48 B) and a 4-byte place in
    // particle_order: 232 B; p2g_gather adds an 80-byte scatter source.
    assert_eq!(particle_bytes(MpmPass::P2gTiled), 176 + 4 + 48 + 4);
    assert_eq!(particle_bytes(MpmPass::P2gGather), 176 + 4 + 48 + 4 + 80);
    for p2g in [MpmPass::P2gTiled, MpmPass::P2gGather] {
        let grid = grid_bytes(&params, GridStorage::Dense);
        let max = ((4_000_000_000 - grid) / particle_bytes(p2g)) as usize;
        check_fit(&params, max, p2g, limits, None, GridStorage::Dense).expect("the largest count the error names fits");
        match check_fit(&params, max + 1, p2g, limits, None, GridStorage::Dense) {
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
    check_fit(&params, 100_000_000, MpmPass::P2gTiled, unknown, None, GridStorage::Dense)
        .expect("no memory figure, no memory check");
}

#[test]
fn a_sparse_grid_is_bounded_by_its_pool_and_block_bins_not_the_dense_grid() {
    // 800³ cells: 805³ = 521,660,125 nodes. Dense, grid_fixed needs 16.7 GB, past the 2 GiB
    // binding. Sparse, the pool of 5,488 blocks (the bench's 1M case) needs 11 MB, its cell
    // counters 1.4 MB, and what stays per block of the domain, 202³ = 8,242,408 blocks, 28 bytes
    // each: the bin (16), the two list entries (8) and the map (4).
    let params = common::params(800, 1.0 / 800.0, 1e-5);
    let sparse = GridStorage::Sparse { pool_blocks: 5488 };
    match check_fit(&params, 1_000_000, MpmPass::P2gTiled, H100, None, GridStorage::Dense) {
        Err(StateError::GridTooLarge { bytes, max_resolution, .. }) => {
            assert_eq!(bytes, 521_660_125 * 32);
            // 406³ nodes of 32 bytes (2.14 GB) fit the binding: 401 cells plus the padding.
            assert_eq!(max_resolution, 401);
        }
        other => panic!("the dense 800³ grid gave {other:?}"),
    }
    assert!(check_fit(&params, 1_000_000, MpmPass::P2gTiled, H100, None, sparse).is_ok());
    let blocks = 202u64 * 202 * 202;
    assert_eq!(grid_bytes(&params, sparse), 5488 * 64 * 48 + blocks * 28 + 5488 * 256 + 1024);
    assert_eq!(page_bytes(&params, sparse), blocks * 24 + 5488 * 256 + 1024);
    // 1700³ cells: 1705³ nodes are past u32 numbering (and their block bins, 2.5 GB, past the
    // binding); the largest resolution named fits.
    let params = common::params(1700, 1.0 / 1700.0, 1e-5);
    match check_fit(&params, 1_000_000, MpmPass::P2gTiled, H100, None, sparse) {
        Err(StateError::GridTooLarge { max_resolution, .. }) => {
            assert!((1500..1700).contains(&max_resolution), "{max_resolution}");
            let fits = common::params(max_resolution, 1.0 / max_resolution as f64, 1e-5);
            assert!(check_fit(&fits, 1_000_000, MpmPass::P2gTiled, H100, None, sparse).is_ok());
        }
        other => panic!("the sparse 1700³ grid gave {other:?}"),
    }
}

#[test]
fn collider_fields_are_bounded_like_a_dense_grid_on_any_grid() {
    // One frame's field takes 32 bytes per node of the whole domain, as grid_fixed does on a dense
    // grid: on the H100, 400³ cells (405³ nodes, 2.13 GB) fit one binding and 800³ do not, though
    // a sparse grid holds 800³ without colliders. The error names the dense grid's bound.
    use powder::sim::capacity::collider_fields_fit;
    assert!(collider_fields_fit(&common::params(400, 1.0 / 400.0, 1e-5), H100.binding_bytes).is_ok());
    match collider_fields_fit(&common::params(800, 1.0 / 800.0, 1e-5), H100.binding_bytes) {
        Err(e @ StateError::CollidersTooLarge { max_resolution: 401, .. }) => {
            assert!(e.to_string().contains("at most 401"), "{e}");
        }
        other => panic!("800³ with colliders gave {other:?}"),
    }
}

/// The largest single allocation this thread has asked for, and allocations past
/// [`REFUSED_ALLOCATION`] refused (as a host without that much memory would), so that a check
/// that came too late fails the test at once instead of filling gigabytes.
mod allocations {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    pub const REFUSED_ALLOCATION: usize = 1 << 30;

    thread_local! {
        static LARGEST: Cell<usize> = const { Cell::new(0) };
    }

    pub struct Watched;

    fn note(size: usize) -> bool {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
        size <= REFUSED_ALLOCATION
    }

    // SAFETY: every call is passed on to the system allocator unchanged, or refused with null.
    unsafe impl GlobalAlloc for Watched {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if note(layout.size()) { unsafe { System.alloc(layout) } } else { std::ptr::null_mut() }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if note(layout.size()) { unsafe { System.alloc_zeroed(layout) } } else { std::ptr::null_mut() }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if note(new_size) { unsafe { System.realloc(ptr, layout, new_size) } } else { std::ptr::null_mut() }
        }
    }

    /// The largest allocation asked for on this thread since the last call.
    pub fn take_largest() -> usize {
        LARGEST.with(|l| l.replace(0))
    }
}

#[global_allocator]
static ALLOCATOR: allocations::Watched = allocations::Watched;

#[test]
fn a_scene_past_the_gpu_is_refused_before_its_particles_are_allocated() {
    use powder::runner::spawn_checked;
    use powder::scene::Scene;
    // The default scene (a 0.3 m ball in a 2 m domain) at grid 400 and 64 particles per cell: a
    // lattice of 481³ = 111M points (16 GB as particles, which the first fill asked for), of which
    // 4/3 π 0.3³ / s³ ≈ 57.9M are kept (s = 2/400/4 m). At 224 GPU bytes each that is 13 GB: past
    // a 12 GB GPU.
    let mut scene = Scene::builtin_default();
    scene.grid.resolution = 400;
    scene.particles_per_cell = 64;
    let gpu_12gb = DeviceLimits { binding_bytes: 2_147_483_644, memory_bytes: Some(12_000_000_000) };
    allocations::take_largest();
    let refused = spawn_checked(&scene, gpu_12gb, "big.json", &mut |_| {});
    let largest = allocations::take_largest();
    let text = refused.map(|p| p.len()).expect_err("13 GB of particles on a 12 GB GPU").to_string();
    assert!(text.starts_with("big.json: 57"), "{text}");
    assert!(text.contains("particles on a grid of") && text.contains("but this GPU has 12000000000"), "{text}");
    let max_count: u64 = text.rsplit("at most ").next().and_then(|t| t.split(' ').next()).unwrap().parse().unwrap();
    assert!((50_000_000..57_000_000).contains(&max_count), "{text}");
    // The lattice's bits (111M / 8 = 14 MB) were the largest allocation, not the particles.
    assert!(largest < 20_000_000, "largest allocation {largest} bytes");
}
