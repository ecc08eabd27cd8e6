//! Captures of what the window shows: the frame's surface texture copied out after egui drew
//! over the 3D view, so a capture holds the panel, the grid view, the plane's outline and the
//! messages exactly as on screen. The whole window (Shift+F12) or the 3D view's rectangle of it.

use std::path::{Path, PathBuf};

use powder::gpu::Gpu;
use powder::render::offscreen::write_png;

/// A capture asked for: where to write it and, for the 3D view alone, the pixel rectangle
/// `[x, y, width, height]` of the window to keep.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureRequest {
    /// The PNG to write.
    pub path: PathBuf,
    /// The part of the window to keep; `None`: all of it.
    pub crop: Option<[u32; 4]>,
}

/// Bytes per row of a texture copy: wgpu's 256-byte alignment.
pub fn padded_row(width: u32) -> u32 {
    (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// Records a copy of `texture` (the frame's surface texture) into a new readable buffer.
pub fn encode_copy(device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture) -> wgpu::Buffer {
    let (width, height) = (texture.width(), texture.height());
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("app.capture"),
        size: padded_row(width) as u64 * height as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded_row(width)),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
    );
    buffer
}

/// The RGBA pixels of `rect` (`[x, y, width, height]`, clamped to the image) out of rows of
/// `padded` bytes of a `width`-pixel image in `format` (BGRA formats swapped to RGBA).
pub fn crop_rgba(data: &[u8], width: u32, height: u32, padded: u32, rect: [u32; 4], bgra: bool) -> (u32, u32, Vec<u8>) {
    let x0 = rect[0].min(width);
    let y0 = rect[1].min(height);
    let w = rect[2].min(width - x0);
    let h = rect[3].min(height - y0);
    let mut out = Vec::with_capacity((w * h * 4) as usize);
    for y in y0..y0 + h {
        let row = &data[(y * padded) as usize..][..(width * 4) as usize];
        for px in row[(x0 * 4) as usize..((x0 + w) * 4) as usize].chunks_exact(4) {
            let rgb = if bgra { [px[2], px[1], px[0]] } else { [px[0], px[1], px[2]] };
            // The window is opaque: the surface's alpha says nothing about what is shown.
            out.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
        }
    }
    (w, h, out)
}

/// Waits for `buffer` (a copy of a `width` × `height` texture in `format`) and writes the
/// request's part of it as PNG.
pub fn save(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    request: &CaptureRequest,
    submission: &wgpu::SubmissionIndex,
) -> Result<(), String> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    gpu.poll(Some(submission), Some(std::time::Duration::from_secs(10)));
    rx.try_recv()
        .map_err(|_| "the capture was not read back in time".to_string())?
        .map_err(|e| format!("reading the capture back failed: {e}"))?;
    let bgra = matches!(format, wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb);
    let rect = request.crop.unwrap_or([0, 0, width, height]);
    let mapped = slice.get_mapped_range().map_err(|e| format!("reading the capture back failed: {e}"))?;
    let (w, h, pixels) = crop_rgba(&mapped, width, height, padded_row(width), rect, bgra);
    drop(mapped);
    buffer.unmap();
    write_to(&request.path, w, h, &pixels)
}

fn write_to(path: &Path, w: u32, h: u32, pixels: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_png(path, w, h, pixels).map_err(|e| format!("cannot write the capture {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crop keeps the asked rectangle of the rows (skipping the row padding), swaps BGRA to
    /// RGBA and makes the pixels opaque.
    #[test]
    fn a_crop_keeps_its_rectangle_in_rgba() {
        let (width, height) = (3, 2);
        let padded = padded_row(width);
        assert_eq!(padded, 256);
        let mut data = vec![0u8; (padded * height) as usize];
        for y in 0..height {
            for x in 0..width {
                let at = (y * padded + x * 4) as usize;
                data[at..at + 4].copy_from_slice(&[10 * x as u8, 100 + y as u8, 200, 7]); // B, G, R, A
            }
        }
        let (w, h, pixels) = crop_rgba(&data, width, height, padded, [1, 1, 5, 5], true);
        assert_eq!((w, h), (2, 1), "clamped to the image");
        assert_eq!(pixels, [200, 101, 10, 255, 200, 101, 20, 255]);
    }
}
