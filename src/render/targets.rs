//! The size-dependent textures the renderer owns: the depth buffer and, with MSAA, the
//! multisampled colour buffer that is resolved into the caller's target.

use super::bindings::DEPTH_FORMAT;

/// Depth (and MSAA colour) of one output size.
pub struct FrameTargets {
    /// Output size, pixels.
    pub size: (u32, u32),
    /// Multisampled colour, `None` at one sample per pixel (the draws go straight to the target).
    pub msaa_color: Option<wgpu::TextureView>,
    /// Depth of the opaque scene; also read by the volume raymarch.
    pub depth: wgpu::TextureView,
}

impl FrameTargets {
    /// Creates the textures for `width` × `height` (each at least 1) pixels.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, sample_count: u32, width: u32, height: u32) -> Self {
        let size = wgpu::Extent3d { width: width.max(1), height: height.max(1), depth_or_array_layers: 1 };
        let texture = |label: &str, format: wgpu::TextureFormat, usage: wgpu::TextureUsages| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let msaa_color = (sample_count > 1)
            .then(|| texture("render.msaa_color", format, attachment).create_view(&Default::default()));
        let depth = texture("render.depth", DEPTH_FORMAT, attachment | wgpu::TextureUsages::TEXTURE_BINDING)
            .create_view(&Default::default());
        Self { size: (size.width, size.height), msaa_color, depth }
    }
}
