//! The renderer drawing real scenes offscreen on lavapipe, checked pixel by pixel: snow where the
//! particles project, sky and ground elsewhere, impostors cut by the ground plane, the speed colour
//! field, the density volume, and the PNG round trip.

mod common;

use glam::{Vec2, Vec3};
use powder::gpu::Gpu;
use powder::render::{
    Camera, ColorField, FrameInputs, OffscreenTarget, RenderMode, RenderSettings, Renderer, offscreen::write_png,
};
use powder::sim::Solver;

const WIDTH: u32 = 320;
const HEIGHT: u32 = 240;
/// Cell size of the test domain (the unit cube, 32 cells per axis); particles sit h/2 apart.
const H: f32 = 1.0 / 32.0;

/// A block of resting or moving snow in the unit-cube domain, uploaded to a solver (not stepped).
fn solver(gpu: &Gpu, lo: Vec3, hi: Vec3, velocity: Vec3) -> Solver {
    let particles = common::block(lo, hi, H, 400.0, |_| velocity);
    Solver::new(gpu, common::params(32, H as f64, 1e-4), &particles).expect("solver")
}

/// The camera of the tests: the default orbit angles, aimed at `target` from `distance`.
fn camera(target: Vec3, distance: f32) -> Camera {
    Camera { target, distance, ..Camera::default() }
}

/// A sun over the camera's shoulder, so every face of a block the camera sees is lit.
fn shoulder_sun(camera: &Camera) -> Vec3 {
    let toward_eye = (camera.eye() - camera.target).normalize();
    (toward_eye + Vec3::new(0.0, 0.0, 0.6)).normalize()
}

struct Frame {
    pixels: Vec<u8>,
    width: u32,
    height: u32,
}

impl Frame {
    fn rgb(&self, x: u32, y: u32) -> [f32; 3] {
        let i = 4 * (y * self.width + x) as usize;
        [0, 1, 2].map(|c| self.pixels[i + c] as f32 / 255.0)
    }
}

/// Whether an sRGB pixel reads as lit snow: bright and nearly grey. Lit snow renders at about
/// 0.93–0.97 in every channel; the brightest sky (the horizon) has its red channel below 0.8 and
/// the lit ground stays below 0.6 (measured on these scenes; the thresholds sit between).
fn is_snow(rgb: [f32; 3]) -> bool {
    let max = rgb.iter().cloned().fold(0.0, f32::max);
    let min = rgb.iter().cloned().fold(1.0, f32::min);
    min > 0.8 && (max - min) / max < 0.12
}

struct Options {
    settings: RenderSettings,
    samples: u32,
    sun: Option<Vec3>,
    particle_count: Option<u32>,
    format: wgpu::TextureFormat,
    size: (u32, u32),
}

impl Default for Options {
    fn default() -> Self {
        Self {
            settings: RenderSettings::default(),
            samples: 1,
            sun: None,
            particle_count: None,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            size: (WIDTH, HEIGHT),
        }
    }
}

fn render(gpu: &Gpu, solver: &Solver, camera: &Camera, options: &Options) -> (Frame, OffscreenTarget) {
    let (width, height) = options.size;
    let target = OffscreenTarget::new(&gpu.device, width, height, options.format);
    let mut renderer = Renderer::new(&gpu.device, options.format, options.samples);
    renderer.resize(&gpu.device, width, height);
    renderer.set_sun_direction(options.sun.unwrap_or_else(|| shoulder_sun(camera)));
    let grid = &solver.params().grid;
    let inputs = FrameInputs {
        camera,
        settings: &options.settings,
        particles: &solver.state().particles,
        particle_count: options.particle_count.unwrap_or(solver.particle_count()),
        particle_radius: 0.25 * H,
        domain_min: grid.domain_min.as_vec3(),
        domain_max: grid.domain_max().as_vec3(),
    };
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
    gpu.queue.submit([encoder.finish()]);
    let pixels = target.read_rgba(gpu).expect("readback");
    (Frame { pixels, width, height }, target)
}

/// Pixel position (x right, y down) of a world point.
fn project(camera: &Camera, p: Vec3) -> Vec2 {
    let ndc = camera.view_projection(WIDTH as f32 / HEIGHT as f32).project_point3(p);
    Vec2::new((ndc.x + 1.0) * 0.5 * WIDTH as f32, (1.0 - ndc.y) * 0.5 * HEIGHT as f32)
}

#[test]
#[ignore = "writes a gallery of PNGs for looking at; run with --ignored"]
fn gallery() {
    let gpu = common::gpu();
    let dir = std::env::var("POWDER_RENDER_GALLERY").unwrap_or_else(|_| "/tmp/powder-render".into());
    std::fs::create_dir_all(&dir).expect("gallery dir");
    let solver = solver(&gpu, Vec3::new(0.3, 0.3, 0.0), Vec3::new(0.7, 0.7, 0.3), Vec3::ZERO);
    let cam = camera(Vec3::new(0.5, 0.5, 0.2), 1.6);
    for (name, mode, samples) in [
        ("particles", RenderMode::Particles, 4),
        ("particles_1x", RenderMode::Particles, 1),
        ("volume", RenderMode::Volume, 4),
        ("both", RenderMode::Both, 4),
    ] {
        let options = Options {
            settings: RenderSettings { mode, ..Default::default() },
            samples,
            sun: Some(powder::render::DEFAULT_SUN_DIRECTION),
            size: (960, 540),
            ..Default::default()
        };
        let (frame, _) = render(&gpu, &solver, &cam, &options);
        write_png(&Path::new(&dir).join(format!("{name}.png")), frame.width, frame.height, &frame.pixels)
            .expect("png");
    }
}

use std::path::Path;

#[test]
#[ignore = "timing; run in release: cargo test --release --test render_offscreen -- --ignored --nocapture frame_time"]
fn frame_time_of_the_default_scene() {
    let gpu = common::gpu();
    let scene = powder::scene::Scene::builtin_default();
    let particles = scene.spawn_particles();
    let solver = Solver::new(&gpu, scene.solver_params(), &particles).expect("solver");
    let grid = &solver.params().grid;
    let (lo, hi) = (grid.domain_min.as_vec3(), grid.domain_max().as_vec3());
    let mut cam = Camera::default();
    cam.frame(lo, hi);
    let (width, height) = (1280, 720);
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let target = OffscreenTarget::new(&gpu.device, width, height, format);
    println!("{} particles, {}, {width}x{height}", solver.particle_count(), gpu.describe());
    for samples in [1, 4] {
        let mut renderer = Renderer::new(&gpu.device, format, samples);
        renderer.resize(&gpu.device, width, height);
        for mode in RenderMode::ALL {
            let settings = RenderSettings { mode, ..Default::default() };
            let inputs = FrameInputs {
                camera: &cam,
                settings: &settings,
                particles: &solver.state().particles,
                particle_count: std::env::var("PCOUNT").ok().and_then(|v| v.parse().ok()).unwrap_or(solver.particle_count()),
                particle_radius: (0.5 * scene.particle_spacing()) as f32,
                domain_min: lo,
                domain_max: hi,
            };
            let frame = |renderer: &mut Renderer| {
                let mut encoder = gpu.device.create_command_encoder(&Default::default());
                renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), &inputs);
                gpu.queue.submit([encoder.finish()]);
                gpu.wait_idle();
            };
            for _ in 0..3 {
                frame(&mut renderer);
            }
            let cpu_start = process_cpu_seconds();
            // Median of single-frame times: robust against other processes sharing the CPU.
            let mut times: Vec<f64> = (0..15)
                .map(|_| {
                    let start = std::time::Instant::now();
                    frame(&mut renderer);
                    start.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let (ms, fastest) = (times[times.len() / 2], times[0]);
            let cpu_ms = (process_cpu_seconds() - cpu_start) * 1e3 / times.len() as f64;
            println!(
                "{samples}x MSAA {mode:?}: median {ms:.1} ms/frame ({:.0} fps), fastest {fastest:.1} ms, \
                 CPU {cpu_ms:.1} ms/frame",
                1e3 / ms
            );
        }
    }
}

/// CPU time (user + system) of this process so far, seconds, from `/proc/self/stat` (Linux; 0
/// elsewhere). lavapipe renders on this process's threads, so CPU time per frame is the rendering
/// work whatever else shares the machine.
fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return 0.0 };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // Clock ticks are 1/100 s on Linux (USER_HZ).
    (ticks(11) + ticks(12)) / 100.0
}
