//! The snow's surface as a mesh, without a window: the renderer's `Surface` frame drawn into a
//! tiny offscreen target, its vertices and triangles read back ([`crate::render::surface`]).

use std::path::PathBuf;

use super::mesh_ply::{surface_file_name, write_mesh_ply};
use super::sink::{FrameSink, SinkError};
use crate::gpu::{Gpu, GpuError};
use crate::render::surface_cpu::IndexedMesh;
use crate::render::{Camera, FrameInputs, OffscreenTarget, RenderMode, RenderSettings, Renderer};
use crate::sim::Solver;

/// Extracts surface meshes of a solver's particles, frame after frame.
pub struct SurfaceBaker {
    renderer: Renderer,
    target: OffscreenTarget,
}

impl SurfaceBaker {
    /// A baker on `gpu`.
    pub fn new(gpu: &Gpu) -> Self {
        let target = OffscreenTarget::new(&gpu.device, 8, 8, crate::render::offscreen::DEFAULT_OFFSCREEN_FORMAT);
        Self { renderer: Renderer::new(&gpu.device, target.format(), 1), target }
    }

    /// The surface of `solver`'s particles drawn at `particle_radius` (half the particle spacing,
    /// metres: it sets the voxel of the density volume, as in the app), its triangles sharing their
    /// vertices. Waits for the GPU.
    pub fn mesh(&mut self, gpu: &Gpu, solver: &Solver, particle_radius: f32) -> Result<IndexedMesh, GpuError> {
        let grid = &solver.params().grid;
        let settings = RenderSettings { mode: RenderMode::Surface, ..RenderSettings::default() };
        let inputs = FrameInputs {
            camera: &Camera::default(),
            settings: &settings,
            particles: solver.particle_pages(),
            particle_count: solver.particle_count(),
            particle_radius,
            domain_min: grid.domain_min.as_vec3(),
            domain_max: grid.domain_max().as_vec3(),
            moved: None,
        };
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        self.renderer.render(&gpu.device, &gpu.queue, &mut encoder, self.target.view(), &inputs);
        gpu.queue.submit([encoder.finish()]);
        let Some(contents) = self.renderer.read_surface(gpu).transpose()? else {
            return Ok(IndexedMesh::default());
        };
        Ok(contents.mesh())
    }
}

/// `powder run --surface`: each frame's surface written to `surface_NNNNN.ply` in the output
/// directory.
pub struct SurfaceSequence {
    baker: SurfaceBaker,
    dir: PathBuf,
    particle_radius: f32,
}

impl SurfaceSequence {
    /// Surfaces of `scene`'s snow into `dir`, at the app's voxel (impostors half a particle
    /// spacing across).
    pub fn new(gpu: &Gpu, scene: &crate::scene::Scene, dir: &std::path::Path) -> Self {
        Self {
            baker: SurfaceBaker::new(gpu),
            dir: dir.to_path_buf(),
            particle_radius: 0.5 * scene.particle_spacing() as f32,
        }
    }
}

impl FrameSink for SurfaceSequence {
    fn frame(&mut self, gpu: &Gpu, solver: &Solver, frame: u32) -> Result<(), SinkError> {
        let mesh = self
            .baker
            .mesh(gpu, solver, self.particle_radius)
            .map_err(|e| SinkError::Render(crate::render::RenderError::Readback { reason: e.to_string() }))?;
        write_mesh_ply(&self.dir.join(surface_file_name(frame)), &mesh)?;
        Ok(())
    }
}
