//! The `environment` pass (`shaders/render/environment.wgsl`): the ground plane at
//! `z = domain_min.z`, the sky gradient behind it, and the domain box as lines.
//!
//! Reads the frame uniform and, for the ground's shadow, the density volume. The ground is real
//! geometry (a square around the eye out to the far plane, cut into nine cells so that only the
//! middle one, the ground the snow can shadow, pays for the shadow lookup), so the rasteriser
//! writes its true depth and impostors drawn later intersect it. The sky is a full-screen triangle on the far plane drawn
//! after it with `LessEqual` and no depth write: early depth testing skips every ground pixel, and
//! a software rasteriser, which pays for both sides of a branch, shades each pixel only once.
//!
//! The domain's walls (all but the floor, which is the ground) are drawn after the sky as dim
//! planes with grid lines, lit and shadowed by the snow like the meshes, each only when the eye is
//! inside its plane: the snow is then always in front of it, and the walls facing the eye are left
//! out, so the box reads as a cut-away room whose far walls show what the snow hits.

use super::bindings::{Layouts, depth_state, encode_srgb, pipeline_layout, shader_module};
use super::shaders::{DepthKind, RenderShader};

/// Pipelines of the environment: background and bounds.
pub struct EnvironmentPass {
    ground: wgpu::RenderPipeline,
    ground_shadowed: wgpu::RenderPipeline,
    sky: wgpu::RenderPipeline,
    bounds: wgpu::RenderPipeline,
    walls: wgpu::RenderPipeline,
    /// Whether the walls are drawn (on by default).
    pub walls_visible: bool,
}

impl EnvironmentPass {
    /// Builds the pipelines for `format` at `sample_count` samples per pixel.
    pub fn new(device: &wgpu::Device, layouts: &Layouts, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let shader = RenderShader::Environment;
        let module = shader_module(device, layouts, shader, DepthKind::Single);
        let layout = pipeline_layout(device, shader.label(), &[&layouts.frame, &layouts.scene]);
        let constants = [encode_srgb(format)];
        let options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
        let make = |label: &str,
                    vertex: &str,
                    fragment: &str,
                    topology: wgpu::PrimitiveTopology,
                    compare: wgpu::CompareFunction,
                    write_depth: bool| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vertex),
                    compilation_options: options(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState { topology, ..Default::default() },
                depth_stencil: Some(wgpu::DepthStencilState {
                    depth_write_enabled: Some(write_depth),
                    ..depth_state(compare)
                }),
                multisample: wgpu::MultisampleState { count: sample_count, ..Default::default() },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fragment),
                    compilation_options: options(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        use wgpu::{CompareFunction as Cmp, PrimitiveTopology as Topology};
        let ground_shadowed = make(
            "render.environment.ground_shadowed",
            "ground_vertex",
            "ground_shadowed_fragment",
            Topology::TriangleList,
            Cmp::Less,
            true,
        );
        let ground = make(
            "render.environment.ground",
            "ground_vertex",
            "ground_fragment",
            Topology::TriangleList,
            Cmp::Less,
            true,
        );
        let sky =
            make("render.environment.sky", "sky_vertex", "sky_fragment", Topology::TriangleList, Cmp::LessEqual, false);
        let bounds = make(
            "render.environment.bounds",
            "bounds_vertex",
            "bounds_fragment",
            Topology::LineList,
            Cmp::LessEqual,
            true,
        );
        // No depth write: impostors and the raymarch (which stops at the scene depth) lie in front.
        let walls = make(
            "render.environment.walls",
            "walls_vertex",
            "walls_fragment",
            Topology::TriangleList,
            Cmp::LessEqual,
            false,
        );
        Self { ground, ground_shadowed, sky, bounds, walls, walls_visible: true }
    }

    /// Draws the ground, the sky where the ground is not, the walls seen from inside and the domain
    /// bounds, before the impostors. Groups 0 and 1 must be bound.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.ground_shadowed);
        pass.draw(0..6, 0..1);
        pass.set_pipeline(&self.ground);
        pass.draw(6..54, 0..1);
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
        if self.walls_visible {
            pass.set_pipeline(&self.walls);
            pass.draw(0..30, 0..1);
        }
        pass.set_pipeline(&self.bounds);
        pass.draw(0..24, 0..1);
    }
}
