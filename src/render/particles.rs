//! The `particles` stage (`shaders/render/particles.wgsl`): one lit sphere impostor per particle.
//!
//! `particles_shade` (compute) reads the frame uniform, the particle buffer and the density volume
//! and writes each particle's packed albedo and sun/sky visibility into [`ParticleShading`]. The
//! draw reads the particles and that buffer, draws one triangle per particle (a non-instanced
//! triangle list: lavapipe runs the vertex stage on one thread, so three vertices per particle cost
//! far less than an instanced quad) and writes colour and the sphere's true depth (`frag_depth`),
//! so impostors intersect each other and the ground exactly. With MSAA the silhouette's coverage
//! goes through alpha-to-coverage; alpha itself is not written, so the target stays opaque.

use super::bindings::{Layouts, depth_state, dispatch_size, pipeline_layout, shader_module, storage_entry};
use super::shaders::{DepthKind, RenderShader};

/// Threads per workgroup of `particles_shade`; passed as an override constant.
pub const SHADE_WORKGROUP_SIZE: u32 = 256;
/// Bytes of packed shading per particle (`vec2<u32>`).
const SHADING_BYTES: u64 = 8;

/// The shade and draw pipelines.
pub struct ParticlesPass {
    shade_layout: wgpu::BindGroupLayout,
    draw_layout: wgpu::BindGroupLayout,
    shade: wgpu::ComputePipeline,
    draw: wgpu::RenderPipeline,
}

/// The per-particle shading buffer and its two bind groups (written by the shade, read by the draw).
pub struct ParticleShading {
    /// Particles it has room for.
    pub capacity: u32,
    shade_group: wgpu::BindGroup,
    draw_group: wgpu::BindGroup,
}

impl ParticlesPass {
    /// Builds the pipelines for `format` at `sample_count` samples per pixel.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let shader = RenderShader::Particles;
        let module = shader_module(device, shader, DepthKind::Single);
        let group = |label: &str, entry: wgpu::BindGroupLayoutEntry| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &[entry] })
        };
        let shade_layout = group("render.particles.shade", storage_entry(0, wgpu::ShaderStages::COMPUTE, false));
        let draw_layout = group("render.particles.draw", storage_entry(1, wgpu::ShaderStages::VERTEX, true));
        let shade = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("render.particles.shade"),
            layout: Some(&pipeline_layout(device, shader.label(), &[&layouts.frame, &layouts.scene, &shade_layout])),
            module: &module,
            entry_point: Some("particles_shade"),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &[("SHADE_WORKGROUP_SIZE", SHADE_WORKGROUP_SIZE as f64)],
                ..Default::default()
            },
            cache: None,
        });
        let multisampled = sample_count > 1;
        let constants = [("EDGE_COVERAGE", if multisampled { 1.0 } else { 0.0 })];
        let options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
        let draw = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(shader.label()),
            layout: Some(&pipeline_layout(device, shader.label(), &[&layouts.frame, &layouts.scene, &draw_layout])),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("particles_vertex"),
                compilation_options: options(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(depth_state(wgpu::CompareFunction::Less)),
            multisample: wgpu::MultisampleState {
                count: sample_count,
                mask: !0,
                alpha_to_coverage_enabled: multisampled,
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("particles_fragment"),
                compilation_options: options(),
                targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::COLOR })],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self { shade_layout, draw_layout, shade, draw }
    }

    /// A shading buffer for at least `count` particles (room to grow by a quarter before the next).
    pub fn shading(&self, device: &wgpu::Device, count: u32) -> ParticleShading {
        let capacity = count.max(1).saturating_add(count / 4);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.particles.shading"),
            size: capacity as u64 * SHADING_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let group = |label: &str, layout: &wgpu::BindGroupLayout, binding: u32| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout,
                entries: &[wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }],
            })
        };
        ParticleShading {
            capacity,
            shade_group: group("render.particles.shade", &self.shade_layout, 0),
            draw_group: group("render.particles.draw", &self.draw_layout, 1),
        }
    }

    /// Records `particles_shade` for `count` particles (at most the buffer's capacity).
    pub fn record_shade(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        groups: [&wgpu::BindGroup; 2],
        shading: &ParticleShading,
        count: u32,
    ) {
        let workgroups = count.min(shading.capacity).div_ceil(SHADE_WORKGROUP_SIZE);
        if workgroups == 0 {
            return;
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("render.particles.shade"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.shade);
        pass.set_bind_group(0, groups[0], &[]);
        pass.set_bind_group(1, groups[1], &[]);
        pass.set_bind_group(2, &shading.shade_group, &[]);
        let (x, y) = dispatch_size(workgroups);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Draws `count` impostors (at most the shading buffer's capacity), three vertices each.
    /// Groups 0 and 1 must be bound.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, shading: &ParticleShading, count: u32) {
        // Three vertices per particle must fit a u32 vertex index.
        let count = count.min(shading.capacity).min(u32::MAX / 3);
        if count == 0 {
            return;
        }
        pass.set_pipeline(&self.draw);
        pass.set_bind_group(2, &shading.draw_group, &[]);
        pass.draw(0..count * 3, 0..1);
    }
}
