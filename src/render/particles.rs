//! The `particles` stage (`shaders/render/particles.wgsl`): one lit sphere impostor per particle.
//!
//! `particles_shade` (compute) reads the frame uniform, the particle buffer and the density volume;
//! it culls particles outside the view or buried under dense snow and appends the rest, with their
//! packed albedo and sun/sky visibility, to [`ParticleShading`]'s records, counting vertices in its
//! indirect draw arguments. The draw reads the records, draws one triangle per visible particle (a
//! non-instanced triangle list: lavapipe runs the vertex stage on one thread, so three vertices per
//! particle cost far less than an instanced quad) and writes colour and the sphere's true depth
//! (`frag_depth`), so impostors intersect each other and the ground exactly. With MSAA the
//! silhouette's coverage goes through alpha-to-coverage; alpha is not written, the target stays
//! opaque.

use super::bindings::{
    Layouts, depth_state, dispatch_size, encode_srgb, pipeline_layout, shader_module, storage_entry,
};
use super::shaders::{DepthKind, RenderShader};

/// Threads per workgroup of `particles_shade`; passed as an override constant.
pub const SHADE_WORKGROUP_SIZE: u32 = 256;
/// Bytes of one `ImpostorRecord` in `particles.wgsl` (checked by `tests/render_shaders.rs`).
pub const IMPOSTOR_RECORD_BYTES: u64 = 32;
/// `DrawIndirectArgs` before the shade pass counts: no vertices, one instance.
const EMPTY_DRAW: [u32; 4] = [0, 1, 0, 0];

/// The shade and draw pipelines.
pub struct ParticlesPass {
    shade_layout: wgpu::BindGroupLayout,
    draw_layout: wgpu::BindGroupLayout,
    shade: wgpu::ComputePipeline,
    draw: wgpu::RenderPipeline,
}

/// The visible particles' records, the indirect draw arguments that count them, and their bind
/// groups (written by the shade, read by the draw).
pub struct ParticleShading {
    /// Particles it has room for.
    pub capacity: u32,
    draw_args: wgpu::Buffer,
    empty_draw: wgpu::Buffer,
    shade_group: wgpu::BindGroup,
    draw_group: wgpu::BindGroup,
}

impl ParticleShading {
    /// The buffer of `DrawIndirectArgs` the shade pass fills (vertex count = 3 × visible particles).
    pub fn draw_args(&self) -> &wgpu::Buffer {
        &self.draw_args
    }
}

impl ParticlesPass {
    /// Builds the pipelines for `format` at `sample_count` samples per pixel.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let shader = RenderShader::Particles;
        let module = shader_module(device, layouts, shader, DepthKind::Single);
        let group = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries })
        };
        let compute = wgpu::ShaderStages::COMPUTE;
        let shade_layout =
            group("render.particles.shade", &[storage_entry(0, compute, false), storage_entry(1, compute, false)]);
        let draw_layout = group("render.particles.draw", &[storage_entry(2, wgpu::ShaderStages::VERTEX, true)]);
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
        let constants = [("EDGE_COVERAGE", if multisampled { 1.0 } else { 0.0 }), encode_srgb(format)];
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

    /// Record and argument buffers for at least `count` particles (room to grow by a quarter), as
    /// far as one binding holds ([`ParticlesPass::shading_capacity`]).
    pub fn shading(&self, device: &wgpu::Device, count: u32) -> ParticleShading {
        use wgpu::util::DeviceExt;
        let capacity = Self::shading_capacity(device, count.saturating_add(count / 4));
        let records = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.particles.impostors"),
            size: capacity as u64 * IMPOSTOR_RECORD_BYTES,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let draw_args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.particles.draw_args"),
            size: size_of_val(&EMPTY_DRAW) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let empty_draw = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("render.particles.empty_draw"),
            contents: bytemuck::cast_slice(&EMPTY_DRAW),
            usage: wgpu::BufferUsages::COPY_SRC,
        });
        let shade_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.particles.shade"),
            layout: &self.shade_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: records.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: draw_args.as_entire_binding() },
            ],
        });
        let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.particles.draw"),
            layout: &self.draw_layout,
            entries: &[wgpu::BindGroupEntry { binding: 2, resource: records.as_entire_binding() }],
        });
        ParticleShading { capacity, draw_args, empty_draw, shade_group, draw_group }
    }

    /// The records a list for `count` visible particles gets: at least one, and no more than one
    /// binding holds (64M on a 2 GiB binding; more particles than that take several pages of the
    /// solver, whose visible ones share the list) or than the u32 vertex count can draw.
    pub fn shading_capacity(device: &wgpu::Device, count: u32) -> u32 {
        let binding = crate::sim::capacity::max_storage_bytes(device) / IMPOSTOR_RECORD_BYTES;
        count.min(u32::MAX / 3).min(binding.min(u32::MAX as u64) as u32).max(1)
    }

    /// Records `particles_shade` over each page: its frame and scene groups (the frame's
    /// `particle_count` the page's) and its count. Visible particles past the list's capacity are
    /// not drawn (`particles.wgsl` drops them).
    pub fn record_shade(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pages: &[([&wgpu::BindGroup; 2], u32)],
        shading: &ParticleShading,
    ) {
        encoder.copy_buffer_to_buffer(&shading.empty_draw, 0, &shading.draw_args, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("render.particles.shade"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.shade);
        pass.set_bind_group(2, &shading.shade_group, &[]);
        // Each page appends its visible particles to the one list: the places are atomics.
        for &(groups, count) in pages {
            let workgroups = count.div_ceil(SHADE_WORKGROUP_SIZE);
            if workgroups > 0 {
                pass.set_bind_group(0, groups[0], &[]);
                pass.set_bind_group(1, groups[1], &[]);
                let (x, y) = dispatch_size(workgroups);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
    }

    /// Draws the particles the last [`ParticlesPass::record_shade`] found visible, three vertices
    /// each (an indirect draw). Groups 0 and 1 must be bound.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, shading: &ParticleShading) {
        pass.set_pipeline(&self.draw);
        pass.set_bind_group(2, &shading.draw_group, &[]);
        pass.draw_indirect(&shading.draw_args, 0);
    }
}

/// The colour fields' albedos on the host, for legends: the same stops and formulas as
/// `speed_ramp`, `plastic_ramp` and `material_color` in `colors.wgsl` (keep in sync;
/// `tests/color_legend.rs` compares the stops with the shader's text).
pub mod color_ramps {
    use glam::Vec3;

    /// `speed_ramp`'s stops, from still (0) to `speed_scale` and above (1).
    pub const SPEED_STOPS: [[f32; 3]; 5] =
        [[0.08, 0.20, 0.75], [0.05, 0.60, 0.85], [0.15, 0.75, 0.25], [0.95, 0.80, 0.10], [0.90, 0.12, 0.05]];
    /// `plastic_ramp`'s colours: Jp = 1, fully compressed (Jp ≤ 1/√2), fully stretched (Jp ≥ √2).
    pub const PLASTIC_NEUTRAL: [f32; 3] = [0.88, 0.88, 0.88];
    /// See [`PLASTIC_NEUTRAL`].
    pub const PLASTIC_COMPRESSED: [f32; 3] = [0.95, 0.42, 0.10];
    /// See [`PLASTIC_NEUTRAL`].
    pub const PLASTIC_STRETCHED: [f32; 3] = [0.35, 0.30, 0.95];
    /// `material_color`'s palette, by material id modulo 8.
    pub const MATERIAL_PALETTE: [[f32; 3]; 8] = [
        [0.12, 0.47, 0.71],
        [1.00, 0.50, 0.05],
        [0.17, 0.63, 0.17],
        [0.84, 0.15, 0.16],
        [0.58, 0.40, 0.74],
        [0.55, 0.34, 0.29],
        [0.89, 0.47, 0.76],
        [0.74, 0.74, 0.13],
    ];

    /// Linear albedo of speed / speed_scale = `s` (clamped to 0..1).
    pub fn speed(s: f32) -> Vec3 {
        let x = s.clamp(0.0, 1.0) * 4.0;
        let i = (x as usize).min(3);
        Vec3::from(SPEED_STOPS[i]).lerp(Vec3::from(SPEED_STOPS[i + 1]), x - i as f32)
    }

    /// Linear albedo of plastic Jacobian `jp`: `s = clamp(2 log₂ Jp, −1, 1)`.
    pub fn plastic(jp: f32) -> Vec3 {
        let s = (2.0 * jp.max(1e-6).log2()).clamp(-1.0, 1.0);
        let far = if s < 0.0 { PLASTIC_COMPRESSED } else { PLASTIC_STRETCHED };
        Vec3::from(PLASTIC_NEUTRAL).lerp(Vec3::from(far), s.abs())
    }

    /// Linear albedo of material `id`.
    pub fn material(id: u32) -> Vec3 {
        Vec3::from(MATERIAL_PALETTE[id as usize % 8])
    }
}
