//! Shared helpers of the offscreen render tests (`tests/render_offscreen.rs`,
//! `tests/render_meshes.rs`): small scenes of snow, a camera on them, rendering into an offscreen
//! target and reading its pixels.

use glam::{Vec2, Vec3};
use powder::gpu::Gpu;
use powder::render::{Camera, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use powder::sim::Solver;

pub const WIDTH: u32 = 320;
pub const HEIGHT: u32 = 240;
/// Cell size of the test domain (the unit cube, 32 cells per axis); particles sit h/2 apart.
pub const H: f32 = 1.0 / 32.0;
/// The block most tests draw: 0.3 m on a side, floating 0.1 m above the ground (z = 0).
pub const BLOCK: (Vec3, Vec3) = (Vec3::new(0.35, 0.35, 0.1), Vec3::new(0.65, 0.65, 0.4));

/// A block of snow in the unit-cube domain, uploaded to a solver (not stepped).
pub fn solver(gpu: &Gpu, (lo, hi): (Vec3, Vec3), velocity: Vec3) -> Solver {
    let particles = super::block(lo, hi, H, 400.0, |_| velocity);
    Solver::new(gpu, super::params(32, H as f64, 1e-4), &particles).expect("solver")
}

/// The default orbit angles, aimed at the middle of `block` from 1.4 m.
pub fn camera_on((lo, hi): (Vec3, Vec3)) -> Camera {
    Camera { target: 0.5 * (lo + hi), distance: 1.4, ..Camera::default() }
}

/// A sun over the camera's shoulder, so the faces of a block the camera sees are lit.
pub fn shoulder_sun(camera: &Camera) -> Vec3 {
    (camera.eye() - camera.target).normalize() + Vec3::new(0.0, 0.0, 0.6)
}

pub struct Options {
    pub settings: RenderSettings,
    pub samples: u32,
    pub format: wgpu::TextureFormat,
    /// `Some(0)` draws the background alone.
    pub particle_count: Option<u32>,
    pub size: (u32, u32),
}

impl Default for Options {
    fn default() -> Self {
        Self {
            // These tests are about the impostors (and how the volume composites with them).
            settings: RenderSettings { mode: RenderMode::Particles, ..RenderSettings::default() },
            samples: 1,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            particle_count: None,
            size: (WIDTH, HEIGHT),
        }
    }
}

/// Tightly packed RGBA8 pixels of one frame.
pub struct Image {
    pub pixels: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

impl Image {
    /// The pixel at (x, y) as RGB in 0..1 (sRGB-encoded, as stored).
    pub fn rgb(&self, x: u32, y: u32) -> Vec3 {
        let i = 4 * (y.min(self.height - 1) * self.width + x.min(self.width - 1)) as usize;
        Vec3::new(self.pixels[i] as f32, self.pixels[i + 1] as f32, self.pixels[i + 2] as f32) / 255.0
    }

    /// Mean RGB over the (2r+1)² pixels around `at`.
    pub fn mean(&self, at: Vec2, r: i32) -> Vec3 {
        let mut sum = Vec3::ZERO;
        for dy in -r..=r {
            for dx in -r..=r {
                sum += self.rgb((at.x as i32 + dx).max(0) as u32, (at.y as i32 + dy).max(0) as u32);
            }
        }
        sum / ((2 * r + 1) * (2 * r + 1)) as f32
    }

    /// Fraction of all pixels that read as snow.
    pub fn snow_fraction(&self) -> f32 {
        let n = (self.width * self.height) as usize;
        (0..n).filter(|&i| is_snow(self.rgb(i as u32 % self.width, i as u32 / self.width))).count() as f32 / n as f32
    }
}

/// Saturation (max − min) / max of an RGB colour.
pub fn saturation(c: Vec3) -> f32 {
    (c.max_element() - c.min_element()) / c.max_element().max(1e-6)
}

/// Whether a pixel reads as snow: bright and nearly grey. Measured on these scenes, snow facing the
/// light is 0.92 (median) in every channel with saturation below 0.01; the pale sky near the horizon
/// is as bright but at least 0.11 saturated, and the ground stays below 0.55 in every channel (the
/// assertions on both below hold these margins).
pub fn is_snow(c: Vec3) -> bool {
    c.min_element() > 0.6 && saturation(c) < 0.08
}

/// The image, the target, and how many particles were drawn (after culling).
pub fn render(gpu: &Gpu, solver: &Solver, camera: &Camera, options: &Options) -> (Image, OffscreenTarget) {
    let (image, target, _) = render_counting(gpu, solver, camera, options);
    (image, target)
}

pub fn render_counting(
    gpu: &Gpu,
    solver: &Solver,
    camera: &Camera,
    options: &Options,
) -> (Image, OffscreenTarget, u32) {
    let (width, height) = options.size;
    let target = OffscreenTarget::new(&gpu.device, width, height, options.format);
    let mut renderer = Renderer::new(&gpu.device, options.format, options.samples);
    renderer.resize(&gpu.device, width, height);
    renderer.set_sun_direction(shoulder_sun(camera));
    let count = options.particle_count.unwrap_or(solver.particle_count());
    let inputs = super::frame_inputs(solver, camera, &options.settings, count, 0.25 * H);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    let pixels = target.read_rgba(gpu).expect("readback");
    let drawn = renderer.drawn_particle_count(gpu).unwrap_or(0);
    (Image { pixels, width, height }, target, drawn)
}

/// Pixel position (x right, y down) of a world point seen by `camera` in a WIDTH × HEIGHT image.
pub fn project(camera: &Camera, p: Vec3) -> Vec2 {
    let ndc = camera.view_projection(WIDTH as f32 / HEIGHT as f32).project_point3(p);
    Vec2::new((ndc.x + 1.0) * 0.5 * WIDTH as f32, (1.0 - ndc.y) * 0.5 * HEIGHT as f32)
}

/// Area in pixels of the convex hull of the box's eight projected corners (Andrew's monotone chain).
pub fn projected_area(camera: &Camera, (lo, hi): (Vec3, Vec3)) -> f32 {
    let mut points: Vec<Vec2> = (0..8)
        .map(|c| project(camera, Vec3::select(glam::BVec3::new(c & 1 != 0, c & 2 != 0, c & 4 != 0), hi, lo)))
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut hull: Vec<Vec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let ordered: Vec<Vec2> = if pass == 0 { points.clone() } else { points.iter().rev().cloned().collect() };
        for p in ordered {
            while hull.len() >= start + 2 && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    (0..hull.len()).map(|i| hull[i].perp_dot(hull[(i + 1) % hull.len()])).sum::<f32>().abs() * 0.5
}
