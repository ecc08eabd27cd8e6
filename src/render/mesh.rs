//! The `mesh` stage (`shaders/render/mesh.wgsl`): collider meshes, opaque and flat-shaded, in the
//! main pass with the snow.
//!
//! Reads the frame uniform, the density volume (the snow's shadow and occlusion on the meshes) and
//! its own vertex buffer: three [`MeshVertex`] per triangle, each with the triangle's face normal, so
//! faces stay flat without a geometry stage. Writes colour and depth. Drawn first in the main pass,
//! so the ground and sky behind a mesh fail the early depth test instead of being shaded, and
//! impostors drawn later intersect it through their `frag_depth`. The volume raymarch reads the same
//! depth buffer, so the volume stops at meshes too. No face is culled: colliders may be open or seen
//! from inside, and the shader lights the side facing the eye.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use super::bindings::{Layouts, depth_state, encode_srgb, pipeline_layout, shader_module};
use super::shaders::{DepthKind, RenderShader};
use crate::mesh::TriangleMesh;

/// One corner of a drawn triangle. Mirrors `MeshVertex` in `shaders/render/mesh.wgsl` (locations 0
/// and 1, checked by `tests/render_shaders.rs` against [`MESH_VERTEX_ATTRIBUTES`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MeshVertex {
    /// World position, metres.
    pub position: [f32; 3],
    /// Unit normal of the triangle, outward for counter-clockwise winding.
    pub normal: [f32; 3],
}

/// Bytes of one [`MeshVertex`].
pub const MESH_VERTEX_BYTES: u64 = size_of::<MeshVertex>() as u64;

/// The vertex attributes of [`MeshVertex`]: position at location 0, normal at location 1.
pub const MESH_VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];

/// Appends three vertices per drawable triangle of `meshes` to `out`, each with the face normal.
/// Triangles with an index out of range, a non-finite corner or no area are skipped: they would draw
/// nothing, and a degenerate triangle has no normal to light it with.
pub fn face_vertices(meshes: &[TriangleMesh], out: &mut Vec<MeshVertex>) {
    for mesh in meshes {
        for &[a, b, c] in &mesh.triangles {
            let corner = |i: u32| mesh.positions.get(i as usize).copied().filter(|p| p.is_finite());
            let (Some(a), Some(b), Some(c)) = (corner(a), corner(b), corner(c)) else { continue };
            let Some(normal) = (b - a).cross(c - a).try_normalize() else { continue };
            out.extend([a, b, c].map(|p: Vec3| MeshVertex { position: p.into(), normal: normal.into() }));
        }
    }
}

/// The pipeline and the uploaded triangles.
pub struct MeshPass {
    pipeline: wgpu::RenderPipeline,
    /// `None` until meshes are set, and again after an empty set.
    vertices: Option<wgpu::Buffer>,
    vertex_count: u32,
    /// Reused between uploads: animated colliders are uploaded every frame.
    staging: Vec<MeshVertex>,
}

impl MeshPass {
    /// Takes over `old`'s uploaded geometry (after the pipeline was rebuilt by a shader reload).
    pub fn keep_geometry_of(&mut self, old: MeshPass) {
        self.vertices = old.vertices;
        self.vertex_count = old.vertex_count;
        self.staging = old.staging;
    }

    /// Builds the pipeline for `format` at `sample_count` samples per pixel.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let shader = RenderShader::Mesh;
        let module = shader_module(device, layouts, shader, DepthKind::Single);
        let layout = pipeline_layout(device, shader.label(), &[&layouts.frame, &layouts.scene]);
        let constants = [encode_srgb(format)];
        let options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(shader.label()),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("mesh_vertex"),
                compilation_options: options(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: MESH_VERTEX_BYTES,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &MESH_VERTEX_ATTRIBUTES,
                })],
            },
            // Both faces: open meshes and meshes seen from inside must not show holes.
            primitive: wgpu::PrimitiveState { cull_mode: None, ..Default::default() },
            depth_stencil: Some(depth_state(wgpu::CompareFunction::Less)),
            multisample: wgpu::MultisampleState { count: sample_count, ..Default::default() },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("mesh_fragment"),
                compilation_options: options(),
                targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::ALL })],
            }),
            multiview_mask: None,
            cache: None,
        });
        Self { pipeline, vertices: None, vertex_count: 0, staging: Vec::new() }
    }

    /// Triangles that will be drawn.
    pub fn triangle_count(&self) -> u32 {
        self.vertex_count / 3
    }

    /// Replaces the drawn triangles with those of `meshes` (an empty slice draws none and frees the
    /// buffer). The vertex buffer is rewritten in place when the new data fits, and otherwise
    /// replaced by one a quarter larger, so a mesh that moves or deforms every frame allocates only
    /// while it grows. Triangles beyond the device's largest buffer are dropped.
    pub fn upload(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, meshes: &[TriangleMesh]) {
        self.staging.clear();
        face_vertices(meshes, &mut self.staging);
        // Whole triangles only, within the buffer size limit and the u32 vertex count of a draw.
        let limit = (device.limits().max_buffer_size / MESH_VERTEX_BYTES).min(u32::MAX as u64) as usize / 3 * 3;
        self.staging.truncate(limit);
        self.vertex_count = self.staging.len() as u32;
        if self.staging.is_empty() {
            self.vertices = None;
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(&self.staging);
        let needed = bytes.len() as u64;
        if self.vertices.as_ref().is_none_or(|b| b.size() < needed) {
            let roomy = (needed + needed / 4).next_multiple_of(MESH_VERTEX_BYTES);
            let size = roomy.min(limit as u64 * MESH_VERTEX_BYTES).max(needed);
            self.vertices = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("render.mesh.vertices"),
                size,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(buffer) = &self.vertices {
            queue.write_buffer(buffer, 0, bytes);
        }
    }

    /// Draws the uploaded triangles, if any. Groups 0 and 1 must be bound.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(buffer) = self.vertices.as_ref().filter(|_| self.vertex_count > 0) else { return };
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, buffer.slice(..self.vertex_count as u64 * MESH_VERTEX_BYTES));
        pass.draw(0..self.vertex_count, 0..1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_triangle_gets_three_vertices_with_its_face_normal() {
        let mesh = TriangleMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            // In the plane z = 0, counter-clockwise seen from +z; in x = 0, counter-clockwise from +x.
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        };
        let mut out = Vec::new();
        face_vertices(&[mesh], &mut out);
        assert_eq!(out.len(), 6);
        assert!(out[..3].iter().all(|v| v.normal == [0.0, 0.0, 1.0]));
        assert!(out[3..].iter().all(|v| v.normal == [1.0, 0.0, 0.0]));
        assert_eq!(out[1].position, [1.0, 0.0, 0.0]);
    }

    #[test]
    fn broken_triangles_are_skipped() {
        let mesh = TriangleMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(f32::NAN, 0.0, 0.0), 2.0 * Vec3::X],
            // Out of range, non-finite, zero area, and one good triangle.
            triangles: vec![[0, 1, 9], [0, 1, 3], [0, 1, 4], [0, 1, 2]],
        };
        let mut out = Vec::new();
        face_vertices(&[mesh.clone(), mesh], &mut out);
        assert_eq!(out.len(), 6, "one good triangle per mesh");
    }
}
