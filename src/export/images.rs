//! An image per baked frame (`powder run --images WxH`): the app's renderer drawing the snow and
//! the colliders offscreen into `frame_NNNNN.png`, and, where `ffmpeg` is on the PATH, the images
//! encoded into an mp4 at the end. The camera frames the snow of the first frame drawn, with room
//! around it, from the asked-for angles, and then stays put.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;
use thiserror::Error;

use super::sink::{FrameSink, SinkError};
use crate::collider::set::ColliderSet;
use crate::gpu::Gpu;
use crate::render::framing::{frame_box, padded_bounds};
use crate::render::offscreen::DEFAULT_OFFSCREEN_FORMAT;
use crate::render::{Camera, FrameInputs, OffscreenTarget, RenderSettings, Renderer};
use crate::scene::Scene;
use crate::sim::Solver;

/// Largest image edge, pixels (the renderer's targets are textures, at most this wide on every
/// device wgpu supports).
pub const MAX_IMAGE_EDGE: u32 = 8192;

/// Where the camera looks from: the orbit angles in degrees (the app's default view unless set).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageCamera {
    /// Angle around z (the vertical), degrees.
    pub yaw_degrees: f32,
    /// Angle above the horizon, degrees.
    pub pitch_degrees: f32,
}

impl Default for ImageCamera {
    fn default() -> Self {
        let camera = Camera::default();
        ImageCamera { yaw_degrees: camera.yaw.to_degrees(), pitch_degrees: camera.pitch.to_degrees() }
    }
}

/// Failures of the image sequence's mp4.
#[derive(Debug, Error)]
pub enum VideoError {
    /// ffmpeg ran and failed.
    #[error("ffmpeg could not encode {}: {message}", path.display())]
    Ffmpeg {
        /// The video asked for.
        path: PathBuf,
        /// The last line ffmpeg printed.
        message: String,
    },
}

/// The file name of frame `frame`'s image: `frame_00042.png`.
pub fn image_file_name(frame: u32) -> String {
    format!("frame_{frame:05}.png")
}

/// Renders each frame of a bake into a PNG in `dir`.
pub struct ImageSequence {
    dir: PathBuf,
    renderer: Renderer,
    target: OffscreenTarget,
    camera: Camera,
    settings: RenderSettings,
    particle_radius: f32,
    domain: (Vec3, Vec3),
    /// The scene's colliders, drawn at each frame's time; `None` when they cannot be built (the
    /// solver, built first, has reported why).
    colliders: Option<ColliderSet>,
    /// Seconds of simulated time per frame.
    frame_duration: f64,
    /// Whether the camera has been aimed (at the first frame drawn).
    framed: bool,
    /// The view asked for.
    view: ImageCamera,
}

impl ImageSequence {
    /// A `width` × `height` sequence of `scene`'s frames into `dir`, the camera framing the domain
    /// from `view`'s angles.
    pub fn new(gpu: &Gpu, scene: &Scene, dir: &Path, (width, height): (u32, u32), view: ImageCamera) -> Self {
        let format = DEFAULT_OFFSCREEN_FORMAT;
        let mut renderer = Renderer::new(&gpu.device, format, Renderer::recommended_sample_count(&gpu.info));
        renderer.resize(&gpu.device, width, height);
        let grid = scene.solver_params().grid;
        let domain = (grid.domain_min.as_vec3(), grid.domain_max().as_vec3());
        let mut camera = Camera::default();
        camera.frame(domain.0, domain.1);
        camera.yaw = view.yaw_degrees.to_radians();
        camera.pitch = view.pitch_degrees.to_radians().clamp(-1.55, 1.55);
        let colliders = ColliderSet::from_scene(scene, "").ok().filter(|c| !c.is_empty());
        ImageSequence {
            dir: dir.to_path_buf(),
            renderer,
            target: OffscreenTarget::new(&gpu.device, width, height, format),
            camera,
            settings: RenderSettings::default(),
            // As the app draws them: impostors half a particle spacing across.
            particle_radius: 0.5 * scene.particle_spacing() as f32,
            domain,
            colliders,
            frame_duration: scene.frame_duration(),
            framed: false,
            view,
        }
    }
}

impl FrameSink for ImageSequence {
    fn frame(&mut self, gpu: &Gpu, solver: &Solver, frame: u32) -> Result<(), SinkError> {
        let meshes = match &self.colliders {
            Some(colliders) if !self.framed || colliders.is_animated() => {
                Some(colliders.meshes_at(frame as f64 * self.frame_duration))
            }
            _ => None,
        };
        if let Some(meshes) = &meshes {
            self.renderer.set_meshes(&gpu.device, &gpu.queue, meshes);
        }
        if !self.framed {
            self.aim(gpu, solver)?;
        }
        let inputs = FrameInputs {
            camera: &self.camera,
            settings: &self.settings,
            particles: solver.particle_pages(),
            particle_count: solver.particle_count(),
            particle_radius: self.particle_radius,
            domain_min: self.domain.0,
            domain_max: self.domain.1,
            moved: None,
        };
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.renderer.render(&gpu.device, &gpu.queue, &mut encoder, self.target.view(), &inputs);
        gpu.queue.submit([encoder.finish()]);
        self.target.save_png(gpu, &self.dir.join(image_file_name(frame))).map_err(SinkError::Render)
    }
}

impl ImageSequence {
    /// Points the camera at the first frame's snow ([`snow_camera`]).
    fn aim(&mut self, gpu: &Gpu, solver: &Solver) -> Result<(), SinkError> {
        let particles =
            solver.read_particles(gpu).map_err(|source| SinkError::Solver { what: "--images".to_string(), source })?;
        let snow = particles.iter().map(|p| Vec3::from(p.position));
        let size = self.target.size();
        if let Some(camera) = snow_camera(snow, 2.0 * self.particle_radius, self.domain, size, self.view) {
            self.camera = camera;
        }
        self.framed = true;
        Ok(())
    }
}

/// The camera of an image sequence whose first frame's particles lie at `snow`: the box around
/// them, grown by `spacing` (the particle spacing, metres) and then by a quarter of its longest
/// edge on each side (so the colliders and ground it rests on or meets show around it), cut to
/// `domain`, framed in a `size` image from `view`'s angles. `None` without a finite particle.
pub fn snow_camera(
    snow: impl IntoIterator<Item = Vec3>,
    spacing: f32,
    domain: (Vec3, Vec3),
    (width, height): (u32, u32),
    view: ImageCamera,
) -> Option<Camera> {
    let (a, b) = padded_bounds(snow, spacing)?;
    let margin = Vec3::splat(0.25 * (b - a).max_element());
    let (a, b) = ((a - margin).clamp(domain.0, domain.1), (b + margin).clamp(domain.0, domain.1));
    let mut camera = Camera::default();
    frame_box(&mut camera, a, b, width as f32 / height.max(1) as f32);
    camera.yaw = view.yaw_degrees.to_radians();
    camera.pitch = view.pitch_degrees.to_radians().clamp(-1.55, 1.55);
    Some(camera)
}

/// Encodes the images `frame_00000.png` … in `dir` into `dir/video.mp4` at `fps` with ffmpeg
/// (H.264, yuv420p, which every player reads). `Ok(None)` where ffmpeg is not on the PATH.
pub fn encode_mp4(dir: &Path, fps: f64) -> Result<Option<PathBuf>, VideoError> {
    let path = dir.join("video.mp4");
    let pattern = dir.join("frame_%05d.png");
    let run = Command::new("ffmpeg")
        .args(["-y", "-loglevel", "error", "-framerate", &fps.to_string(), "-i"])
        .arg(&pattern)
        // yuv420p needs even sizes: pad an odd edge by a pixel.
        .args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        .arg(&path)
        .output();
    match run {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(VideoError::Ffmpeg { path, message: e.to_string() }),
        Ok(out) if out.status.success() => Ok(Some(path)),
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let message = stderr.lines().last().unwrap_or("no message").to_string();
            Err(VideoError::Ffmpeg { path, message })
        }
    }
}

/// Parses `WIDTHxHEIGHT` for `--images`: each edge in [1, [`MAX_IMAGE_EDGE`]].
pub fn parse_image_size(text: &str) -> Result<(u32, u32), String> {
    let parsed = text.split_once('x').and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    match parsed {
        Some((w, h)) if (1..=MAX_IMAGE_EDGE).contains(&w) && (1..=MAX_IMAGE_EDGE).contains(&h) => Ok((w, h)),
        _ => Err(format!("expected WIDTHxHEIGHT with each in [1, {MAX_IMAGE_EDGE}], e.g. 640x480, not {text:?}")),
    }
}
