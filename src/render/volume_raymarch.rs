//! The `volume_raymarch` pass (`shaders/render/volume_raymarch.wgsl`): the density volume drawn
//! over the finished opaque scene.
//!
//! Reads the frame uniform, the density volume, the scene depth (group 2; sample 0 of the MSAA
//! depth) and the occupied box of the volume: the pass draws that box's back faces, so only the
//! pixels it covers march (a software rasteriser runs every instruction of a full-screen shader on
//! every pixel, early exits included), and rays march only through it. Writes premultiplied colour blended over the single-sample output, so it runs once per
//! pixel and after the MSAA resolve. Each ray stops at the domain box and at the scene depth: the
//! ground and, in `Both` mode, the impostors hide the snow behind them and show through the
//! translucent snow in front of them.

use super::bindings::{Layouts, encode_srgb, pipeline_layout, shader_module, storage_entry};
use super::shaders::{DepthKind, RenderShader};

/// The raymarch pipeline and the layout of its depth binding.
pub struct VolumeRaymarch {
    depth_layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

impl VolumeRaymarch {
    /// Builds the pipeline for a single-sample `format` output; `depth_samples` is the sample count
    /// of the scene depth texture it reads.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: wgpu::TextureFormat, depth_samples: u32) -> Self {
        let shader = RenderShader::VolumeRaymarch;
        let multisampled = depth_samples > 1;
        let depth_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.volume_raymarch.depth"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled,
                    },
                    count: None,
                },
                storage_entry(1, wgpu::ShaderStages::VERTEX_FRAGMENT, true),
            ],
        });
        let depth_kind = if multisampled { DepthKind::Multisampled } else { DepthKind::Single };
        let module = shader_module(device, layouts, shader, depth_kind);
        let layout = pipeline_layout(device, shader.label(), &[&layouts.frame, &layouts.scene, &depth_layout]);
        let constants = [encode_srgb(format)];
        let options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(shader.label()),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("volume_raymarch_vertex"),
                compilation_options: options(),
                buffers: &[],
            },
            // The box's back faces: each covered pixel once, from outside or inside the box.
            primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Front), ..Default::default() },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("volume_raymarch_fragment"),
                compilation_options: options(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: Some(wgpu::BlendState {
                        color: wgpu::BlendComponent {
                            src_factor: wgpu::BlendFactor::One,
                            dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                            operation: wgpu::BlendOperation::Add,
                        },
                        // The output stays opaque.
                        alpha: wgpu::BlendComponent {
                            src_factor: wgpu::BlendFactor::Zero,
                            dst_factor: wgpu::BlendFactor::One,
                            operation: wgpu::BlendOperation::Add,
                        },
                    }),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self { depth_layout, pipeline }
    }

    /// The group-2 bind group: the scene depth and the volume's occupied box.
    pub fn bind_group(
        &self,
        device: &wgpu::Device,
        depth: &wgpu::TextureView,
        occupied: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.volume_raymarch"),
            layout: &self.depth_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(depth) },
                wgpu::BindGroupEntry { binding: 1, resource: occupied.as_entire_binding() },
            ],
        })
    }

    /// Records the raymarch over `target` (loaded, not cleared).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        groups: [&wgpu::BindGroup; 3],
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("render.volume_raymarch"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        for (index, group) in groups.into_iter().enumerate() {
            pass.set_bind_group(index as u32, group, &[]);
        }
        pass.draw(0..36, 0..1);
    }
}
