//! The domain's walls on lavapipe: drawn exactly where the eye ray leaves the domain through a
//! wall (not the floor), seen from its inner side, and nowhere else, against a ray–box test on the
//! host; and shadowed by the snow.
//!
//! Mutation checks: drawing every wall whatever side the eye is on makes 1,712 pixels of the view
//! from outside differ from the ray–box test; dropping the volume's sun visibility from the wall's
//! shading leaves the shadowed wall at its lit level (417 → 417 instead of 417 → 128).

mod common;

use glam::{Vec2, Vec3};
use powder::render::{Camera, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

const WIDTH: u32 = 160;
const HEIGHT: u32 = 120;
const H: f32 = 1.0 / 32.0;

/// RGBA8 pixels of the unit-cube domain with the first `count` of `solver`'s particles, with or
/// without the walls.
fn render(gpu: &powder::gpu::Gpu, solver: &Solver, count: u32, camera: &Camera, sun: Vec3, walls: bool) -> Vec<u8> {
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let target = OffscreenTarget::new(&gpu.device, WIDTH, HEIGHT, format);
    let mut renderer = Renderer::new(&gpu.device, format, 1);
    renderer.resize(&gpu.device, WIDTH, HEIGHT);
    renderer.set_sun_direction(sun);
    renderer.set_walls_visible(walls);
    let settings = RenderSettings { mode: RenderMode::Particles, ..RenderSettings::default() };
    let inputs = common::frame_inputs(solver, camera, &settings, count, 0.25 * H);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    target.read_rgba(gpu).expect("readback")
}

/// Per pixel: `Some(true)` where the ray through its centre leaves the unit cube through a wall
/// other than the floor (z = 0), `Some(false)` where it misses the cube or leaves through the
/// floor, `None` within 1.5 pixels of a box edge (the bounds are drawn there as lines, and the
/// rasteriser decides edge pixels by its own rounding).
fn expected(camera: &Camera) -> Vec<Option<bool>> {
    let aspect = WIDTH as f32 / HEIGHT as f32;
    let eye = camera.eye();
    let pixel_angle = 2.0 * (0.5 * camera.fov_y).tan() / HEIGHT as f32;
    let edges: Vec<(Vec3, Vec3)> = (0..12)
        .map(|e| {
            let (axis, corner) = (e / 4, e % 4);
            let mut a = Vec3::ZERO;
            a[(axis + 1) % 3] = (corner & 1) as f32;
            a[(axis + 2) % 3] = (corner >> 1) as f32;
            let mut b = a;
            b[axis] = 1.0;
            (a, b)
        })
        .collect();
    let mut out = Vec::new();
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let ndc =
                Vec2::new((x as f32 + 0.5) / WIDTH as f32 * 2.0 - 1.0, 1.0 - (y as f32 + 0.5) / HEIGHT as f32 * 2.0);
            let (_, dir) = camera.ray(ndc, aspect);
            // Near an edge: sample the segment finely for its closest point to the ray.
            let near_edge = edges.iter().any(|&(a, b)| {
                (0..=400).any(|i| {
                    let p = a.lerp(b, i as f32 / 400.0);
                    let along = (p - eye).dot(dir);
                    along > 0.0 && ((p - eye) - dir * along).length() < 1.5 * along * pixel_angle
                })
            });
            if near_edge {
                out.push(None);
                continue;
            }
            // Slab test: the exit is the nearest of the far planes.
            let inv = dir.recip();
            let t0 = (Vec3::ZERO - eye) * inv;
            let t1 = (Vec3::ONE - eye) * inv;
            let enter = t0.min(t1).max_element().max(0.0);
            let (far, exit) = (t0.max(t1), t0.max(t1).min_element());
            let hits = exit > enter;
            let through_floor = far.z == exit && dir.z < 0.0;
            out.push(Some(hits && !through_floor));
        }
    }
    out
}

#[test]
fn walls_are_drawn_where_the_eye_sees_their_inner_side() {
    let gpu = common::gpu();
    // A small block of snow near the x = 0 wall, lit from +x: it shadows that wall.
    let particles = common::block(Vec3::new(0.1, 0.4, 0.3), Vec3::new(0.3, 0.6, 0.5), H, 400.0, |_| Vec3::ZERO);
    let solver = Solver::new(&gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver");
    let sun = Vec3::new(1.0, 0.0, 0.25).normalize();
    for (name, yaw, pitch, distance) in
        [("outside, above", -0.6, 0.35, 2.2), ("inside", 0.3, 0.1, 0.45), ("from low", 2.5, 0.05, 2.0)]
    {
        let camera = Camera { target: Vec3::splat(0.5), distance, yaw, pitch, ..Camera::default() };
        let with = render(&gpu, &solver, 0, &camera, sun, true);
        let without = render(&gpu, &solver, 0, &camera, sun, false);
        let want = expected(&camera);
        let (mut drawn, mut expect, mut wrong) = (0, 0, 0);
        for (i, w) in want.iter().enumerate() {
            let differs = (0..3).any(|c| with[4 * i + c] != without[4 * i + c]);
            drawn += usize::from(differs);
            expect += usize::from(*w == Some(true));
            wrong += usize::from(w.is_some_and(|w| w != differs));
        }
        println!("{name}: walls change {drawn} px, ray–box test {expect} px, {wrong} px differ");
        // Exact: a wall pixel is opaque, its colour far from the sky's and the ground's.
        assert!(expect > 500, "{name}: the view sees too little wall to test");
        assert_eq!(wrong, 0, "{name}: walls drawn off their faces");
    }
}

#[test]
fn snow_shadows_the_wall_behind_it() {
    let gpu = common::gpu();
    // A block near the x = 0 wall, the sun low over +x: the block's shadow falls on the wall
    // around (0, 0.5, 0.35), whose sun ray crosses the block from x = 0.1 to 0.3.
    let particles = common::block(Vec3::new(0.1, 0.4, 0.3), Vec3::new(0.3, 0.6, 0.5), H, 400.0, |_| Vec3::ZERO);
    let solver = Solver::new(&gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver");
    let sun = Vec3::new(1.0, 0.0, 0.25).normalize();
    // Looking at that point from inside the domain, past the block's side (the sight line passes
    // x = 0.2–0.3 at y = 0.7–0.8, beside the block).
    let camera =
        Camera { target: Vec3::new(0.0, 0.5, 0.35), distance: 0.6, yaw: 0.785, pitch: 0.05, ..Camera::default() };
    let centre = 4 * ((HEIGHT / 2) * WIDTH + WIDTH / 2) as usize;
    let level = |pixels: &[u8]| pixels[centre..centre + 3].iter().map(|&c| c as f32).sum::<f32>();
    let lit = level(&render(&gpu, &solver, 0, &camera, sun, true));
    let shadowed = level(&render(&gpu, &solver, solver.particle_count(), &camera, sun, true));
    println!("wall behind the block: {lit} lit, {shadowed} shadowed (sum of sRGB levels)");
    // Lit, the wall gets the sun's Lambert term (cos 14° × 2.3) plus ambient (~0.6); in the shadow of
    // 6+ voxels of packed snow (transmittance below e⁻⁹) only the ambient, a fifth of the
    // radiance: after tone mapping and sRGB encoding well under 0.7 of the lit level.
    assert!(shadowed < 0.7 * lit, "the wall is not shadowed: {lit} → {shadowed}");
}
