//! The `--report` summary of a scripted run: where the snow ended up, how long it ran, what was
//! refused, and where the snow lies in the screenshot.

use glam::Vec3;
use serde::Serialize;

use powder::render::Camera;
use powder::sim::params::GpuParticle;

/// The state the `--report` JSON describes.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Scene name (file name or built-in title).
    pub scene: String,
    /// Number of particles.
    pub particle_count: usize,
    /// Particles of each entry of the material table (each emitter's; ids from the table's last
    /// entry on share it), up to the last entry present.
    pub material_counts: Vec<usize>,
    /// Simulated seconds since the last reset.
    pub simulated_time: f64,
    /// Substeps since the last reset.
    pub substeps: u64,
    /// The largest ratio of a substep's dt to the stable dt of the state it stepped since the last
    /// reset: at most 1 under auto dt; above 1, a fixed dt ran past the stability limit.
    pub max_dt_ratio: f64,
    /// Mean particle position along x, metres.
    pub mean_x: f64,
    /// Mean particle position along y, metres.
    pub mean_y: f64,
    /// Mean particle height, metres.
    pub mean_z: f64,
    /// Highest particle, metres.
    pub max_z: f64,
    /// Lower corner of the particles' bounding box, metres.
    pub bbox_min: [f32; 3],
    /// Upper corner of the particles' bounding box, metres.
    pub bbox_max: [f32; 3],
    /// Young's modulus in use, Pa.
    pub youngs_modulus: f64,
    /// Grid cells along the longest domain edge.
    pub grid_resolution: u32,
    /// Frames drawn (UI frames presented).
    pub frames: u64,
    /// Frames drawn that showed a newly finished frame of the simulation (no batch of substeps on
    /// the GPU, none of its frames half done), or any state while paused: what `--frames` counts.
    pub settled_frames: u64,
    /// Frames of the simulation finished (scene frames, real-time steps or N substeps, as the
    /// stepping mode plans them).
    pub sim_frames: u64,
    /// Simulated seconds per wall-clock second over the last few seconds of stepping (`null`
    /// while paused or before a second was measured).
    pub real_time_ratio: Option<f64>,
    /// The device the simulation runs on: `"shared"` (the window's) or `"own"` (a second device
    /// of the adapter, on software drivers).
    pub simulation_device: &'static str,
    /// The window's inner size at the end, pixels.
    pub window_size: [u32; 2],
    /// The 3D view's (and the screenshot's) size, pixels.
    pub view_size: [u32; 2],
    /// Where the particles' bounding box lands in the view (and screenshot), pixels: min x, min y,
    /// max x, max y, clamped to the view; absent if part of it is behind the camera.
    pub snow_rect_px: Option<[f32; 4]>,
    /// Successful reloads of the scene's files (on a change on disk, or the script's `reload`).
    pub scene_reloads: u32,
    /// Colliders in the scene.
    pub collider_count: usize,
    /// Colliders the solver's grid update applies (0 until the first simulated frame).
    pub colliders_in_solver: u32,
    /// Collider triangles drawn in the view (and the screenshot).
    pub collider_triangles: u32,
    /// Each collider's bounding box at the end, metres (lower and upper corner), in the scene's order.
    pub collider_bounds: Vec<Option<[[f32; 3]; 2]>>,
    /// Where each collider's bounding box lands in the view, pixels, as `snow_rect_px`, in the
    /// scene's order.
    pub collider_rects_px: Vec<Option<[f32; 4]>>,
    /// The colliders' animation time, seconds of scene time.
    pub animation_time: f64,
    /// Whether the colliders' animation plays (false: held by the user).
    pub animation_playing: bool,
    /// Frames per second after the first 5 frames (which compile pipelines), up to the last frame.
    pub mean_fps: f64,
    /// The UI's frame times: the wall-clock intervals between presented frames after the first 5
    /// frames, their median, 99th percentile, longest and mean (`null` before two frames).
    pub ui_frame_ms: Option<crate::app::run::timing::FrameTimeSummary>,
    /// The error messages the run posted (refused requests), oldest first.
    pub errors: Vec<String>,
    /// The process's resident memory every [`RESIDENT_SAMPLE_FRAMES`] drawn frames: pairs of
    /// (frame, bytes), from `/proc/self/status` (empty where that cannot be read).
    pub resident_bytes: Vec<[u64; 2]>,
}

/// Drawn frames between samples of [`Report::resident_bytes`].
pub const RESIDENT_SAMPLE_FRAMES: u64 = 50;

/// The process's resident set size in bytes (`VmRSS` of `/proc/self/status`), or `None` where
/// that is not readable.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The particle part of a report: count, means and bounding box (other fields left default).
pub fn summarise(particles: &[GpuParticle]) -> Report {
    let (lo, hi) = bounds(particles).unwrap_or((Vec3::ZERO, Vec3::ZERO));
    let n = particles.len().max(1) as f64;
    let mean = |axis: usize| particles.iter().map(|p| p.position[axis] as f64).sum::<f64>() / n;
    let mut material_counts = Vec::new();
    for p in particles {
        let id = (p.material as usize).min(powder::sim::params::MAX_MATERIALS - 1);
        if id >= material_counts.len() {
            material_counts.resize(id + 1, 0);
        }
        material_counts[id] += 1;
    }
    Report {
        particle_count: particles.len(),
        material_counts,
        mean_x: mean(0),
        mean_y: mean(1),
        mean_z: mean(2),
        max_z: hi.z as f64,
        bbox_min: lo.to_array(),
        bbox_max: hi.to_array(),
        ..Report::default()
    }
}

/// The bounding box of the particles' finite positions.
pub fn bounds(particles: &[GpuParticle]) -> Option<(Vec3, Vec3)> {
    let mut it = particles.iter().map(|p| Vec3::from(p.position)).filter(|p| p.is_finite());
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p))))
}

/// The pixel rectangle covering the box `lo`..`hi` in a view of `size`, clamped to the view;
/// `None` if a corner is behind the camera.
pub fn screen_rect(camera: &Camera, lo: Vec3, hi: Vec3, size: (u32, u32)) -> Option<[f32; 4]> {
    let (w, h) = (size.0 as f32, size.1 as f32);
    let mut rect = [f32::INFINITY, f32::INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY];
    for corner in 0..8 {
        let pick = |bit: u32, a: f32, b: f32| if corner & bit == 0 { a } else { b };
        let p = Vec3::new(pick(1, lo.x, hi.x), pick(2, lo.y, hi.y), pick(4, lo.z, hi.z));
        let glam::Vec2 { x, y } = camera.project_to_pixels(p, glam::Vec2::new(w, h))?;
        rect = [rect[0].min(x), rect[1].min(y), rect[2].max(x), rect[3].max(y)];
    }
    Some([rect[0].clamp(0.0, w), rect[1].clamp(0.0, h), rect[2].clamp(0.0, w), rect[3].clamp(0.0, h)])
}
