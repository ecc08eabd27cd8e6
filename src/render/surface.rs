//! The `surface` stage (`shaders/render/surface.wgsl`): the snow's surface, extracted from the
//! density volume by marching tetrahedra on the GPU each time the volume is splatted, and drawn as
//! lit triangles. Its CPU twin is [`super::surface_cpu`].
//!
//! `surface_prepare` reads the volume's occupied box and writes the indirect dispatch of
//! `surface_extract` (one thread per cube of voxel centres around the box), which reads the
//! fixed-point fill sums and the volume texture (sun and sky visibility) and appends triangles to
//! [`SurfaceMesh`]'s list; `surface_finish` turns their count into the draw's arguments. The
//! draw reads the list, three vertices per triangle, non-indexed.

use super::bindings::{Layouts, depth_state, encode_srgb, pipeline_layout, shader_module, storage_entry};
use super::shaders::{DepthKind, RenderShader};
use super::volume_splat::VolumeGrid;
use crate::gpu::{Gpu, GpuError};

/// Fill fraction of the surface (half of snow at rest density). Mirrors `SURFACE_ISO` in
/// `surface.wgsl`, whose comment says why.
pub const SURFACE_ISO: f32 = 0.5;
/// Fraction of an edge a crossing keeps from either end. Mirrors `SURFACE_EDGE_MARGIN`.
pub const SURFACE_EDGE_MARGIN: f32 = 0.02;
/// Fewest triangles a list holds.
const MIN_TRIANGLES: u32 = 1 << 16;
/// Most triangles a list holds (192 MiB): a 128³ volume's surface needs far fewer unless the
/// snow is dust.
const MAX_TRIANGLES: u32 = 1 << 21;

/// One corner of a surface triangle. Keep in sync with `SurfaceVertex` in `surface.wgsl`
/// (`tests/render_shaders.rs` checks the layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SurfaceVertex {
    /// World position, metres.
    pub position: [f32; 3],
    /// Sun and sky visibility, two unorm16 (sun in the low half).
    pub light: u32,
    /// Unit outward normal.
    pub normal: [f32; 3],
    /// Albedo, rgba8 unorm.
    pub albedo: u32,
}

/// The extract and draw pipelines.
pub struct SurfacePass {
    prepare_layout: wgpu::BindGroupLayout,
    extract_layout: wgpu::BindGroupLayout,
    draw_layout: wgpu::BindGroupLayout,
    prepare: wgpu::ComputePipeline,
    extract: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
    draw: wgpu::RenderPipeline,
}

/// The triangle list of one volume and the buffers that count it.
pub struct SurfaceMesh {
    /// Triangles the list holds.
    pub capacity: u32,
    triangles: wgpu::Buffer,
    count: wgpu::Buffer,
    dispatch: wgpu::Buffer,
    draw_args: wgpu::Buffer,
    prepare_group: wgpu::BindGroup,
    extract_group: wgpu::BindGroup,
    draw_group: wgpu::BindGroup,
}

/// The last extracted surface, on the host ([`SurfaceMesh::read`]).
#[derive(Clone, Debug)]
pub struct SurfaceContents {
    /// Triangles found, also those past the list's capacity.
    pub found: u32,
    /// Three corners per triangle, those that fit the list, in no particular order.
    pub vertices: Vec<SurfaceVertex>,
}

impl SurfaceMesh {
    /// Copies the list to the host (waits for the GPU): for tests and mesh export.
    pub fn read(&self, gpu: &Gpu) -> Result<SurfaceContents, GpuError> {
        let count: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&self.count)?);
        let found = count.first().copied().unwrap_or(0);
        let stored = found.min(self.capacity) as usize * 3;
        let bytes = gpu.read_buffer(&self.triangles)?;
        let mut vertices: Vec<SurfaceVertex> = bytemuck::pod_collect_to_vec(&bytes);
        vertices.truncate(stored);
        Ok(SurfaceContents { found, vertices })
    }
}

/// Triangles a list gets for `particle_count` particles: about one per particle, within
/// [2¹⁶, 2²¹] and one binding.
pub fn surface_capacity(device: &wgpu::Device, particle_count: u32) -> u32 {
    let per_triangle = 3 * size_of::<SurfaceVertex>() as u64;
    let binding = crate::sim::capacity::max_storage_bytes(device) / per_triangle;
    particle_count.clamp(MIN_TRIANGLES, MAX_TRIANGLES).min(binding.min(u32::MAX as u64) as u32)
}

impl SurfacePass {
    /// Builds the pipelines for `format` at `sample_count` samples per pixel.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let shader = RenderShader::Surface;
        let module = shader_module(device, layouts, shader, DepthKind::Single);
        let group = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries })
        };
        let compute = wgpu::ShaderStages::COMPUTE;
        let prepare_layout = group(
            "render.surface.prepare",
            &[
                storage_entry(1, compute, true),
                storage_entry(3, compute, false),
                storage_entry(4, compute, false),
                storage_entry(7, compute, false),
            ],
        );
        let extract_layout = group(
            "render.surface.extract",
            &[
                storage_entry(0, compute, true),
                storage_entry(2, compute, false),
                storage_entry(3, compute, false),
                storage_entry(5, compute, false),
                storage_entry(8, compute, true),
            ],
        );
        let draw_layout = group("render.surface.draw", &[storage_entry(6, wgpu::ShaderStages::VERTEX, true)]);
        let make = |label: &str, entry: &str, own: &wgpu::BindGroupLayout| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout(device, label, &[&layouts.frame, &layouts.scene, own])),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        let prepare = make("render.surface.prepare", "surface_prepare", &prepare_layout);
        let extract = make("render.surface.extract", "surface_extract", &extract_layout);
        let finish = make("render.surface.finish", "surface_finish", &extract_layout);
        let constants = [encode_srgb(format)];
        let options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
        let draw = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(shader.label()),
            layout: Some(&pipeline_layout(device, shader.label(), &[&layouts.frame, &layouts.scene, &draw_layout])),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("surface_vertex"),
                compilation_options: options(),
                buffers: &[],
            },
            // The triangles wind counter-clockwise seen from outside the snow; the back faces are
            // inside it, hidden, and culling them halves the rasteriser's work.
            primitive: wgpu::PrimitiveState { cull_mode: Some(wgpu::Face::Back), ..Default::default() },
            depth_stencil: Some(depth_state(wgpu::CompareFunction::Less)),
            multisample: wgpu::MultisampleState { count: sample_count, mask: !0, alpha_to_coverage_enabled: false },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("surface_fragment"),
                compilation_options: options(),
                targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::COLOR })],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self { prepare_layout, extract_layout, draw_layout, prepare, extract, finish, draw }
    }

    /// A triangle list of `capacity` triangles for the surface of `grid`.
    pub fn mesh(&self, device: &wgpu::Device, grid: &VolumeGrid, capacity: u32) -> SurfaceMesh {
        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: usage | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        };
        let copy = wgpu::BufferUsages::COPY_SRC;
        let triangles =
            buffer("render.surface.triangles", capacity as u64 * 3 * size_of::<SurfaceVertex>() as u64, copy);
        let count = buffer("render.surface.count", 4, copy);
        let dispatch = buffer("render.surface.dispatch", 12, wgpu::BufferUsages::INDIRECT);
        let cubes = buffer("render.surface.cubes", 24, copy);
        let draw_args = buffer("render.surface.draw_args", 16, wgpu::BufferUsages::INDIRECT | copy);
        let bind = |label: &str, layout: &wgpu::BindGroupLayout, entries: &[(u32, &wgpu::Buffer)]| {
            let entries: Vec<_> = entries
                .iter()
                .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
                .collect();
            device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
        };
        let prepare_group = bind(
            "render.surface.prepare",
            &self.prepare_layout,
            &[(1, &grid.occupied), (3, &count), (4, &dispatch), (7, &cubes)],
        );
        let extract_group = bind(
            "render.surface.extract",
            &self.extract_layout,
            &[(0, &grid.fixed), (2, &triangles), (3, &count), (5, &draw_args), (8, &cubes)],
        );
        let draw_group = bind("render.surface.draw", &self.draw_layout, &[(6, &triangles)]);
        SurfaceMesh { capacity, triangles, count, dispatch, draw_args, prepare_group, extract_group, draw_group }
    }

    /// Records the extraction of `mesh` from its volume, which the frame (group 0) and scene
    /// (group 1, the volume texture) describe.
    pub fn record_extract(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        groups: [&wgpu::BindGroup; 2],
        mesh: &SurfaceMesh,
    ) {
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("render.surface"), timestamp_writes: None });
        pass.set_bind_group(0, groups[0], &[]);
        pass.set_bind_group(1, groups[1], &[]);
        pass.set_pipeline(&self.prepare);
        pass.set_bind_group(2, &mesh.prepare_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_pipeline(&self.extract);
        pass.set_bind_group(2, &mesh.extract_group, &[]);
        pass.dispatch_workgroups_indirect(&mesh.dispatch, 0);
        pass.set_pipeline(&self.finish);
        pass.dispatch_workgroups(1, 1, 1);
    }

    /// Draws the last extracted surface. Groups 0 and 1 must be bound.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, mesh: &SurfaceMesh) {
        pass.set_pipeline(&self.draw);
        pass.set_bind_group(2, &mesh.draw_group, &[]);
        pass.draw_indirect(&mesh.draw_args, 0);
    }
}
