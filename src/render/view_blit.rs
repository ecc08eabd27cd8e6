//! The `view_blit` pass (`shaders/render/view_blit.wgsl`): the app's 3D view texture copied, with
//! linear filtering, into its rectangle of the window from inside egui's render pass.
//!
//! The app draws the scene into a texture (at a fraction of the window's resolution on software
//! adapters) and shows it in egui's central panel. Shown as an egui image, it went through egui's
//! general pipeline (vertex colour, dithering, alpha blending): on lavapipe that took about as
//! long as rendering the scene. This pipeline writes the texel and nothing else.
//!
//! The same pass, with premultiplied-alpha blending, lays the app's cached UI layer over the
//! window (`src/app/window/ui_layer.rs`).

use super::bindings::{pipeline_layout, sampled_entries};
use super::shaders::{DepthKind, RenderShader};

/// The pipeline, its sampler and the bind group of the current view texture.
pub struct ViewBlit {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
    sampler: wgpu::Sampler,
    group: Option<wgpu::BindGroup>,
}

impl ViewBlit {
    /// Builds the pipeline for a window surface of `target_format` (single-sampled, no depth, as
    /// egui's pass). `blend`: `None` replaces the pixels (the 3D view); premultiplied-alpha
    /// blending lays a layer with transparent parts over them (the UI layer).
    pub fn new(device: &wgpu::Device, target_format: wgpu::TextureFormat, blend: Option<wgpu::BlendState>) -> Self {
        let shader = RenderShader::ViewBlit;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(shader.label()),
            entries: &sampled_entries(0, wgpu::ShaderStages::FRAGMENT, wgpu::TextureViewDimension::D2),
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader.label()),
            source: wgpu::ShaderSource::Wgsl(shader.composed_source(DepthKind::Single).into()),
        });
        let pipeline_layout = pipeline_layout(device, shader.label(), &[&layout]);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(shader.label()),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("view_blit_vertex"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("view_blit_fragment"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: target_format,
                    blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some(shader.label()),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        Self { layout, pipeline, sampler, group: None }
    }

    /// Shows `view` from now on (a view of a texture with `TEXTURE_BINDING` usage whose texels are
    /// what the window should show: for a non-sRGB window, the sRGB-encoded bytes).
    pub fn set_view(&mut self, device: &wgpu::Device, view: &wgpu::TextureView) {
        self.group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(RenderShader::ViewBlit.label()),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(view) },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(&self.sampler) },
            ],
        }));
    }

    /// Draws the view over the pass's current viewport; nothing before [`ViewBlit::set_view`].
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(group) = &self.group {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..3, 0..1);
        }
    }
}
