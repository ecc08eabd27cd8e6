//! The grid view's compute pass (`render::grid_view`, lavapipe): planes of node mass, speed and
//! in-plane velocity against the host's computation at the same nodes, on a dense and a sparse grid, and planes of
//! the collider distance against the field the host uploaded, and planes of Jp and stress
//! splatted from the particles against the same sums on the host.
//!
//! Mutation checks done by hand: reading `state.x` instead of `state.w` for mass (both mass/speed
//! tests fail), `length(state.xy)` for speed (both fail), swapping the plane axes of axis 1 in the
//! shader and dropping the block-map lookup (dense indexing on the sparse grid) (the first fails);
//! binding the colliders' start frame instead of the end's (the collider test fails); in the
//! splat, dropping the weight along the plane's normal, the particle mass, or the factor 2 of
//! τ's off-diagonal terms (the Jp and stress test fails each time); the velocity components along
//! the plane's axes swapped, or left 0 in the splatted quantities' pass (the first fails); reading
//! every node on the sorted path, stale ones too (the stale-node test fails).

mod common;

use glam::{Quat, UVec3, Vec3};
use powder::collider::field::{ColliderField, ColliderFrames, FAR};
use powder::collider::shapes::{AnalyticShape, RigidPose, analytic_sdf};
use powder::gpu::Gpu;
use powder::render::grid_view::{GridQuantity, GridSlice, GridView, SliceImage};
use powder::sim::Solver;
use powder::sim::grid_pool::{GridMode, GridStorage};
use powder::sim::params::{Boundary, BoundaryKind, GpuParticle, SolverParams};
use powder::sim::solver::SolverOptions;
use powder::sim::sort::bins::SolverPath;

const H: f64 = 0.125;
/// The block's velocity, m/s.
const V0: Vec3 = Vec3::new(0.3, -0.2, -0.5);

/// 12³ cells of 1/8 m, dt = 1e-3 s.
fn params() -> SolverParams {
    common::params(12, H, 1e-3)
}

/// 512 particles in a 0.5 m cube at 0.5..1.0 m (four cells from every wall), all moving at V0.
fn particles() -> Vec<GpuParticle> {
    common::block(Vec3::splat(0.5), Vec3::splat(1.0), H as f32, 400.0, |_| V0)
}

fn solver(gpu: &Gpu, mode: GridMode) -> Solver {
    let options = SolverOptions { grid_mode: mode, ..Default::default() };
    let mut solver = Solver::with_options(gpu, params(), &particles(), options).expect("solver");
    if mode == GridMode::Sparse {
        // Only the sorted path runs on a sparse grid.
        solver.set_path(gpu, SolverPath::Sorted).expect("the sorted path");
    }
    solver
}

/// The node index along `axis` of the plane through the block's middle, 0.75 m (node 8 of the
/// padded grid: 0.75 m / H + 2 padding nodes).
fn middle_index(p: &SolverParams, axis: usize) -> u32 {
    ((0.75 - p.grid.grid_origin()[axis]) / H).round() as u32
}

/// The plane `slice` computed on the host from the grid read back whole.
fn host_plane(p: &SolverParams, grid: &[[f32; 4]], slice: GridSlice) -> Vec<f32> {
    let dims = p.grid.node_dims();
    let (w, h) = slice.extent(dims);
    let mut out = Vec::new();
    for v in 0..h {
        for u in 0..w {
            let n: UVec3 = slice.node(u, v);
            let s = grid[p.grid.node_index(n.x, n.y, n.z)];
            out.push(match slice.quantity {
                GridQuantity::Mass => s[3],
                GridQuantity::Speed => (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt(),
                _ => unreachable!("the collider field and the splatted quantities are checked on their own"),
            });
        }
    }
    out
}

/// After three substeps, every plane through the block's middle (each axis, both quantities) is
/// the grid the solver reads back, taken apart on the host. Mass is the stored f32 copied: equal
/// bit for bit. Speed is `length()` in WGSL against sqrt(x²+y²+z²) in f32 on the host, which may
/// round differently (fused multiply-adds): 4 ulp relative, 5e-7.
#[test]
fn planes_are_the_grid_read_back_node_for_node() {
    let gpu = common::gpu();
    let p = params();
    let mut view = GridView::new(&gpu.device);
    for mode in [GridMode::Dense, GridMode::Sparse] {
        let solver = solver(&gpu, mode);
        assert_eq!(solver.grid_storage().is_sparse(), mode == GridMode::Sparse);
        solver.step(&gpu, 3);
        let grid = solver.read_grid_velocity(&gpu).expect("grid");
        for axis in 0..3u32 {
            for quantity in [GridQuantity::Mass, GridQuantity::Speed] {
                let slice = GridSlice { axis, index: middle_index(&p, axis as usize), quantity };
                let image = view.read_slice(&gpu, &solver, slice).expect("slice");
                let expected = host_plane(&p, &grid, slice);
                assert_eq!(image.values.len(), expected.len());
                let mut nonzero = 0;
                for (k, (&got, &want)) in image.values.iter().zip(&expected).enumerate() {
                    let tol = match quantity {
                        GridQuantity::Speed => 5e-7 * want,
                        _ => 0.0,
                    };
                    assert!(
                        (got - want).abs() <= tol,
                        "{mode:?} axis {axis} {quantity:?} at {k}: GPU {got}, host {want}"
                    );
                    nonzero += (want > 0.0) as usize;
                }
                // The block covers 4 cells, so its stencils reach 6 × 6 nodes of a middle plane
                // (a check that the comparison saw snow, not only empty nodes).
                assert!(nonzero >= 36, "{mode:?} axis {axis} {quantity:?}: only {nonzero} nodes with snow");
            }
        }
        // Every quantity's plane carries the grid velocity's components along its axes (u, v) and
        // the node mass, copied: equal bit for bit, for the grid-read, collider and splatted passes alike.
        for axis in 0..3u32 {
            let (a, b) = GridSlice::plane_axes(axis);
            for quantity in GridQuantity::ALL {
                let slice = GridSlice { axis, index: middle_index(&p, axis as usize), quantity };
                let image = view.read_slice(&gpu, &solver, slice).expect("slice");
                assert_eq!(image.flow.len(), (image.width * image.height) as usize);
                let mut moving = 0;
                for v in 0..image.height {
                    for u in 0..image.width {
                        let n = slice.node(u, v);
                        let s = grid[p.grid.node_index(n.x, n.y, n.z)];
                        let got = image.flow[(u + image.width * v) as usize];
                        assert_eq!(got, [s[a], s[b]], "{mode:?} axis {axis} {quantity:?} node {n}: flow");
                        let mass = image.mass[(u + image.width * v) as usize];
                        assert_eq!(mass, s[3], "{mode:?} axis {axis} {quantity:?} node {n}: mass");
                        moving += (s[a] != 0.0 && s[b] != 0.0) as usize;
                    }
                }
                // V0 has all three components non-zero, so every node with snow moves in-plane.
                assert!(moving >= 36, "{mode:?} axis {axis} {quantity:?}: only {moving} moving nodes");
            }
        }
        if mode == GridMode::Sparse {
            assert!(matches!(solver.grid_storage(), GridStorage::Sparse { .. }));
        }
    }
}

/// After one substep the grid holds the P2G of the particles as they were made: node mass
/// Σ m_p w_ip (quadratic B-spline weights, in f64 here) and, as all move at V0 with C = 0 and
/// gravity is added on the grid, node velocity V0 + g·dt away from the walls.
#[test]
fn one_substep_planes_are_the_p2g_of_the_particles() {
    let gpu = common::gpu();
    let p = params();
    let parts = particles();
    let solver = solver(&gpu, GridMode::Dense);
    solver.step(&gpu, 1);
    let mut mass = vec![0.0f64; p.grid.node_count() as usize];
    let mut contributions = vec![0u32; mass.len()];
    for q in &parts {
        for (node, w, _) in common::stencil(&p, common::vec3d(q.position)) {
            mass[node] += q.mass as f64 * w;
            contributions[node] += 1;
        }
    }
    let (mass_scale, momentum_scale) = common::gpu_scales(&p);
    let g = p.gravity.as_vec3();
    let speed = (V0 + g * p.dt as f32).length() as f64;
    let mut view = GridView::new(&gpu.device);
    for axis in 0..3u32 {
        let index = middle_index(&p, axis as usize);
        let mass_plane = view.read_slice(&gpu, &solver, GridSlice { axis, index, quantity: GridQuantity::Mass });
        let speed_plane = view.read_slice(&gpu, &solver, GridSlice { axis, index, quantity: GridQuantity::Speed });
        let (mass_plane, speed_plane): (SliceImage, SliceImage) = (mass_plane.unwrap(), speed_plane.unwrap());
        assert!((mass_plane.position - 0.75).abs() < 1e-12, "plane at {} m", mass_plane.position);
        let mut checked = 0;
        for v in 0..mass_plane.height {
            for u in 0..mass_plane.width {
                let n = mass_plane.slice.node(u, v);
                let i = p.grid.node_index(n.x, n.y, n.z);
                let k = (u + mass_plane.width * v) as usize;
                // Each contribution is rounded to a fixed-point unit (half a unit at most), the
                // f32 weights to ~1e-7 relative and the node's f32 result to 6e-8 relative.
                let c = contributions[i] as f64;
                let tol = 0.5 * c / mass_scale + 1e-6 * mass[i];
                let got = mass_plane.values[k] as f64;
                assert!((got - mass[i]).abs() <= tol, "axis {axis} node {n}: GPU mass {got}, host {}", mass[i]);
                // Speed where the node is well inside the snow's mass (1 % of a full node), so
                // the momentum's rounding divided by the mass stays small: momentum units of
                // half a unit per contribution, and the mass's, times the speed, over the mass.
                let full = parts[0].mass as f64 * 8.0;
                if mass[i] > 0.01 * full {
                    let tol = (0.5 * c / momentum_scale + speed * 0.5 * c / mass_scale) / mass[i] + 1e-6 * speed;
                    let got = speed_plane.values[k] as f64;
                    assert!((got - speed).abs() <= tol, "axis {axis} node {n}: GPU speed {got}, expected {speed}");
                    checked += 1;
                }
            }
        }
        assert!(checked >= 36, "axis {axis}: only {checked} nodes checked");
    }
}

/// A floor tilted 20° about x through (0.75, 0.75, `height`), as a collider field of the grid.
fn floor(p: &SolverParams, height: f32) -> ColliderField {
    let pose = RigidPose::at_rest(Vec3::new(0.75, 0.75, height), Quat::from_rotation_x(20f32.to_radians()));
    let sdf = analytic_sdf(AnalyticShape::HalfSpace, &pose, &p.grid);
    let mut field = ColliderField::empty(p.grid.node_count() as usize);
    field.add(0, &sdf.distance, &sdf.normal, &sdf.velocity);
    field
}

/// The collider distance plane is the field at the end of the frame (the floor at 0.3 m, not the
/// start's at 0.2 m), node for node: the stored f32 copied, so equal. Where a collider is near,
/// it is also the tilted plane's signed distance (x − c)·n computed here in f64 from the node's
/// position, within 1e-6 m: positions of ~1.5 m in f32 round to 1.2e-7 m, a few of those.
#[test]
fn collider_distance_plane_is_the_field_at_the_frames_end() {
    let gpu = common::gpu();
    let p = params();
    let mut solver = solver(&gpu, GridMode::Dense);
    let frames = ColliderFrames {
        from: floor(&p, 0.2),
        to: floor(&p, 0.3),
        surfaces: vec![Boundary { kind: BoundaryKind::Slip, friction: 0.0 }],
    };
    solver.set_colliders(&gpu, Some(&frames)).expect("colliders fit");
    let angle = 20f64.to_radians();
    let normal = glam::DVec3::new(0.0, -angle.sin(), angle.cos());
    let centre = glam::DVec3::new(0.75, 0.75, 0.3);
    let mut view = GridView::new(&gpu.device);
    for axis in 0..3u32 {
        let slice =
            GridSlice { axis, index: middle_index(&p, axis as usize), quantity: GridQuantity::ColliderDistance };
        let image = view.read_slice(&gpu, &solver, slice).expect("slice");
        let mut near = 0;
        for v in 0..image.height {
            for u in 0..image.width {
                let n = slice.node(u, v);
                let i = p.grid.node_index(n.x, n.y, n.z);
                let got = image.values[(u + image.width * v) as usize];
                let want = frames.to.nodes[i].distance;
                assert_eq!(got, want, "axis {axis} node {n}: GPU {got}, field {want}");
                if got < FAR {
                    let x = p.grid.grid_origin() + n.as_dvec3() * H;
                    let plane = (x - centre).dot(normal);
                    assert!((got as f64 - plane).abs() < 1e-6, "axis {axis} node {n}: {got} m, plane {plane} m");
                    near += 1;
                }
            }
        }
        assert!(near >= 20, "axis {axis}: only {near} nodes near the floor");
    }
}

/// The block with Jp from 0.9 to 1.1 growing along x + z and F = I + a fixed mix of shears and
/// stretches growing along x + y, so both splatted quantities vary over every plane.
fn deformed_particles() -> Vec<GpuParticle> {
    let mut parts = particles();
    for q in &mut parts {
        // Both in 0..1 over the block, each varying on every axis-aligned plane through it.
        let s = (q.position[0] + q.position[2] - 1.0) / 1.0;
        let t = (q.position[1] + q.position[0] - 1.0) / 1.0;
        q.plastic_jacobian = 0.9 + 0.2 * s;
        // Masses from 0.5 to 1.5 times the lattice's, so the weighting by mass shows.
        q.mass *= 0.5 + t;
        let f = glam::Mat3::from_cols_array(&[1.0, 0.01, 0.0, 0.02, 1.0, -0.01, 0.0, 0.015, 1.0]);
        let f = glam::Mat3::IDENTITY + (f - glam::Mat3::IDENTITY) * (1.0 + 4.0 * t) + glam::Mat3::IDENTITY * 0.01 * t;
        q.deformation = common::padded(f);
    }
    parts
}

/// Jp and |τ| splatted onto planes through the block as uploaded, against the host: the
/// same sums Σ w m q / Σ w m over each node's particles in f64, with the stencil of
/// `common::stencil` and τ from `cpu::p2g::kirchhoff_stress` of the particle's F, Jp and damage. The GPU
/// adds f32 terms in any order (up to 27 · 8 = 216 per node here: about 216 × 6e-8 ≈ 1.3e-5
/// relative at worst) and its τ comes from the f32 `stress` pass (1e-5 relative of |τ|): 5e-5 of
/// the value, relative.
#[test]
fn jp_and_stress_planes_are_the_mass_weighted_particle_values() {
    let gpu = common::gpu();
    let p = params();
    let parts = deformed_particles();
    let solver = Solver::new(&gpu, p, &parts).expect("solver");
    // The `stress` pass fills the stored τ of the uploaded F and Jp.
    solver.run_pass(&gpu, powder::sim::passes::MpmPass::Stress);
    let nodes = p.grid.node_count() as usize;
    let (mut wm, mut wjp, mut wtau) = (vec![0.0f64; nodes], vec![0.0f64; nodes], vec![0.0f64; nodes]);
    for q in &parts {
        let f = common::mat3d(&q.deformation);
        let tau = powder::sim::cpu::p2g::kirchhoff_stress(&p.material, &f, q.plastic_jacobian as f64, q.damage as f64);
        for (node, w, _) in common::stencil(&p, common::vec3d(q.position)) {
            let m = w * q.mass as f64;
            wm[node] += m;
            wjp[node] += m * q.plastic_jacobian as f64;
            wtau[node] += m * tau.norm();
        }
    }
    let mut view = GridView::new(&gpu.device);
    for axis in 0..3u32 {
        for (quantity, sums) in [(GridQuantity::PlasticJacobian, &wjp), (GridQuantity::Stress, &wtau)] {
            let slice = GridSlice { axis, index: middle_index(&p, axis as usize), quantity };
            let image = view.read_slice(&gpu, &solver, slice).expect("slice");
            let (mut seen, mut lo, mut hi) = (0, f64::INFINITY, 0.0f64);
            for v in 0..image.height {
                for u in 0..image.width {
                    let n = slice.node(u, v);
                    let i = p.grid.node_index(n.x, n.y, n.z);
                    let got = image.values[(u + image.width * v) as usize] as f64;
                    let want = if wm[i] > 0.0 { sums[i] / wm[i] } else { 0.0 };
                    assert!(
                        (got - want).abs() <= 5e-5 * want.abs(),
                        "axis {axis} {quantity:?} node {n}: GPU {got}, host {want}"
                    );
                    if wm[i] > 0.0 {
                        (seen, lo, hi) = (seen + 1, lo.min(want), hi.max(want));
                    }
                }
            }
            assert!(seen >= 36, "axis {axis} {quantity:?}: only {seen} nodes with particles");
            // The plane shows a spread of values, not one: the comparison sees the weighting.
            assert!(hi > 1.02 * lo, "axis {axis} {quantity:?}: values {lo}..{hi}");
        }
    }
}

/// On the binned paths the grid update visits only the blocks the last substep's stencils
/// touched, and nodes the snow has left keep their old state in `grid_velocity`. A block of snow
/// moving at 6 m/s along x for 100 substeps (0.6 m) leaves such nodes in the grid block it started
/// in: on the plane x = 0.125 m (node 3), which its first stencils reached (the lowest particles
/// sit at 0.28 m, stencil base node 3), the grid read back still holds mass, and the view shows
/// none (no trail), on the sorted path. (The next block, nodes 4..7, is still touched by the snow's
/// stencils and so updated, empty.) On the naive path every node is updated,
/// and the view is the grid read back (all empty) as well.
#[test]
fn planes_show_no_stale_nodes_where_the_snow_has_left() {
    let gpu = common::gpu();
    let p = params();
    let parts = common::block(Vec3::new(0.25, 0.5, 0.5), Vec3::new(0.5, 1.0, 1.0), H as f32, 400.0, |_| {
        Vec3::new(6.0, 0.0, 0.0)
    });
    let index = ((0.125 - p.grid.grid_origin()[0]) / H).round() as u32;
    assert_eq!(index, 3);
    let mut view = GridView::new(&gpu.device);
    for path in [SolverPath::Sorted, SolverPath::Naive] {
        let mut solver = Solver::new(&gpu, p, &parts).expect("solver");
        solver.set_path(&gpu, path).expect("path");
        solver.step(&gpu, 100);
        let grid = solver.read_grid_velocity(&gpu).expect("grid");
        let slice = GridSlice { axis: 0, index, quantity: GridQuantity::Mass };
        let stale = host_plane(&p, &grid, slice).iter().filter(|&&m| m > 0.0).count();
        match path {
            // The trap is there: the grid still holds the snow's old mass on the plane.
            SolverPath::Sorted => assert!(stale >= 36, "{path:?}: only {stale} stale nodes"),
            _ => assert_eq!(stale, 0, "{path:?}: the naive path updates every node"),
        }
        for quantity in GridQuantity::ALL {
            let image = view.read_slice(&gpu, &solver, GridSlice { quantity, ..slice }).expect("slice");
            let empty = |k: usize| match quantity {
                GridQuantity::ColliderDistance => image.values[k] >= FAR,
                _ => image.values[k] == 0.0,
            };
            for k in 0..image.values.len() {
                assert!(
                    empty(k) && image.mass[k] == 0.0 && image.flow[k] == [0.0, 0.0],
                    "{path:?} {quantity:?} node {k}: value {}, mass {}, flow {:?} where no snow is",
                    image.values[k],
                    image.mass[k],
                    image.flow[k]
                );
            }
        }
        // Where the snow is now, the plane is the grid read back (the snow is seen, not blanked).
        let now = ((0.975 - p.grid.grid_origin()[0]) / H).round() as u32;
        let here = GridSlice { axis: 0, index: now, quantity: GridQuantity::Mass };
        let image = view.read_slice(&gpu, &solver, here).expect("slice");
        let expected = host_plane(&p, &grid, here);
        assert_eq!(image.values, expected, "{path:?}: the plane through the snow");
        assert!(expected.iter().filter(|&&m| m > 0.0).count() >= 36, "{path:?}: no snow at x = 0.975 m");
    }
}

/// The outline the app draws in the scene: a plane's corners are its extreme nodes' positions,
/// origin + node · h, the index clamped to the grid.
#[test]
fn plane_corners_are_the_extreme_nodes() {
    let p = params();
    let (o, last) = (p.grid.grid_origin(), (p.grid.node_dims() - UVec3::ONE).as_dvec3());
    let slice = GridSlice { axis: 1, index: 8, quantity: GridQuantity::Mass };
    let y = o.y + 8.0 * H;
    let want = [
        glam::DVec3::new(o.x, y, o.z),
        glam::DVec3::new(o.x + last.x * H, y, o.z),
        glam::DVec3::new(o.x + last.x * H, y, o.z + last.z * H),
        glam::DVec3::new(o.x, y, o.z + last.z * H),
    ];
    assert_eq!(slice.corners(&p.grid), want);
    // Past the grid's end the plane is its last node plane, as read_slice clamps it.
    let far = GridSlice { axis: 0, index: 1000, quantity: GridQuantity::Mass }.corners(&p.grid);
    assert!(far.iter().all(|c| c.x == o.x + last.x * H), "{far:?}");
}

/// The app's read does not wait on the device: right after `start_read` the plane is not there
/// (nothing has polled the device since its submission), and once polls without waiting have run
/// the mapping, it is the blocking read's plane, bit for bit (same passes, same grid), given once.
#[test]
fn a_started_read_is_pending_until_polled_and_then_is_the_blocking_reads_plane() {
    let gpu = common::gpu();
    let p = params();
    let mut view = GridView::new(&gpu.device);
    let solver = solver(&gpu, GridMode::Sparse);
    solver.step(&gpu, 3);
    let slice = GridSlice { axis: 1, index: middle_index(&p, 1), quantity: GridQuantity::Speed };
    let blocking = view.read_slice(&gpu, &solver, slice).expect("slice");
    assert!(blocking.values.iter().any(|&v| v > 0.0), "the plane holds moving snow");
    let pending = view.start_read(&gpu, &solver, slice);
    assert!(pending.take().is_none(), "the plane came back before the device was polled");
    let start = std::time::Instant::now();
    let image = loop {
        gpu.poll(None, None);
        if let Some(image) = pending.take() {
            break image.expect("slice");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(60), "the plane never came back");
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    assert_eq!(image, blocking);
    assert!(pending.take().is_none(), "a plane is taken once");
}
