//! The 3D view's side of a frame: what the renderer needs from the simulation, the render
//! settings a window starts with, and framing a box with the camera.

use powder::render::{Camera, FrameInputs, RenderSettings};

use crate::app::run::driver::Driver;
use crate::app::run::shown::Shown;

/// The render settings a window starts with: full resolution on GPUs; half resolution on
/// software adapters, where the 3D view's fragments cost as much as the simulation
/// (docs/performance.md, "The app on lavapipe").
pub fn default_render_settings(adapter: &wgpu::AdapterInfo) -> RenderSettings {
    let resolution_scale = if adapter.device_type == wgpu::DeviceType::Cpu { 0.5 } else { 1.0 };
    RenderSettings { resolution_scale, ..RenderSettings::default() }
}

/// What the renderer needs from the simulation and the view for one frame: the particles `shown`
/// draws; `moved` bounds how far they moved since the last frame drawn ([`FrameInputs::moved`]).
pub fn frame_inputs<'a>(
    driver: &'a Driver,
    shown: &'a Shown,
    camera: &'a Camera,
    render: &'a RenderSettings,
    moved: Option<f32>,
) -> FrameInputs<'a> {
    let solver = driver.solver();
    let grid = solver.params().grid;
    let (particles, particle_count) = shown.pages(solver);
    FrameInputs {
        camera,
        settings: render,
        particles,
        particle_count,
        particle_radius: 0.5 * driver.spacing() as f32,
        domain_min: grid.domain_min.as_vec3(),
        domain_max: grid.domain_max().as_vec3(),
        moved,
    }
}

/// Framing a box with the camera, shared with baked images.
pub use powder::render::framing::frame_box;
