//! Collider meshes drawn offscreen on lavapipe: a box mesh covers its silhouette and nothing
//! else, hides and is hidden by snow by depth, and follows each upload.

mod common;

use common::offscreen::*;
use glam::{Vec2, Vec3};
use powder::gpu::Gpu;
use powder::mesh::TriangleMesh;
use powder::render::{Camera, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

const MESH_SIZE: (u32, u32) = (160, 120);

/// An axis-aligned box as 12 triangles, counter-clockwise seen from outside; `inward` reverses them.
fn box_mesh((lo, hi): (Vec3, Vec3), inward: bool) -> TriangleMesh {
    let positions: Vec<Vec3> =
        (0..8).map(|c| Vec3::select(glam::BVec3::new(c & 1 != 0, c & 2 != 0, c & 4 != 0), hi, lo)).collect();
    let centre = 0.5 * (lo + hi);
    let mut triangles = Vec::new();
    for axis in 0..3 {
        for side in 0..2u32 {
            // The face's corners in the order of the other two axes' bits: a, b, c, d around a quad
            // as (0, 0), (1, 0), (0, 1), (1, 1).
            let (u, v) = (1 << ((axis + 1) % 3), 1 << ((axis + 2) % 3));
            let base = side << axis;
            for tri in [[base, base | u, base | v], [base | u, base | u | v, base | v]] {
                let [a, b, c] = tri.map(|i| positions[i as usize]);
                let outward = (b - a).cross(c - a).dot((a + b + c) / 3.0 - centre) > 0.0;
                triangles.push(if outward != inward { tri } else { [tri[0], tri[2], tri[1]] });
            }
        }
    }
    TriangleMesh { positions, triangles }
}

/// One renderer and target drawing successive frames, as the app does.
struct MeshView {
    renderer: Renderer,
    target: OffscreenTarget,
}

impl MeshView {
    fn new(gpu: &Gpu, samples: u32, camera: &Camera) -> Self {
        let format = wgpu::TextureFormat::Rgba8UnormSrgb;
        let target = OffscreenTarget::new(&gpu.device, MESH_SIZE.0, MESH_SIZE.1, format);
        let mut renderer = Renderer::new(&gpu.device, format, samples);
        renderer.set_sun_direction(shoulder_sun(camera));
        Self { renderer, target }
    }

    fn draw(&mut self, gpu: &Gpu, solver: &Solver, camera: &Camera, mode: RenderMode, count: u32) -> Image {
        let settings = RenderSettings { mode, ..Default::default() };
        let frame = common::frame_inputs(solver, camera, &settings, count, 0.25 * H);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.renderer.render(&gpu.device, &gpu.queue, &mut encoder, self.target.view(), &frame);
        gpu.queue.submit([encoder.finish()]);
        let pixels = self.target.read_rgba(gpu).expect("readback");
        Image { pixels, width: MESH_SIZE.0, height: MESH_SIZE.1 }
    }
}

/// Pixel position of a world point in a MESH_SIZE image.
fn project_small(camera: &Camera, p: Vec3) -> Vec2 {
    let (w, h) = (MESH_SIZE.0 as f32, MESH_SIZE.1 as f32);
    let ndc = camera.view_projection(w / h).project_point3(p);
    Vec2::new((ndc.x + 1.0) * 0.5 * w, (1.0 - ndc.y) * 0.5 * h)
}

/// Signed distance in pixels from `p` to the edge of the convex hull of the box's projected
/// corners: positive inside.
fn hull_distance(camera: &Camera, (lo, hi): (Vec3, Vec3), p: Vec2) -> f32 {
    let corners: Vec<Vec2> = (0..8)
        .map(|c| project_small(camera, Vec3::select(glam::BVec3::new(c & 1 != 0, c & 2 != 0, c & 4 != 0), hi, lo)))
        .collect();
    // Every pair of corners with all others on one side is a hull edge; the distance is the
    // smallest over those edges, measured toward the side the other corners lie on.
    let mut distance = f32::INFINITY;
    for (i, &a) in corners.iter().enumerate() {
        for &b in &corners[i + 1..] {
            let edge = b - a;
            if edge.length() < 1e-3 {
                continue;
            }
            let side = |q: Vec2| edge.perp_dot(q - a) / edge.length();
            let (min, max) = corners.iter().fold((0.0f32, 0.0f32), |(lo, hi), &q| (lo.min(side(q)), hi.max(side(q))));
            if min > -1e-3 {
                distance = distance.min(side(p));
            } else if max < 1e-3 {
                distance = distance.min(-side(p));
            }
        }
    }
    distance
}

/// The box most mesh tests draw: around the lower half of BLOCK, wider than it.
const MESH_BOX: (Vec3, Vec3) = (Vec3::new(0.3, 0.3, 0.0), Vec3::new(0.7, 0.7, 0.25));

/// Whether a pixel reads as the mesh: grey-blue, neither snow nor as bright as the sky. Measured in
/// these views: the box's faces from (0.40, 0.47, 0.61) to (0.55, 0.61, 0.75), blue at least 0.19
/// above red; near lit ground tiles (0.54, 0.56, 0.60), blue 0.06 above red. The far ground hazes
/// into the horizon's blue and can pass, so the tests also compare with the frame without a mesh.
fn is_mesh(c: Vec3) -> bool {
    !is_snow(c) && c.z > c.x + 0.12 && c.max_element() < 0.8 && c.min_element() > 0.3
}

#[test]
fn a_box_mesh_covers_its_silhouette_and_nothing_else() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    for samples in [1, 4] {
        let mut view = MeshView::new(&gpu, samples, &camera);
        let background = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
        view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(MESH_BOX, false)]);
        assert_eq!(view.renderer.mesh_triangle_count(), 12);
        let image = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
        let (mut inside, mut outside, mut least_change, mut worst_outside) = (0, 0, f32::INFINITY, 0.0f32);
        for y in 0..MESH_SIZE.1 {
            for x in 0..MESH_SIZE.0 {
                let d = hull_distance(&camera, MESH_BOX, Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                let change = (image.rgb(x, y) - background.rgb(x, y)).abs().max_element();
                if d >= 2.0 {
                    inside += 1;
                    least_change = least_change.min(change);
                    assert!(is_mesh(image.rgb(x, y)), "{samples}x: ({x}, {y}) inside the box is {}", image.rgb(x, y));
                } else if d <= -2.0 {
                    outside += 1;
                    worst_outside = worst_outside.max(change);
                }
            }
        }
        println!(
            "{samples}x: {inside} px inside, least change {least_change:.3}; {outside} outside, worst {worst_outside}"
        );
        assert!(inside > 1500, "{samples}x: the box covers only {inside} px");
        // The box is lit from over the camera's shoulder. Its least contrast is a side face against
        // a light ground tile (bluer, darker red): measured 0.063 of the largest channel.
        assert!(least_change > 0.04, "{samples}x: a pixel inside the box changed by only {least_change}");
        // Outside the silhouette the same shaders see the same inputs: the image is unchanged.
        assert!(worst_outside <= 1.0 / 255.0 + 1e-6, "{samples}x: outside the box a pixel changed by {worst_outside}");
        // Both faces are lit: the box wound inside out looks the same.
        view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(MESH_BOX, true)]);
        let inverted = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
        let worst = inverted.pixels.iter().zip(&image.pixels).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
        assert!(worst <= 1, "{samples}x: the inside-out box differs by {worst} levels");
    }
}

#[test]
fn a_box_mesh_and_snow_hide_each_other_by_depth() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let mut view = MeshView::new(&gpu, 1, &camera);
    let count = solver.particle_count();
    let snow_only = view.draw(&gpu, &solver, &camera, RenderMode::Particles, count);
    let volume_only = view.draw(&gpu, &solver, &camera, RenderMode::Volume, count);
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(MESH_BOX, false)]);
    let both = view.draw(&gpu, &solver, &camera, RenderMode::Particles, count);
    let volume = view.draw(&gpu, &solver, &camera, RenderMode::Volume, count);
    // On the near face (+x) of the snow block: below z = 0.25 the box's own +x face (x = 0.7) is in
    // front of it; above, the snow sticks out of the box, with the box's top face behind it.
    let hidden = project_small(&camera, Vec3::new(0.65, 0.5, 0.15));
    let exposed = project_small(&camera, Vec3::new(0.65, 0.5, 0.33));
    let (before, after) = (snow_only.mean(hidden, 1), both.mean(hidden, 1));
    println!("lower half: snow {before}, with the box {after}; upper half {}", both.mean(exposed, 1));
    assert!(is_snow(before) && is_mesh(after), "the box does not hide the lower half: {before} → {after}");
    let upper = both.mean(exposed, 1);
    assert!(is_snow(upper), "the snow above the box is {upper}");
    assert!((upper - snow_only.mean(exposed, 1)).abs().max_element() < 0.02, "the box changed the snow above it");
    // The volume raymarch stops at the mesh's depth: the volume shows snow there without the box,
    // and with it the box's colour as in the particle view (a march of at most a voxel of empty
    // space between the occupied box's grown edge and the mesh adds nothing visible).
    let (marched, boxed) = (volume_only.mean(hidden, 1), volume.mean(hidden, 1));
    println!("volume at the lower half: {marched}, with the box {boxed}");
    assert!(marched.min_element() > 0.6 && saturation(marched) < 0.1, "no volume snow there: {marched}");
    assert!((boxed - after).abs().max_element() < 0.02, "the volume draws over the box: {boxed} vs {after}");
}

#[test]
fn meshes_follow_each_upload_and_an_empty_set_removes_them() {
    let gpu = common::gpu();
    let solver = solver(&gpu, BLOCK, Vec3::ZERO);
    let camera = camera_on(BLOCK);
    let mut view = MeshView::new(&gpu, 1, &camera);
    let empty = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    // A box shows where the image is mesh-coloured and differs from the empty frame (lit ground
    // tiles are grey-blue too, but unchanged).
    let shows = |image: &Image, (lo, hi): (Vec3, Vec3)| {
        let at = project_small(&camera, 0.5 * (lo + hi));
        let c = image.mean(at, 1);
        is_mesh(c) && (c - empty.mean(at, 1)).abs().max_element() > 0.05
    };
    // Two uploads of the same size reuse the buffer: the second box replaces the first.
    let left = (Vec3::new(0.3, 0.1, 0.0), Vec3::new(0.5, 0.3, 0.2));
    let right = (left.0 + Vec3::new(0.0, 0.5, 0.0), left.1 + Vec3::new(0.0, 0.5, 0.0));
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(left, false)]);
    let first = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(right, false)]);
    let second = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    assert!(shows(&first, left) && !shows(&first, right), "the first upload");
    assert!(shows(&second, right) && !shows(&second, left), "the second upload, in the same buffer");
    // Two meshes at once.
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[box_mesh(left, false), box_mesh(right, false)]);
    let pair = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    assert_eq!(view.renderer.mesh_triangle_count(), 24);
    assert!(shows(&pair, left) && shows(&pair, right), "two meshes");
    // An empty set: the frame is the one drawn before any mesh (same shaders, same inputs).
    view.renderer.set_meshes(&gpu.device, &gpu.queue, &[]);
    let cleared = view.draw(&gpu, &solver, &camera, RenderMode::Particles, 0);
    let worst = cleared.pixels.iter().zip(&empty.pixels).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
    assert!(worst <= 1, "after removing the meshes the frame differs by {worst} levels");
    assert_eq!(view.renderer.mesh_triangle_count(), 0);
}
