//! Particles split into pages (`ParticlePage::new_pages`), on lavapipe: a solver whose particles are
//! three pages of at most 1,000 computes the same grid and the same particles, bit for bit, as one
//! whose particles are one page, on every path, with a collider, and through the stats and pick
//! passes. Every particle's fixed-point contributions are the same integers wherever it is stored,
//! and integer sums do not depend on their order, so any difference is a page left out, counted
//! twice or bound to the wrong buffers.

use powder::sim::solver::SolverOptions;

mod common;

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::capacity::page_bytes;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::passes::MpmPass;
use powder::sim::sort::bins::SolverPath;

const H: f64 = 1.0 / 32.0;
/// Particles per page of the paged solvers: the 2,764 particles of [`scene`] make pages of 1,000,
/// 1,000 and 764.
const PAGE: u32 = 1000;

fn params() -> SolverParams {
    common::params(32, H, 2e-4)
}

/// [`common::two_blocks`]: its first block, 1,000 particles, is exactly the first page, and its
/// slab the other two.
fn scene() -> Vec<GpuParticle> {
    common::two_blocks(5)
}

/// One solver with all particles in one page, one with pages of [`PAGE`], on `path`, reordering
/// every third substep on the binned paths.
fn pair(gpu: &Gpu, particles: &[GpuParticle], path: SolverPath) -> (Solver, Solver) {
    let make = |page| {
        let mut solver =
            Solver::with_options(gpu, params(), particles, SolverOptions { page_capacity: page, ..Default::default() })
                .expect("solver");
        solver.set_path(gpu, path).expect("path");
        solver.set_reorder_interval(gpu, 3);
        solver
    };
    let (one, paged) = (make(None), make(Some(PAGE)));
    assert_eq!(one.pages().len(), 1);
    let counts: Vec<u32> = paged.pages().iter().map(|p| p.particle_count).collect();
    assert_eq!(counts, [1000, 1000, particles.len() as u32 - 2000], "pages of the paged solver");
    (one, paged)
}

/// Reads both solvers' particles, asserts they are the same bit for bit (naming how many differ
/// and `what`), and returns the first's.
fn assert_same_particles(gpu: &Gpu, one: &Solver, other: &Solver, what: &str) -> Vec<GpuParticle> {
    let (a, b) = (one.read_particles(gpu).expect("particles"), other.read_particles(gpu).expect("particles"));
    assert_eq!(a.len(), b.len(), "{what}: particle counts");
    let differing = a.iter().zip(&b).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{what}: {differing} of {} particles differ", a.len());
    a
}

/// Particles each page's last sort placed: the page's count on the binned paths, none on the
/// naive path (which does not sort).
fn placed_per_page(gpu: &Gpu, solver: &Solver) -> Vec<u32> {
    solver.read_bin_headers(gpu).expect("bin headers").iter().map(|h| h.particle_total).collect()
}

#[test]
fn one_p2g_over_three_pages_adds_the_same_integers_as_over_one() {
    let gpu = common::gpu();
    let particles = scene();
    for path in SolverPath::ALL {
        let (one, paged) = pair(&gpu, &particles, path);
        for solver in [&one, &paged] {
            solver.run_pass(&gpu, MpmPass::GridClear);
            solver.run_pass(&gpu, MpmPass::P2g);
        }
        // Memory as the capacity check counts it: the same kernel, particles and grid, and two
        // pages' bins more.
        assert_eq!(paged.p2g_pass(), one.p2g_pass());
        assert_eq!(
            paged.gpu_bytes(),
            one.gpu_bytes() + 2 * page_bytes(&params(), powder::sim::grid_pool::GridStorage::Dense),
            "{path:?}: GPU bytes"
        );
        let (a, b) = (one.read_grid_fixed(&gpu).expect("grid"), paged.read_grid_fixed(&gpu).expect("grid"));
        let mass: i64 = a.iter().map(|n| n[0]).sum();
        assert!(mass > 0, "{path:?}: no mass on the grid");
        assert!(a == b, "{path:?}: the fixed-point grids differ");
        if path.is_binned() {
            assert_eq!(placed_per_page(&gpu, &paged), [1000, 1000, 764], "{path:?}: each page sorted its own");
        }
    }
}

#[test]
fn stepping_three_pages_gives_the_particles_of_one_on_every_path() {
    // Runs of 1, 7 and 16 substeps: the fused path's first substep of a run, its g2p2g substeps
    // and its last, each over three pages; reorders on substeps 1, 4, 7, …
    let gpu = common::gpu();
    let particles = scene();
    for path in SolverPath::ALL {
        let (one, paged) = pair(&gpu, &particles, path);
        for run in [1, 7, 16] {
            one.step(&gpu, run);
            paged.step(&gpu, run);
        }
        let expected = if path.is_binned() { vec![1000, 1000, 764] } else { vec![0, 0, 0] };
        assert_eq!(placed_per_page(&gpu, &paged), expected, "{path:?}: the pages' sorts");
        let a = assert_same_particles(&gpu, &one, &paged, &format!("{path:?} with pages"));
        let moved = a.iter().zip(&particles).filter(|(p, q)| p.position != q.position).count();
        assert_eq!(moved, particles.len(), "{path:?}: every particle should have moved");
        assert!(
            one.read_grid_velocity(&gpu).expect("grid") == paged.read_grid_velocity(&gpu).expect("grid"),
            "{path:?}: the grid velocities differ"
        );
        // The stats and pick passes run over every page into the one status buffer.
        let (s, t) = (one.stats(&gpu).expect("stats"), paged.stats(&gpu).expect("stats"));
        assert_eq!(s, t, "{path:?}: stats");
        let (origin, down) = (Vec3::new(0.16, 0.95, 0.16), Vec3::NEG_Y);
        let hit = one.pick(&gpu, origin, down, 0.02).expect("pick");
        assert!(hit.is_some(), "{path:?}: the ray must hit the snow");
        assert_eq!(hit, paged.pick(&gpu, origin, down, 0.02).expect("pick"), "{path:?}: pick");
    }
}

#[test]
fn a_collider_set_after_the_pages_were_made_reaches_every_page() {
    // set_colliders replaces the placeholder collider buffers once the solver exists; the grid
    // update that applies them runs once per substep, over the shared grid, for all pages.
    let gpu = common::gpu();
    let particles = scene();
    let frames = common::ramp(&params());
    let (mut one, mut paged) = pair(&gpu, &particles, SolverPath::Sorted);
    for solver in [&mut one, &mut paged] {
        solver.set_colliders(&gpu, Some(&frames)).expect("colliders");
        for _ in 0..4 {
            solver.step(&gpu, 8);
        }
    }
    assert_same_particles(&gpu, &one, &paged, "with pages and a collider");
    // Removing the collider also reaches every page.
    for solver in [&mut one, &mut paged] {
        solver.set_colliders(&gpu, None).expect("no colliders");
        solver.step(&gpu, 8);
    }
    assert_same_particles(&gpu, &one, &paged, "after the collider was removed");
}

/// The scene drawn offscreen (96 × 64 pixels, particles and volume, 1 sample) from a camera that
/// frames both blocks: the pixels, and how many particles were drawn after culling.
fn draw(gpu: &Gpu, solver: &Solver) -> (Vec<u8>, u32) {
    use powder::render::{Camera, OffscreenTarget, RenderMode, RenderSettings, Renderer};
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let target = OffscreenTarget::new(&gpu.device, 96, 64, format);
    let mut renderer = Renderer::new(&gpu.device, format, 1);
    let mut camera = Camera::default();
    camera.frame(Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.8, 0.6, 0.3));
    let settings = RenderSettings { mode: RenderMode::Both, ..Default::default() };
    let inputs = common::frame_inputs(solver, &camera, &settings, solver.particle_count(), 0.5 * H as f32);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    (target.read_rgba(gpu).expect("readback"), renderer.drawn_particle_count(gpu).expect("drawn"))
}

#[test]
fn three_pages_draw_the_image_of_one() {
    // The volume sums integers, so it is the same whichever page splats first; the pages' visible
    // particles share one list of impostors, each at its own depth.
    let gpu = common::gpu();
    let particles = scene();
    let (one, paged) = pair(&gpu, &particles, SolverPath::Sorted);
    let ((a, drawn_one), (b, drawn_paged)) = (draw(&gpu, &one), draw(&gpu, &paged));
    assert!(drawn_one > 200, "only {drawn_one} particles drawn");
    assert_eq!(drawn_one, drawn_paged, "particles drawn");
    let differing = a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
    assert_eq!(differing, 0, "{differing} of {} pixels differ with pages", a.len() / 4);
}

#[test]
fn every_sorted_p2g_kernel_sums_three_pages_like_one() {
    // p2g_gather writes each touched node's sums once; with several pages it adds them to the
    // cleared grid instead (keep_grid_sums), or a later page's sums would replace an earlier one's.
    // p2g_tiled_subgroup falls back to p2g_tiled where the adapter has no subgroups.
    let gpu = common::gpu();
    let particles = scene();
    for kernel in MpmPass::SORTED_P2G {
        let (mut one, mut paged) = pair(&gpu, &particles, SolverPath::Sorted);
        let used = one.set_p2g(&gpu, kernel);
        assert_eq!(paged.set_p2g(&gpu, kernel), used, "{}: the paged solver's kernel", kernel.name());
        for solver in [&one, &paged] {
            solver.run_pass(&gpu, MpmPass::GridClear);
            solver.run_pass(&gpu, MpmPass::P2g);
        }
        let what = format!("{} over three pages", used.name());
        assert!(
            one.read_grid_fixed(&gpu).expect("grid") == paged.read_grid_fixed(&gpu).expect("grid"),
            "{what}: grids"
        );
        one.step(&gpu, 8);
        paged.step(&gpu, 8);
        assert_same_particles(&gpu, &one, &paged, &what);
    }
}

#[test]
fn past_lavapipes_binding_limit_the_particles_take_two_pages_and_fall_freely() {
    // Without a page size asked for: 141³ = 2,803,221 particles, one lattice point per cell, are
    // more than lavapipe's 128 MiB binding holds of the widest per-particle buffer (2,796,202 of
    // the 48-byte streams, 1,677,721 of p2g_gather's 80-byte sources), so the solver makes two
    // pages of its own accord. One substep of a uniform block at rest is a rigid
    // translation: F = I carries no stress, so every particle away from the walls gets v = g·dt.
    use powder::sim::capacity::{max_page_capacity, max_storage_bytes};
    let gpu = common::gpu();
    assert_eq!(max_storage_bytes(&gpu.device), 128 << 20, "lavapipe's binding limit (shared/PLATFORM.md)");
    let h = 1.0 / 150.0;
    let dt = 1e-4;
    let params = common::params(150, h, dt);
    let lo = Vec3::splat(4.5 * h as f32);
    let particles = common::block(lo, lo + Vec3::splat(141.0 * h as f32), 2.0 * h as f32, 400.0, |_| Vec3::ZERO);
    assert_eq!(particles.len(), 141 * 141 * 141);
    let mut solver = Solver::new(&gpu, params, &particles).expect("solver");
    solver.set_path(&gpu, SolverPath::Sorted).expect("path");
    // As many as the widest per-particle buffer of the solver's P2G kernel fits (48 bytes, or 80
    // with p2g_gather, lavapipe's default).
    let capacity = max_page_capacity(128 << 20, solver.pages()[0].p2g());
    let counts: Vec<u32> = solver.pages().iter().map(|p| p.particle_count).collect();
    assert_eq!(counts, [capacity, particles.len() as u32 - capacity], "pages");
    solver.step(&gpu, 1);
    assert_eq!(placed_per_page(&gpu, &solver), counts, "each page sorted its own");
    let out = solver.read_particles(&gpu).expect("particles");
    // Particles at least 8 cells from every wall: their stencils and the walls' nodes are apart.
    let inside = |p: &GpuParticle| p.position.iter().all(|&x| x > 8.0 * h as f32 && x < 142.0 * h as f32);
    let (mut checked, mut worst) = (0usize, 0f32);
    for (p, q) in out.iter().zip(&particles).filter(|(_, q)| inside(q)) {
        let expected = [0.0, 0.0, -9.81 * dt as f32];
        worst = p.velocity.iter().zip(expected).map(|(v, e)| (v - e).abs()).fold(worst, f32::max);
        checked += 1;
        assert_eq!(p.material, q.material);
    }
    assert!(checked > 2_000_000, "only {checked} interior particles");
    // Fixed-point momentum rounds at ~1e-6 m/s (src/sim/fixed_point.rs): g·dt = 9.81e-4 m/s.
    assert!(worst < 1e-6, "velocity off g·dt by {worst:e} m/s");
}

#[test]
fn a_new_paged_solver_steps_right_before_any_setter() {
    // Straight from the constructor, without set_path or set_dt (which rewrite the uniform
    // blocks): each page's block must already say to keep the grid sums, or the first page's grid
    // update would zero sums the others still read.
    let gpu = common::gpu();
    let particles = scene();
    let one = Solver::with_options(&gpu, params(), &particles, SolverOptions::default()).expect("solver");
    let paged = Solver::with_options(
        &gpu,
        params(),
        &particles,
        SolverOptions { page_capacity: Some(PAGE), ..Default::default() },
    )
    .expect("solver");
    assert_eq!(paged.pages().len(), 3);
    one.step(&gpu, 8);
    paged.step(&gpu, 8);
    assert_same_particles(&gpu, &one, &paged, "on the default path");
}

#[test]
fn a_reset_into_several_pages_steps_like_one_page() {
    // Pages of at most 2,000: the first 1,000 particles are one page, whose p2g_gather stores its
    // sums; replaced by all 2,764 they are two, whose uniform blocks must now say to add them.
    let gpu = common::gpu();
    let particles = scene();
    let mut solver = Solver::with_options(
        &gpu,
        params(),
        &particles[..1000],
        SolverOptions { page_capacity: Some(2000), ..Default::default() },
    )
    .expect("solver");
    solver.set_path(&gpu, SolverPath::Sorted).expect("path");
    assert_eq!(solver.set_p2g(&gpu, MpmPass::P2gGather), MpmPass::P2gGather);
    solver.replace_particles(&gpu, &particles).expect("reset");
    assert_eq!(solver.pages().len(), 2);
    assert_eq!(solver.p2g_pass(), MpmPass::P2gGather, "the reset kept the kernel");
    let mut one = Solver::with_options(&gpu, params(), &particles, SolverOptions::default()).expect("solver");
    one.set_path(&gpu, SolverPath::Sorted).expect("path");
    one.set_p2g(&gpu, MpmPass::P2gGather);
    one.step(&gpu, 8);
    solver.step(&gpu, 8);
    assert_same_particles(&gpu, &one, &solver, "the reset paged solver against one page");
}
