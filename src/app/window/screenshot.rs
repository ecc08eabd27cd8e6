//! Screenshots: the frame just drawn, rendered again at the view's size into an offscreen target
//! and saved as PNG (the UI panel is not part of it).

use std::path::{Path, PathBuf};

use powder::gpu::Gpu;
use powder::render::offscreen::OffscreenTarget;
use powder::render::{FrameInputs, Renderer};

use crate::app::window::gfx::VIEW_FORMAT;

/// `powder_screenshot_NNN.png` in [`crate::app::run::recording::screenshot_folder`] (created if missing),
/// the first number not taken; in the working directory if that folder cannot be made.
pub fn default_path() -> PathBuf {
    crate::app::run::recording::next_screenshot().unwrap_or_else(|e| {
        log::warn!("{e}; the screenshot goes to the working directory");
        crate::app::run::recording::first_free(Path::new("."), "powder_screenshot", ".png")
    })
}

/// Renders `inputs` at `size` with `renderer` (already sized for it) and writes `path`.
pub fn save(
    gpu: &Gpu,
    renderer: &mut Renderer,
    inputs: &FrameInputs,
    size: (u32, u32),
    path: &Path,
) -> Result<(), String> {
    let target = OffscreenTarget::new(&gpu.device, size.0, size.1, VIEW_FORMAT);
    let mut encoder =
        gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.screenshot") });
    renderer.render(&gpu.device, &gpu.queue, &mut encoder, target.view(), inputs);
    gpu.queue.submit([encoder.finish()]);
    target.save_png(gpu, path).map_err(|e| format!("cannot write the screenshot {}: {e}", path.display()))
}
