//! Rendering into a texture instead of a window, and reading the pixels back (PNG output, tests).

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::gpu::Gpu;

/// The format of offscreen targets unless asked otherwise: 8-bit sRGB, as PNG files store it.
pub const DEFAULT_OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// Failures of reading back or saving a rendered image.
#[derive(Debug, Error)]
pub enum RenderError {
    /// The texture's format cannot be returned as RGBA8.
    #[error("cannot read back a {format:?} texture as RGBA8: use Rgba8Unorm(Srgb) or Bgra8Unorm(Srgb)")]
    UnsupportedFormat {
        /// The texture's format.
        format: wgpu::TextureFormat,
    },
    /// Mapping the readback buffer failed (e.g. the device was lost).
    #[error("reading the rendered image back from the GPU failed: {reason}")]
    Readback {
        /// wgpu's reason.
        reason: String,
    },
    /// A file could not be written or renamed.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The PNG encoder failed.
    #[error("cannot encode {} as PNG: {source}", path.display())]
    Png {
        /// The file.
        path: PathBuf,
        /// Why.
        source: png::EncodingError,
    },
}

/// A texture to render into and read back: `RENDER_ATTACHMENT | COPY_SRC`.
pub struct OffscreenTarget {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    width: u32,
    height: u32,
}

impl OffscreenTarget {
    /// Creates a `width` × `height` target (each at least 1) of `format`.
    pub fn new(device: &wgpu::Device, width: u32, height: u32, format: wgpu::TextureFormat) -> Self {
        let (width, height) = (width.max(1), height.max(1));
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("render.offscreen"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        Self { texture, view, width, height }
    }

    /// The view to pass to [`super::Renderer::render`].
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// The texture's format.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.texture.format()
    }

    /// Width and height, pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Copies the image to the host: tightly packed RGBA8 rows, top row first. Waits for all work
    /// submitted so far.
    pub fn read_rgba(&self, gpu: &Gpu) -> Result<Vec<u8>, RenderError> {
        use wgpu::TextureFormat as F;
        let format = self.texture.format();
        let bgra = match format {
            F::Rgba8Unorm | F::Rgba8UnormSrgb => false,
            F::Bgra8Unorm | F::Bgra8UnormSrgb => true,
            _ => return Err(RenderError::UnsupportedFormat { format }),
        };
        let mut pixels =
            gpu.read_texture(&self.texture).map_err(|e| RenderError::Readback { reason: e.to_string() })?;
        if bgra {
            for pixel in pixels.chunks_exact_mut(4) {
                pixel.swap(0, 2);
            }
        }
        Ok(pixels)
    }

    /// Writes the image to `path` as an 8-bit RGBA PNG: into a temporary file in the same
    /// directory first, then renamed, so a reader never sees half a file.
    pub fn save_png(&self, gpu: &Gpu, path: &Path) -> Result<(), RenderError> {
        let pixels = self.read_rgba(gpu)?;
        write_png(path, self.width, self.height, &pixels)
    }
}

/// Encodes tightly packed RGBA8 `pixels` as a PNG at `path` (temporary file, then rename).
pub fn write_png(path: &Path, width: u32, height: u32, pixels: &[u8]) -> Result<(), RenderError> {
    let io = |source| RenderError::Io { path: path.to_path_buf(), source };
    let png_error = |source| RenderError::Png { path: path.to_path_buf(), source };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "image.png".into());
    // Unique per process and call, so concurrent saves of the same path do not share a file.
    static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let serial = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = path.with_file_name(format!(".{name}.{}-{serial}.tmp", std::process::id()));
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        // The renderer's output is sRGB-encoded (an sRGB target, or encoded by the shaders).
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder.write_header().map_err(png_error)?;
        writer.write_image_data(pixels).map_err(png_error)?;
        writer.finish().map_err(png_error)?;
    }
    let result = std::fs::write(&temporary, &bytes).and_then(|()| std::fs::rename(&temporary, path)).map_err(io);
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}
