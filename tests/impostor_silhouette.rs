//! The impostor pass draws the whole silhouette of a ball of snow, from every side.
//!
//! `particles_shade` drops particles it finds buried under dense snow toward the eye. Probes that
//! left the density volume used to read its boundary voxels (the sampler clamps to the edge), so a
//! ball pressed against a domain wall and seen from beyond that wall lost its face: only a
//! crescent of its rim was drawn. This test renders a ball cut flat by the x = 1 wall, and a free
//! one, from several directions (head-on through the wall, oblique, from low down, close up), and
//! compares the pixels the impostors change with a ray cast of the same spheres on the host.
//!
//! Mutation check: with the probes' box test removed from `is_visible` (the old code), the view
//! through the wall draws 1,236 of the 2,197 pixels (966 differ, 2 allowed) and the test fails;
//! with it, the views differ from the ray cast by 0 to 3 pixels.

mod common;

use glam::{Vec2, Vec3};
use powder::render::{Camera, ColorField, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

const WIDTH: u32 = 160;
const HEIGHT: u32 = 120;
/// Cell size of the test domain (the unit cube, 32 cells); particles sit h/2 apart.
const H: f32 = 1.0 / 32.0;
/// Impostor radius: half the particle spacing (scale 1), so culling is on (`GAP_SCALE` = 0.8).
const RADIUS: f32 = 0.25 * H;

/// Lattice points of the ball of radius `r` around `centre`, cut at the domain (x < 1), all moving
/// at twice the speed colour field's scale so they draw red, unlike the sky or the ground.
fn ball(centre: Vec3, r: f32) -> Vec<powder::sim::params::GpuParticle> {
    let lo = Vec3::ZERO;
    let hi = Vec3::ONE;
    common::lattice(lo, hi, H, 400.0, |x| ((x - centre).length() <= r).then_some(Vec3::new(0.0, 0.0, 20.0)))
}

/// Which pixels of a WIDTH × HEIGHT image the spheres cover, by a ray through each pixel centre:
/// `Some(true)` covered, `Some(false)` clear, `None` when the nearest sphere edge lies within
/// `EDGE_PIXELS` of the pixel centre, where f32 rounding in either computation may decide.
fn ray_cast(camera: &Camera, centres: &[Vec3]) -> Vec<Option<bool>> {
    /// The impostor fragment keeps a pixel when its ray passes within the radius (coverage ≥ ½):
    /// the same test as here, so only rounding separates them. 0.02 px is ~10⁻⁵ m at 1 m, a
    /// thousand times the f32 rounding of the distances involved.
    const EDGE_PIXELS: f32 = 0.02;
    let aspect = WIDTH as f32 / HEIGHT as f32;
    let eye = camera.eye();
    let pixel_angle = 2.0 * (0.5 * camera.fov_y).tan() / HEIGHT as f32;
    // The ray through each pixel centre.
    let rays: Vec<Vec3> = (0..WIDTH * HEIGHT)
        .map(|i| {
            let (x, y) = ((i % WIDTH) as f32 + 0.5, (i / WIDTH) as f32 + 0.5);
            let ndc = Vec2::new(x / WIDTH as f32 * 2.0 - 1.0, 1.0 - y / HEIGHT as f32 * 2.0);
            camera.ray(ndc, aspect).1
        })
        .collect();
    // The smallest (miss − r) over the spheres, in pixels at each sphere's distance. Each sphere
    // visits only the pixels around its projection (1.5 × its projected radius + 2 px: generous
    // for the perspective stretch at 45°); pixels further out are clear by more than a pixel.
    let view_proj = camera.view_projection(aspect);
    let mut nearest = vec![f32::INFINITY; rays.len()];
    for &c in centres {
        let ndc = view_proj.project_point3(c);
        let distance = (c - eye).length();
        if (c - eye).dot(camera.target - eye) <= 0.0 || distance <= RADIUS {
            continue;
        }
        let (px, py) = ((ndc.x + 1.0) * 0.5 * WIDTH as f32, (1.0 - ndc.y) * 0.5 * HEIGHT as f32);
        let reach = 1.5 * RADIUS / (distance * pixel_angle) + 2.0;
        let (x0, x1) = ((px - reach).max(0.0) as u32, ((px + reach).max(0.0) as u32).min(WIDTH - 1));
        let (y0, y1) = ((py - reach).max(0.0) as u32, ((py + reach).max(0.0) as u32).min(HEIGHT - 1));
        for y in y0..=y1 {
            for x in x0..=x1 {
                let i = (y * WIDTH + x) as usize;
                let along = (c - eye).dot(rays[i]);
                if along > 0.0 {
                    let miss = ((c - eye) - rays[i] * along).length();
                    nearest[i] = nearest[i].min((miss - RADIUS) / (along * pixel_angle));
                }
            }
        }
    }
    let out: Vec<Option<bool>> = nearest.iter().map(|&n| (n.abs() >= EDGE_PIXELS).then_some(n < 0.0)).collect();
    out
}

/// RGBA8 pixels of one frame of the particles drawn at `scale` times their radius.
fn render(gpu: &powder::gpu::Gpu, solver: &Solver, camera: &Camera, scale: f32) -> Vec<u8> {
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let target = OffscreenTarget::new(&gpu.device, WIDTH, HEIGHT, format);
    let mut renderer = Renderer::new(&gpu.device, format, 1);
    renderer.resize(&gpu.device, WIDTH, HEIGHT);
    let settings = RenderSettings {
        mode: RenderMode::Particles,
        particle_scale: scale,
        color_field: ColorField::Speed,
        ..Default::default()
    };
    let inputs = common::frame_inputs(solver, camera, &settings, solver.particle_count(), RADIUS);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    target.read_rgba(gpu).expect("readback")
}

/// Pixels covered by snow (the render with impostors differs from the one without by more than
/// 24/255 in a channel; red snow, lit or shadowed, against sky or ground differs by 60+) against
/// the host's ray cast:
/// (drawn, expected, pixels where they disagree).
fn compare(
    gpu: &powder::gpu::Gpu,
    particles: &[powder::sim::params::GpuParticle],
    camera: &Camera,
) -> (usize, usize, usize) {
    let solver = Solver::new(gpu, common::params(32, H as f64, 1e-4), particles).expect("solver");
    let with = render(gpu, &solver, camera, 1.0);
    // The same frame with impostors a millionth the size, which cover no pixel centre: the volume
    // (splatted from the particles' volumes, not their drawn radius) and so the snow's shadow on
    // the ground are the same in both.
    let without = render(gpu, &solver, camera, 1e-6);
    let centres: Vec<Vec3> = particles.iter().map(|p| Vec3::from(p.position)).collect();
    let expected = ray_cast(camera, &centres);
    let (mut drawn, mut want, mut wrong) = (0, 0, 0);
    for (i, expect) in expected.iter().enumerate() {
        let differs = (0..3).any(|c| with[4 * i + c].abs_diff(without[4 * i + c]) > 24);
        drawn += usize::from(differs);
        want += usize::from(*expect == Some(true));
        if expect.is_some_and(|e| e != differs) {
            wrong += 1;
        }
    }
    (drawn, want, wrong)
}

/// Projected area in pixels of a ball of radius `r` at distance `d` (a cone of half-angle
/// asin(r/d), seen near the view axis): a sanity check that the ray cast sees the ball whole.
fn ball_area(r: f32, d: f32, fov_y: f32) -> f32 {
    let pixel_angle = 2.0 * (0.5 * fov_y).tan() / HEIGHT as f32;
    let half = (r / d).asin();
    std::f32::consts::PI * (half.tan() / pixel_angle).powi(2)
}

#[test]
fn a_ball_of_snow_is_drawn_whole_from_every_side() {
    let gpu = common::gpu();
    // Pressed against the x = 1 wall (cut flat there), and free in the middle of the domain.
    let wall_ball = (Vec3::new(0.9, 0.5, 0.5), 0.16);
    let free_ball = (Vec3::new(0.5, 0.5, 0.45), 0.14);
    let views = [
        // Not quite along the lattice's axes: looking straight down a row, the pixel rays pass the
        // gaps between touching spheres through more layers than culling assumes can be seen through.
        ("through the wall, head on", wall_ball, 0.25, 0.12, 0.9),
        ("through the wall, oblique", wall_ball, 0.7, 0.3, 0.9),
        ("wall ball from inside", wall_ball, 2.6, 0.2, 0.8),
        ("free ball, oblique", free_ball, -0.6, 0.35, 0.9),
        ("free ball, from low down", free_ball, 1.9, -0.3, 0.7),
        ("free ball, close up", free_ball, -2.2, 0.1, 0.33),
    ];
    for (name, (centre, r), yaw, pitch, distance) in views {
        let particles = ball(centre, r);
        let camera = Camera { target: centre, distance, yaw, pitch, ..Camera::default() };
        let (drawn, want, wrong) = compare(&gpu, &particles, &camera);
        // The union of impostors reaches half a spacing past the lattice ball: r + h/4 outer radius.
        let cone = ball_area(r + RADIUS, distance, camera.fov_y);
        println!(
            "{name}: {} particles, drawn {drawn} px, ray cast {want} px, ball ≤ {cone:.0} px, {wrong} px differ",
            particles.len()
        );
        // The ray cast sees most of the ball (not cut by the wall from this side): a check on the
        // check, at most the cone's area and more than half of it.
        assert!(
            want as f32 <= cone * 1.02 && want as f32 > 0.4 * cone,
            "{name}: ray cast {want} px of a {cone} px ball"
        );
        // Culling hides a particle under four voxels (eight layers) of packed snow. On a lattice,
        // a few pixel rays pass between touching spheres (the gaps are 1 − π/4 of a layer's face)
        // deeper than that; close up that is a handful of pixels, so 0.1 % of the silhouette is
        // allowed. The wall bug lost half of it.
        let allowed = want / 1000;
        assert!(
            wrong <= allowed,
            "{name}: {wrong} pixels differ from the ray cast (drawn {drawn}, expected {want}; {allowed} allowed)"
        );
    }
}
