//! [`Renderer`]: the pipelines, the targets and the per-frame data, and the order of the passes.
//!
//! One frame records, into the caller's encoder:
//! 1. `render.volume_splat` (compute): particles → density volume (shadows, occlusion, volume view);
//! 2. `render.surface` (compute, in `Surface` mode, after each splat): the surface's triangles;
//!    `render.particles.shade` (compute, in `Particles` and `Both` modes): cull and shade particles;
//! 3. `render.main` (MSAA): the collider meshes (`mesh`, when set), the surface or the impostors,
//!    then `environment` (ground, sky,
//!    walls, bounds); resolved into the target;
//! 4. `render.volume_raymarch` over the target, in `Volume` and `Both` modes.

use glam::Vec3;

use super::bindings::Layouts;
use super::environment::EnvironmentPass;
use super::frame::{ColorField, FrameInputs, RenderMode};
use super::mesh::MeshPass;
use super::particles::{ParticleShading, ParticlesPass};
use super::shaders::{RenderShaderError, RenderSources};
use super::surface::{SurfaceMesh, SurfacePass, surface_capacity};
use super::targets::FrameTargets;
use super::uniforms::{FrameContext, GpuFrame, volume_layout};
use super::volume_raymarch::VolumeRaymarch;
use super::volume_splat::{VolumeGrid, VolumeSplat};
use crate::mesh::TriangleMesh;
use crate::sim::particles::ParticleBuffers;

/// Direction toward the sun used until [`Renderer::set_sun_direction`]: 45° up, from the front
/// left of the default camera, so lit and shaded sides and a ground shadow are all in view.
pub const DEFAULT_SUN_DIRECTION: Vec3 = Vec3::new(-0.25, -0.68, 0.69);

/// Bind groups that depend on one page's particle streams and the volume grid.
struct SceneBindings {
    particles: ParticleBuffers,
    scene: wgpu::BindGroup,
    splat: [wgpu::BindGroup; 2],
}

/// A frame uniform block ([`GpuFrame`]) and its group-0 bind group.
struct FrameBlock {
    uniform: wgpu::Buffer,
    group: wgpu::BindGroup,
}

impl FrameBlock {
    fn new(device: &wgpu::Device, layouts: &Layouts) -> Self {
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.frame"),
            size: size_of::<GpuFrame>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.frame"),
            layout: &layouts.frame,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniform.as_entire_binding() }],
        });
        Self { uniform, group }
    }
}

/// How far, in voxels, particles may have moved since the density volume was splatted before
/// it is splatted again ([`FrameInputs::moved`]). The volume shades (shadows, sky occlusion) and
/// culls buried particles through trilinear look-ups one or more voxels away, so a half-voxel lag
/// shifts a shadow edge by at most half a voxel, and the buried test's boundary (four voxels deep
/// inside the snow, hidden behind its surface particles) by as much. Skipping the splat and
/// resolve saves draw time on slow adapters, and at one substep per frame the snow moves far less
/// than a voxel per frame.
pub const VOLUME_REUSE_VOXELS: f32 = 0.5;

/// What the density volume was splatted from: with another key it is splatted again.
#[derive(Clone, Copy, PartialEq)]
struct SplatKey {
    particle_count: u32,
    domain_min: Vec3,
    voxel: f32,
    dims: glam::UVec3,
    /// The colour field and, for the speed field only, its speed scale: the volume carries the
    /// field's values, and only speeds are divided by the scale.
    field: (ColorField, f32),
}

/// The renderer: pipelines and the targets they need (depth, MSAA colour), sized to the output.
pub struct Renderer {
    color_format: wgpu::TextureFormat,
    sample_count: u32,
    sun_direction: Vec3,
    layouts: Layouts,
    /// The frame blocks: the frame's, which also serves the first page, then one per further page
    /// (the same but for its particle count). At least one.
    frames: Vec<FrameBlock>,
    sampler: wgpu::Sampler,
    /// Bound instead of particle streams that cannot be (too small for one particle).
    empty_particles: ParticleBuffers,
    environment: EnvironmentPass,
    meshes: MeshPass,
    particles: ParticlesPass,
    splat: VolumeSplat,
    raymarch: VolumeRaymarch,
    surface: SurfacePass,
    volume: VolumeGrid,
    /// The surface's triangle list (for the current volume), and whether it was extracted from the
    /// volume as it is now.
    surface_mesh: Option<(SurfaceMesh, bool)>,
    /// What the volume was splatted from and the [`FrameInputs::moved`] summed since; `None`
    /// when it must be splatted.
    splatted: Option<(SplatKey, f32)>,
    /// Per page drawn: the bind groups of its streams (the first page's also serve the draw and
    /// the raymarch, which read only the volume through them).
    scenes: Vec<SceneBindings>,
    shading: Option<ParticleShading>,
    targets: FrameTargets,
    depth_group: wgpu::BindGroup,
}

impl Renderer {
    /// Creates the pipelines for output textures of `color_format`, drawing with `sample_count`
    /// samples per pixel (1 or 4; anything other than 1 is taken as 4).
    pub fn new(device: &wgpu::Device, color_format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let sample_count = if sample_count <= 1 { 1 } else { 4 };
        let layouts = Layouts::new(device);
        let frames = vec![FrameBlock::new(device, &layouts)];
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("render.volume"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let empty_particles = ParticleBuffers::new(device, &[], wgpu::BufferUsages::STORAGE);
        let raymarch = VolumeRaymarch::new(device, &layouts, color_format, sample_count);
        let targets = FrameTargets::new(device, color_format, sample_count, 1, 1);
        let volume = VolumeGrid::new(device, glam::UVec3::ONE);
        let depth_group = raymarch.bind_group(device, &targets.depth, &volume.occupied);
        Self {
            color_format,
            sample_count,
            sun_direction: DEFAULT_SUN_DIRECTION.normalize(),
            environment: EnvironmentPass::new(device, &layouts, color_format, sample_count),
            meshes: MeshPass::new(device, &layouts, color_format, sample_count),
            particles: ParticlesPass::new(device, &layouts, color_format, sample_count),
            splat: VolumeSplat::new(device, &layouts),
            surface: SurfacePass::new(device, &layouts, color_format, sample_count),
            raymarch,
            volume,
            surface_mesh: None,
            splatted: None,
            scenes: Vec::new(),
            shading: None,
            targets,
            depth_group,
            layouts,
            frames,
            sampler,
            empty_particles,
        }
    }

    /// The sample count to ask for on `adapter`: 1 on a software rasteriser (lavapipe), where 4×
    /// MSAA doubles the frame time (docs/rendering.md), 4 on real GPUs.
    pub fn recommended_sample_count(adapter: &wgpu::AdapterInfo) -> u32 {
        if adapter.device_type == wgpu::DeviceType::Cpu { 1 } else { 4 }
    }

    /// The output format the pipelines were made for.
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// Samples per pixel.
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    /// The output size the targets were last made for, pixels.
    pub fn size(&self) -> (u32, u32) {
        self.targets.size
    }

    /// The unit vector toward the sun.
    pub fn sun_direction(&self) -> Vec3 {
        self.sun_direction
    }

    /// Points the sun along `direction` (toward the sun; normalised, a zero vector means straight up).
    pub fn set_sun_direction(&mut self, direction: Vec3) {
        let direction = direction.normalize_or(Vec3::Z);
        if direction != self.sun_direction {
            // The resolve marched toward the old sun.
            self.splatted = None;
        }
        self.sun_direction = direction;
    }

    /// How many particles the last frame drew as impostors (after culling those outside the view
    /// or buried under dense snow); waits for the GPU. `None` before the first particle frame or if
    /// reading back failed.
    pub fn drawn_particle_count(&self, gpu: &crate::gpu::Gpu) -> Option<u32> {
        let bytes = gpu.read_buffer(self.shading.as_ref()?.draw_args()).ok()?;
        let vertices = u32::from_le_bytes(bytes.get(0..4)?.try_into().ok()?);
        // Visible particles past the list's capacity were counted but not drawn.
        Some((vertices / 3).min(self.shading.as_ref()?.capacity))
    }

    /// The surface the last `Surface` frame extracted, copied to the host (waits for the GPU).
    /// `None` before the first such frame.
    pub fn read_surface(
        &self,
        gpu: &crate::gpu::Gpu,
    ) -> Option<Result<super::surface::SurfaceContents, crate::gpu::GpuError>> {
        self.surface_mesh.as_ref().map(|(mesh, _)| mesh.read(gpu))
    }

    /// The field the last `Surface` frame drew its surface from (the fill sums raised where
    /// particles fell short, [`super::surface::SurfaceMesh::read_field`]); waits for the GPU.
    /// `None` before the first such frame.
    pub fn read_surface_field(&self, gpu: &crate::gpu::Gpu) -> Option<Result<Vec<u32>, crate::gpu::GpuError>> {
        self.surface_mesh.as_ref().map(|(mesh, _)| mesh.read_field(gpu))
    }

    /// The density volume of the last frame, copied to the host (waits for the GPU).
    pub fn read_volume(
        &self,
        gpu: &crate::gpu::Gpu,
    ) -> Result<super::volume_splat::VolumeContents, crate::gpu::GpuError> {
        self.volume.read(gpu)
    }

    /// Sets the collider meshes drawn from the next frame on, in world coordinates (metres, z up),
    /// replacing the previous ones; an empty slice removes them. The triangles are uploaded now,
    /// three vertices each with the face normal, into a buffer that is reused while they fit: call
    /// this again whenever a collider moves or deforms (every frame for an animated one). Broken
    /// triangles (an index out of range, a non-finite corner, no area) are skipped.
    pub fn set_meshes(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, meshes: &[TriangleMesh]) {
        self.meshes.upload(device, queue, meshes);
    }

    /// Whether the domain's walls are drawn (`environment`; on by default).
    pub fn set_walls_visible(&mut self, visible: bool) {
        self.environment.walls_visible = visible;
    }

    /// Triangles of the collider meshes that are drawn (after skipping broken ones).
    pub fn mesh_triangle_count(&self) -> u32 {
        self.meshes.triangle_count()
    }

    /// Rebuilds every render pipeline from the WGSL files under `dir` (the `shaders/` folder: hot
    /// reload). The files are validated with naga first; on any error nothing changes and the
    /// error carries naga's message. Uploaded meshes are kept; bind groups are remade lazily.
    pub fn reload_shaders(&mut self, device: &wgpu::Device, dir: &std::path::Path) -> Result<(), RenderShaderError> {
        let sources = RenderSources::read_from(dir)?;
        sources.validate()?;
        self.layouts.sources = sources;
        let (layouts, format, samples) = (&self.layouts, self.color_format, self.sample_count);
        let walls_visible = self.environment.walls_visible;
        self.environment = EnvironmentPass::new(device, layouts, format, samples);
        self.environment.walls_visible = walls_visible;
        let old = std::mem::replace(&mut self.meshes, MeshPass::new(device, layouts, format, samples));
        self.meshes.keep_geometry_of(old);
        self.particles = ParticlesPass::new(device, layouts, format, samples);
        self.splat = VolumeSplat::new(device, layouts);
        self.surface = SurfacePass::new(device, layouts, format, samples);
        self.surface_mesh = None;
        self.raymarch = VolumeRaymarch::new(device, layouts, format, samples);
        self.scenes.clear();
        self.shading = None;
        self.depth_group = self.raymarch.bind_group(device, &self.targets.depth, &self.volume.occupied);
        Ok(())
    }

    /// Voxels per axis of the density volume of the last frame.
    pub fn volume_dims(&self) -> glam::UVec3 {
        self.volume.dims
    }

    /// (Re)creates the size-dependent targets for an output of `width` × `height` pixels.
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        self.targets = FrameTargets::new(device, self.color_format, self.sample_count, width, height);
        self.depth_group = self.raymarch.bind_group(device, &self.targets.depth, &self.volume.occupied);
    }

    /// Records the frame into `encoder`, drawing into `target` (a view of a texture of
    /// [`Renderer::color_format`] and the size last given to [`Renderer::resize`]; a different
    /// size resizes the targets first).
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        inputs: &FrameInputs,
    ) {
        let target_size = (target.texture().width(), target.texture().height());
        if target_size != self.targets.size {
            self.resize(device, target_size.0, target_size.1);
        }
        // The pages to draw: the first `particle_count` particles over the pages, in order. A page
        // whose streams cannot hold one particle ends them; with none, the empty streams are bound.
        let empty = self.empty_particles.clone();
        let mut left = inputs.particle_count;
        let mut pages: Vec<(&ParticleBuffers, u32)> = Vec::new();
        for &buffers in &inputs.particles {
            let fits = buffers.drawable_capacity().min(u32::MAX as u64) as u32;
            if left == 0 || fits == 0 {
                break;
            }
            pages.push((buffers, left.min(fits)));
            left -= left.min(fits);
        }
        let particle_count: u32 = pages.iter().map(|&(_, n)| n).sum();
        if pages.is_empty() {
            pages.push((&empty, 0));
        }
        let (voxel, dims) = volume_layout(inputs.domain_min, inputs.domain_max, inputs.particle_radius);
        if dims != self.volume.dims {
            self.volume = VolumeGrid::new(device, dims);
            self.surface_mesh = None;
            self.splatted = None;
            self.scenes.clear();
            self.depth_group = self.raymarch.bind_group(device, &self.targets.depth, &self.volume.occupied);
        }
        self.bind_scenes(device, &pages);
        let mode = inputs.settings.mode;
        let draw_particles = matches!(mode, RenderMode::Particles | RenderMode::Both) && particle_count > 0;
        let draw_surface = mode == RenderMode::Surface && particle_count > 0;
        let wanted = ParticlesPass::shading_capacity(device, particle_count);
        if draw_particles && self.shading.as_ref().is_none_or(|s| s.capacity < wanted) {
            self.shading = Some(self.particles.shading(device, particle_count));
        }
        let Some(scene) = self.scenes.first() else { return };
        let volume_valid = particle_count > 0;
        // Page k's frame block differs from the first's only in its particle count.
        for (k, &(_, count)) in pages.iter().enumerate() {
            let context = FrameContext {
                size: self.targets.size,
                sun_direction: self.sun_direction,
                volume_valid,
                particle_count: count,
            };
            queue.write_buffer(&self.frames[k].uniform, 0, bytemuck::bytes_of(&GpuFrame::new(inputs, &context)));
        }

        let scale = match inputs.settings.color_field {
            ColorField::Speed => inputs.settings.speed_scale,
            _ => 0.0,
        };
        let field = (inputs.settings.color_field, scale);
        let key = SplatKey { particle_count, domain_min: inputs.domain_min, voxel, dims, field };
        let reused = match (&mut self.splatted, inputs.moved) {
            (Some((last, sum)), Some(moved))
                if volume_valid && *last == key && moved >= 0.0 && *sum + moved < VOLUME_REUSE_VOXELS * voxel =>
            {
                *sum += moved;
                true
            }
            _ => false,
        };
        if !reused {
            self.splatted = volume_valid.then(|| {
                let splats: Vec<_> =
                    (0..pages.len()).map(|k| (&self.frames[k].group, &self.scenes[k].splat, pages[k].1)).collect();
                self.splat.record(encoder, &splats, &self.volume);
                (key, 0.0)
            });
            if let Some((_, fresh)) = &mut self.surface_mesh {
                *fresh = false;
            }
        }
        if draw_surface {
            let capacity = surface_capacity(device, particle_count);
            if self.surface_mesh.as_ref().is_none_or(|(m, _)| m.capacity < capacity) {
                self.surface_mesh = Some((self.surface.mesh(device, &self.volume, capacity), false));
            }
            if let Some((mesh, fresh)) = &mut self.surface_mesh
                && !*fresh
            {
                let covers: Vec<_> =
                    (0..pages.len()).map(|k| ([&self.frames[k].group, &self.scenes[k].scene], pages[k].1)).collect();
                self.surface.record_extract(encoder, [&self.frames[0].group, &scene.scene], &covers, mesh);
                *fresh = true;
            }
        }
        let shading = self.shading.as_ref().filter(|_| draw_particles);
        if let Some(shading) = shading {
            let shades: Vec<_> =
                (0..pages.len()).map(|k| ([&self.frames[k].group, &self.scenes[k].scene], pages[k].1)).collect();
            self.particles.record_shade(encoder, &shades, shading);
        }
        {
            let (view, resolve_target) = match &self.targets.msaa_color {
                Some(msaa) => (msaa, Some(target)),
                None => (target, None),
            };
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("render.main"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target,
                    // Every pixel is drawn by the environment; clearing lets tilers skip the load.
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: if resolve_target.is_some() { wgpu::StoreOp::Discard } else { wgpu::StoreOp::Store },
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.targets.depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Store }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frames[0].group, &[]);
            pass.set_bind_group(1, &scene.scene, &[]);
            // Meshes first: the ground and sky they hide then fail the early depth test.
            self.meshes.draw(&mut pass);
            if let Some((mesh, _)) = self.surface_mesh.as_ref().filter(|_| draw_surface) {
                self.surface.draw(&mut pass, mesh);
            }
            self.environment.draw(&mut pass);
            if let Some(shading) = shading {
                self.particles.draw(&mut pass, shading);
            }
        }
        if matches!(mode, RenderMode::Volume | RenderMode::Both) {
            self.raymarch.record(encoder, target, [&self.frames[0].group, &scene.scene, &self.depth_group]);
        }
    }

    /// Makes the bind groups that name each page's particle streams and the volume, and the
    /// frame blocks of the pages after the first, when any changed.
    fn bind_scenes(&mut self, device: &wgpu::Device, pages: &[(&ParticleBuffers, u32)]) {
        let same = |s: &SceneBindings, b: &ParticleBuffers| {
            let a = &s.particles;
            a.position == b.position && a.velocity == b.velocity && a.plastic == b.plastic
        };
        if self.scenes.len() == pages.len() && self.scenes.iter().zip(pages).all(|(s, &(b, _))| same(s, b)) {
            return;
        }
        self.scenes = pages.iter().map(|&(particles, _)| self.scene_bindings(device, particles)).collect();
        self.splatted = None;
        while self.frames.len() < pages.len() {
            self.frames.push(FrameBlock::new(device, &self.layouts));
        }
    }

    /// The bind groups that name one page's particle streams and the volume.
    fn scene_bindings(&self, device: &wgpu::Device, particles: &ParticleBuffers) -> SceneBindings {
        let scene = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.scene"),
            layout: &self.layouts.scene,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: particles.position.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&self.volume.view) },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::Sampler(&self.sampler) },
                wgpu::BindGroupEntry { binding: 3, resource: particles.velocity.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: particles.plastic.as_entire_binding() },
            ],
        });
        let splat = self.splat.bind_groups(device, &self.volume, particles);
        SceneBindings { particles: particles.clone(), scene, splat }
    }
}
