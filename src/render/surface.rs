//! The `surface` stage (`shaders/render/surface.wgsl`): the snow's surface, extracted from the
//! density volume by marching tetrahedra on the GPU each time the volume is splatted, and drawn as
//! lit triangles. Its CPU twin is [`super::surface_cpu`].
//!
//! `surface_cover` (one thread per particle) first makes the field the surface is drawn from: a
//! copy of the fill sums in which every particle whose interpolated fill falls short of
//! [`COVER_FILL`] raises the corners of its tetrahedron by the shortfall, so spread-out snow stays inside the
//! surface. `surface_prepare` reads the volume's occupied box and writes the indirect dispatch of
//! `surface_make_vertices` (one thread per voxel centre around the box: a vertex per crossing
//! edge, its place in the edge map, and the list of cubes with corners on both sides);
//! `surface_count_cubes` writes that of `surface_make_triangles` (one thread per listed cube: three
//! vertex indices per triangle), which read the fixed-point fill sums and the
//! volume texture; `surface_finish` turns the triangle count into the indexed draw's arguments and
//! the vertex count into the dispatch of `surface_light_vertices` (one thread per vertex: normal,
//! light and colour; the shader says why that is a pass of its own).

use super::bindings::{
    Layouts, buffer_bind_group, compute_pipeline, depth_state, dispatch_size, encode_srgb, pipeline_layout,
    shader_module, storage_buffer, storage_entry,
};
use super::shaders::{DepthKind, RenderShader};
use super::volume_splat::VolumeGrid;
use crate::gpu::{Gpu, GpuError};

pub use super::surface_params::{COVER_FILL, SURFACE_EDGE_MARGIN, SURFACE_ISO};
/// Threads per workgroup of the surface's per-item passes. Mirrors `SURFACE_WORKGROUP`.
const SURFACE_WORKGROUP: u32 = 64;
/// Vertices a list holds per particle. Packed snow makes far fewer (its surface grows as the
/// particles' count to the power 2/3), but `surface_cover` closes each lone particle of a splash in
/// a small shell of its own: `scenes/snowball_collision.json` at frame 12, burst into dust, makes
/// 25,452 vertices for 23,373 particles (1.09 each), past the one per particle this once was.
const VERTICES_PER_PARTICLE: u32 = 4;
/// Fewest vertices a list holds.
const MIN_VERTICES: u32 = 1 << 15;
/// Most vertices a list holds (64 MiB, and twice as many triangles, 48 MiB): a 128³ volume's
/// surface needs far fewer unless the snow is dust.
const MAX_VERTICES: u32 = 1 << 21;
/// Triangles per vertex a list has room for: a closed surface has about two (Euler: F ≈ 2V).
const TRIANGLES_PER_VERTEX: u32 = 2;
/// Bytes of `SurfaceGrid` in `surface.wgsl`.
const GRID_BYTES: u64 = 36;
/// Bytes of `SurfaceDrawArgs` in `surface.wgsl`: the indexed draw's arguments, then a dispatch.
pub const DRAW_ARGS_BYTES: u64 = 32;
/// Where in `SurfaceDrawArgs` the dispatch of `surface_light_vertices` lies (after the draw's 5 words).
pub const LIGHT_DISPATCH_OFFSET: u64 = 20;

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
    light_layout: wgpu::BindGroupLayout,
    draw_layout: wgpu::BindGroupLayout,
    cover_layout: wgpu::BindGroupLayout,
    cover: wgpu::ComputePipeline,
    prepare: wgpu::ComputePipeline,
    count_cubes: wgpu::ComputePipeline,
    vertices: wgpu::ComputePipeline,
    triangles: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
    light: wgpu::ComputePipeline,
    draw: wgpu::RenderPipeline,
}

/// The vertex and triangle lists of one volume, the edge map between them and the buffers that
/// count them.
pub struct SurfaceMesh {
    /// Vertices the list holds (and half as many as the triangle list's triangles).
    pub capacity: u32,
    /// The splat's fill sums ([`VolumeGrid::fixed`]), copied into `field` before each extraction.
    sums: wgpu::Buffer,
    /// The field the surface is drawn from: the fill sums, raised where particles fall short of
    /// [`COVER_FILL`] (fixed point, as the sums).
    field: wgpu::Buffer,
    cover_group: wgpu::BindGroup,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    grid: wgpu::Buffer,
    dispatch: wgpu::Buffer,
    draw_args: wgpu::Buffer,
    prepare_group: wgpu::BindGroup,
    extract_group: wgpu::BindGroup,
    /// The fill sums, grid and vertices: surface_light_vertices's group, without the draw
    /// arguments its dispatch reads.
    light_group: wgpu::BindGroup,
    draw_group: wgpu::BindGroup,
}

/// The last extracted surface, on the host ([`SurfaceMesh::read`]).
#[derive(Clone, Debug)]
pub struct SurfaceContents {
    /// Vertices found, also those past the list's capacity.
    pub found_vertices: u32,
    /// Triangles found, also those past the list's capacity.
    pub found: u32,
    /// The vertices that fit the list, one per crossing edge, in no particular order.
    pub vertices: Vec<SurfaceVertex>,
    /// Three vertex indices per triangle, those that fit the list.
    pub triangles: Vec<[u32; 3]>,
}

impl SurfaceMesh {
    /// Copies the field the last extraction drew the surface from to the host (fixed point, x
    /// fastest, as [`super::volume_splat::VolumeContents::sums`]; waits for the GPU).
    pub fn read_field(&self, gpu: &Gpu) -> Result<Vec<u32>, GpuError> {
        Ok(bytemuck::pod_collect_to_vec(&gpu.read_buffer(&self.field)?))
    }

    /// Copies the lists to the host (waits for the GPU): for tests and mesh export.
    pub fn read(&self, gpu: &Gpu) -> Result<SurfaceContents, GpuError> {
        let grid: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&self.grid)?);
        let (found_vertices, found) = (grid.get(6).copied().unwrap_or(0), grid.get(7).copied().unwrap_or(0));
        let mut vertices: Vec<SurfaceVertex> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&self.vertices)?);
        vertices.truncate(found_vertices.min(self.capacity) as usize);
        let indices: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&self.indices)?);
        let stored = found.min(TRIANGLES_PER_VERTEX * self.capacity) as usize;
        let triangles = indices.chunks_exact(3).take(stored).map(|t| [t[0], t[1], t[2]]).collect();
        Ok(SurfaceContents { found_vertices, found, vertices, triangles })
    }
}

impl SurfaceContents {
    /// The surface as an indexed mesh (positions, normals, triangles).
    pub fn mesh(&self) -> super::surface_cpu::IndexedMesh {
        super::surface_cpu::IndexedMesh {
            positions: self.vertices.iter().map(|v| glam::Vec3::from(v.position)).collect(),
            normals: self.vertices.iter().map(|v| glam::Vec3::from(v.normal)).collect(),
            triangles: self.triangles.clone(),
        }
    }
}

/// Vertices a list gets for `particle_count` particles: [`VERTICES_PER_PARTICLE`] per particle,
/// within [2¹⁵, 2²¹] and one binding.
pub fn surface_capacity(device: &wgpu::Device, particle_count: u32) -> u32 {
    let per_vertex = size_of::<SurfaceVertex>() as u64;
    let binding = crate::sim::capacity::max_storage_bytes(device) / per_vertex;
    let wanted = particle_count.saturating_mul(VERTICES_PER_PARTICLE);
    wanted.clamp(MIN_VERTICES, MAX_VERTICES).min(binding.min(u32::MAX as u64) as u32)
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
                storage_entry(0, compute, true),
                storage_entry(1, compute, false),
                storage_entry(2, compute, false),
                storage_entry(11, compute, true),
            ],
        );
        let extract_layout = group(
            "render.surface.extract",
            &[
                storage_entry(3, compute, true),
                storage_entry(4, compute, false),
                storage_entry(5, compute, false),
                storage_entry(6, compute, false),
                storage_entry(7, compute, false),
                storage_entry(8, compute, false),
                storage_entry(10, compute, false),
            ],
        );
        let light_layout = group(
            "render.surface.light",
            &[storage_entry(3, compute, true), storage_entry(4, compute, false), storage_entry(6, compute, false)],
        );
        let draw_layout = group("render.surface.draw", &[storage_entry(9, wgpu::ShaderStages::VERTEX, true)]);
        let cover_layout =
            group("render.surface.cover", &[storage_entry(12, compute, false), storage_entry(13, compute, true)]);
        // Every compute pass sees the frame (group 0) and the scene (group 1); group 2 is its own.
        let make = |label: &str, entry: &str, group: &wgpu::BindGroupLayout| {
            compute_pipeline(device, label, &module, entry, &[&layouts.frame, &layouts.scene, group])
        };
        let cover_module = shader_module(device, layouts, RenderShader::SurfaceCover, DepthKind::Single);
        let cover = compute_pipeline(
            device,
            "render.surface_cover",
            &cover_module,
            "surface_cover",
            &[&layouts.frame, &layouts.scene, &cover_layout],
        );
        let prepare = make("render.surface.prepare", "surface_prepare", &prepare_layout);
        let count_cubes = make("render.surface.count_cubes", "surface_count_cubes", &prepare_layout);
        let vertices = make("render.surface.vertices", "surface_make_vertices", &extract_layout);
        let triangles = make("render.surface.triangles", "surface_make_triangles", &extract_layout);
        let finish = make("render.surface.finish", "surface_finish", &extract_layout);
        let light = make("render.surface.light", "surface_light_vertices", &light_layout);
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
        Self {
            prepare_layout,
            extract_layout,
            light_layout,
            draw_layout,
            cover_layout,
            cover,
            prepare,
            count_cubes,
            vertices,
            triangles,
            finish,
            light,
            draw,
        }
    }

    /// Lists of `capacity` vertices (and twice as many triangles) for the surface of `volume`.
    pub fn mesh(&self, device: &wgpu::Device, volume: &VolumeGrid, capacity: u32) -> SurfaceMesh {
        let buffer = |label: &str, size: u64, usage: wgpu::BufferUsages| storage_buffer(device, label, size, usage);
        let copy = wgpu::BufferUsages::COPY_SRC;
        let field = buffer("render.surface.field", volume.fixed.size(), copy | wgpu::BufferUsages::COPY_DST);
        let cover_group =
            buffer_bind_group(device, "render.surface.cover", &self.cover_layout, &[(12, &field), (13, &volume.fixed)]);
        let vertices = buffer("render.surface.vertices", capacity as u64 * size_of::<SurfaceVertex>() as u64, copy);
        let triangles = TRIANGLES_PER_VERTEX as u64 * capacity as u64;
        let indices = buffer("render.surface.indices", triangles * 12, copy | wgpu::BufferUsages::INDEX);
        // Seven edges per node of the largest node box: the volume and one node beyond each face.
        let nodes = (volume.dims + 2).as_u64vec3();
        let edges = buffer("render.surface.edges", 7 * 4 * nodes.x * nodes.y * nodes.z, wgpu::BufferUsages::empty());
        let grid = buffer("render.surface.grid", GRID_BYTES, copy);
        // A mixed cube makes at least one triangle, so the triangle list's length bounds them.
        let cubes = buffer("render.surface.cubes", triangles * 4, wgpu::BufferUsages::empty());
        let dispatch = buffer("render.surface.dispatch", 24, wgpu::BufferUsages::INDIRECT);
        // The indexed draw's 5 words, then surface_light_vertices's dispatch (3 words).
        let draw_args = buffer("render.surface.draw_args", DRAW_ARGS_BYTES, wgpu::BufferUsages::INDIRECT | copy);
        let prepare_group = buffer_bind_group(
            device,
            "render.surface.prepare",
            &self.prepare_layout,
            &[(0, &volume.occupied), (1, &grid), (2, &dispatch), (11, &cubes)],
        );
        let extract_group = buffer_bind_group(
            device,
            "render.surface.extract",
            &self.extract_layout,
            &[(3, &field), (4, &grid), (5, &edges), (6, &vertices), (7, &indices), (8, &draw_args), (10, &cubes)],
        );
        let light_group = buffer_bind_group(
            device,
            "render.surface.light",
            &self.light_layout,
            &[(3, &field), (4, &grid), (6, &vertices)],
        );
        let draw_group = buffer_bind_group(device, "render.surface.draw", &self.draw_layout, &[(9, &vertices)]);
        SurfaceMesh {
            capacity,
            sums: volume.fixed.clone(),
            field,
            cover_group,
            vertices,
            indices,
            grid,
            dispatch,
            draw_args,
            prepare_group,
            extract_group,
            light_group,
            draw_group,
        }
    }

    /// Records the extraction of `mesh` from its volume, which the frame (group 0) and scene
    /// (group 1, the volume texture) describe; `pages` are each particle page's frame and scene
    /// groups and particle count, for `surface_cover`.
    pub fn record_extract(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        groups: [&wgpu::BindGroup; 2],
        pages: &[([&wgpu::BindGroup; 2], u32)],
        mesh: &SurfaceMesh,
    ) {
        encoder.copy_buffer_to_buffer(&mesh.sums, 0, &mesh.field, 0, mesh.field.size());
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("render.surface"), timestamp_writes: None });
        pass.set_pipeline(&self.cover);
        pass.set_bind_group(2, &mesh.cover_group, &[]);
        for &([frame, scene], count) in pages {
            pass.set_bind_group(0, frame, &[]);
            pass.set_bind_group(1, scene, &[]);
            let (x, y) = dispatch_size(count.div_ceil(SURFACE_WORKGROUP));
            pass.dispatch_workgroups(x, y, 1);
        }
        pass.set_bind_group(0, groups[0], &[]);
        pass.set_bind_group(1, groups[1], &[]);
        pass.set_pipeline(&self.prepare);
        pass.set_bind_group(2, &mesh.prepare_group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(2, &mesh.extract_group, &[]);
        pass.set_pipeline(&self.vertices);
        pass.dispatch_workgroups_indirect(&mesh.dispatch, 0);
        pass.set_bind_group(2, &mesh.prepare_group, &[]);
        pass.set_pipeline(&self.count_cubes);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(2, &mesh.extract_group, &[]);
        pass.set_pipeline(&self.triangles);
        pass.dispatch_workgroups_indirect(&mesh.dispatch, 12);
        pass.set_pipeline(&self.finish);
        pass.dispatch_workgroups(1, 1, 1);
        pass.set_bind_group(2, &mesh.light_group, &[]);
        pass.set_pipeline(&self.light);
        pass.dispatch_workgroups_indirect(&mesh.draw_args, LIGHT_DISPATCH_OFFSET);
    }

    /// Draws the last extracted surface. Groups 0 and 1 must be bound.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, mesh: &SurfaceMesh) {
        pass.set_pipeline(&self.draw);
        pass.set_bind_group(2, &mesh.draw_group, &[]);
        pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed_indirect(&mesh.draw_args, 0);
    }
}
