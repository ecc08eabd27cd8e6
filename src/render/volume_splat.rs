//! The `volume_splat` compute stage (`shaders/render/volume_splat.wgsl`): particles into a voxel
//! grid over the domain, then into an `Rgba16Float` 3D texture the draw passes sample.
//!
//! Reads the frame uniform and the particle buffer. Writes [`VolumeGrid::fixed`] (cleared first,
//! then summed with u32 atomics), [`VolumeGrid::occupied`] (a bounding box of the voxels holding
//! snow, widened by the splat) and [`VolumeGrid::texture`] (fill fraction, path toward the sun, path
//! upward; the resolve marches only through the occupied box). The quantity splatted is each particle's volume `V⁰ = m / ρ₀`, divided by the voxel
//! volume: a fill fraction, 1 for snow at rest density, whatever the material's density. The sums
//! are fixed point at [`VOLUME_FIXED_SCALE`] units per unit fill: a particle at 8 per voxel adds
//! 2¹⁷ units, a u32 holds fill up to 4096 (snow compresses by far less), and one unit is 10⁻⁶.

use glam::UVec3;

use crate::gpu::{Gpu, GpuError};

use super::bindings::{
    Layouts, buffer_bind_group, compute_pipeline, dispatch_size, shader_module, storage_buffer, storage_entry,
};
use super::shaders::{DepthKind, RenderShader};
use crate::sim::particles::ParticleBuffers;

/// Fixed-point units per unit fill fraction. Mirrors `VOLUME_FIXED_SCALE` in `types.wgsl`.
pub const VOLUME_FIXED_SCALE: f32 = 1_048_576.0;
/// Threads per workgroup of the splat (one per particle). Mirrors the constant in
/// `volume_splat.wgsl`, where it also sizes the workgroup's box reduction.
pub const SPLAT_WORKGROUP_SIZE: u32 = 256;
/// Threads per workgroup of the resolve along x, y, z (`@workgroup_size(8, 8, 4)`): 256 threads, so
/// few workgroups; lavapipe pays a fixed cost per workgroup.
const RESOLVE_WORKGROUP: UVec3 = UVec3::new(8, 8, 4);
/// Format of the volume texture: filterable and writable as a storage texture everywhere.
pub const VOLUME_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;

/// The compute pipelines and their group-1 layout.
pub struct VolumeSplat {
    splat_layout: wgpu::BindGroupLayout,
    resolve_layout: wgpu::BindGroupLayout,
    splat: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
}

/// The data of one volume size: the fixed-point sums and the texture.
pub struct VolumeGrid {
    /// Voxels per axis.
    pub dims: UVec3,
    /// One u32 fixed-point fill sum per voxel, x fastest.
    pub fixed: wgpu::Buffer,
    /// The same sums weighted by each particle's colour-field value in [0, 1] (`colors.wgsl`).
    pub field: wgpu::Buffer,
    /// Fill, sun path and up path per voxel.
    pub texture: wgpu::Texture,
    /// A view of the whole texture.
    pub view: wgpu::TextureView,
    /// A bounding box of the voxels holding snow (min x, y, z, max x, y, z as u32), found by the
    /// splat: every voxel with fill lies inside it.
    pub occupied: wgpu::Buffer,
    empty_box: wgpu::Buffer,
}

/// The occupied box before the splat widens it: empty (min above max).
const EMPTY_BOX: [u32; 6] = [u32::MAX, u32::MAX, u32::MAX, 0, 0, 0];

impl VolumeGrid {
    /// Allocates a grid of `dims` voxels (each at least 1).
    pub fn new(device: &wgpu::Device, dims: UVec3) -> Self {
        let dims = dims.max(UVec3::ONE);
        let copies = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let fixed =
            storage_buffer(device, "render.volume_fixed", dims.x as u64 * dims.y as u64 * dims.z as u64 * 4, copies);
        let field = storage_buffer(device, "render.volume_field", fixed.size(), copies);
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("render.volume"),
            size: wgpu::Extent3d { width: dims.x, height: dims.y, depth_or_array_layers: dims.z },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D3,
            format: VOLUME_FORMAT,
            usage: wgpu::TextureUsages::STORAGE_BINDING
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let occupied = storage_buffer(device, "render.volume_occupied", size_of_val(&EMPTY_BOX) as u64, copies);
        let empty_box = wgpu::util::DeviceExt::create_buffer_init(
            device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("render.volume_occupied.empty"),
                contents: bytemuck::cast_slice(&EMPTY_BOX),
                usage: wgpu::BufferUsages::COPY_SRC,
            },
        );
        Self { dims, fixed, field, texture, view, occupied, empty_box }
    }

    /// Copies the last frame's volume to the host (waits for the GPU): for tests and debugging.
    pub fn read(&self, gpu: &Gpu) -> Result<VolumeContents, GpuError> {
        let words = |bytes: Vec<u8>| -> Vec<u32> { bytemuck::pod_collect_to_vec(&bytes) };
        let sums = words(gpu.read_buffer(&self.fixed)?);
        let field = words(gpu.read_buffer(&self.field)?);
        let occupied: [u32; 6] = words(gpu.read_buffer(&self.occupied)?).try_into().unwrap_or(EMPTY_BOX);
        // A texel is four f16s.
        let bytes = gpu.read_texture(&self.texture)?;
        let texels = bytes
            .chunks_exact(8)
            .map(|t| std::array::from_fn(|c| half::f16::from_le_bytes([t[2 * c], t[2 * c + 1]]).to_f32()))
            .collect();
        Ok(VolumeContents { dims: self.dims, sums, field, texels, occupied })
    }
}

/// The volume as the last frame left it, on the host ([`VolumeGrid::read`]).
#[derive(Clone, Debug)]
pub struct VolumeContents {
    /// Voxels per axis.
    pub dims: UVec3,
    /// Fixed-point fill sums ([`VOLUME_FIXED_SCALE`] units per unit fill), x fastest.
    pub sums: Vec<u32>,
    /// The colour-field-weighted sums, in the same units.
    pub field: Vec<u32>,
    /// The texture's texels (fill, sun path, up path, fill × colour-field value), x fastest.
    pub texels: Vec<[f32; 4]>,
    /// The occupied box: min x, y, z, max x, y, z (min above max when empty).
    pub occupied: [u32; 6],
}

impl VolumeSplat {
    /// Builds both compute pipelines.
    pub fn new(device: &wgpu::Device, layouts: &Layouts) -> Self {
        let shader = RenderShader::VolumeSplat;
        let layout = |label: &str, entries: &[wgpu::BindGroupLayoutEntry]| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries })
        };
        let compute = wgpu::ShaderStages::COMPUTE;
        let splat_layout = layout(
            "render.volume_splat",
            &[
                storage_entry(0, compute, true),
                storage_entry(1, compute, false),
                storage_entry(4, compute, false),
                storage_entry(6, compute, true),
                storage_entry(7, compute, false),
                storage_entry(8, compute, true),
            ],
        );
        let resolve_layout = layout(
            "render.volume_splat.resolve",
            &[
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: compute,
                    ty: wgpu::BindingType::StorageTexture {
                        access: wgpu::StorageTextureAccess::WriteOnly,
                        format: VOLUME_FORMAT,
                        view_dimension: wgpu::TextureViewDimension::D3,
                    },
                    count: None,
                },
                storage_entry(3, compute, true),
                storage_entry(5, compute, true),
                storage_entry(9, compute, true),
            ],
        );
        let module = shader_module(device, layouts, shader, DepthKind::Single);
        let make = |label: &str, entry: &str, group: &wgpu::BindGroupLayout| {
            compute_pipeline(device, label, &module, entry, &[&layouts.frame, group])
        };
        let splat = make("render.volume_splat", "volume_splat", &splat_layout);
        let resolve = make("render.volume_splat.resolve", "volume_resolve", &resolve_layout);
        Self { splat_layout, resolve_layout, splat, resolve }
    }

    /// The group-1 bind groups of the splat (particles, sums) and the resolve (sums, texture).
    pub fn bind_groups(
        &self,
        device: &wgpu::Device,
        grid: &VolumeGrid,
        particles: &ParticleBuffers,
    ) -> [wgpu::BindGroup; 2] {
        let splat = buffer_bind_group(
            device,
            "render.volume_splat",
            &self.splat_layout,
            &[
                (0, &particles.position),
                (6, &particles.velocity),
                (1, &grid.fixed),
                (4, &grid.occupied),
                (7, &grid.field),
                (8, &particles.plastic),
            ],
        );
        let resolve = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.volume_splat.resolve"),
            layout: &self.resolve_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(&grid.view) },
                wgpu::BindGroupEntry { binding: 3, resource: grid.fixed.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 5, resource: grid.occupied.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 9, resource: grid.field.as_entire_binding() },
            ],
        });
        [splat, resolve]
    }

    /// Records the clear, the splat of each page's particles (its frame group, whose
    /// `particle_count` is the page's, its [`VolumeSplat::bind_groups`], and its count) into the one
    /// volume, and the resolve. `pages` is not empty.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        pages: &[(&wgpu::BindGroup, &[wgpu::BindGroup; 2], u32)],
        grid: &VolumeGrid,
    ) {
        encoder.clear_buffer(&grid.fixed, 0, None);
        encoder.clear_buffer(&grid.field, 0, None);
        encoder.copy_buffer_to_buffer(&grid.empty_box, 0, &grid.occupied, 0, None);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("render.volume_splat"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.splat);
        for &(frame, groups, count) in pages {
            let workgroups = count.div_ceil(SPLAT_WORKGROUP_SIZE);
            if workgroups > 0 {
                let (x, y) = dispatch_size(workgroups);
                pass.set_bind_group(0, frame, &[]);
                pass.set_bind_group(1, &groups[0], &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        let (frame, groups, _) = pages[0];
        let d = (grid.dims + RESOLVE_WORKGROUP - 1) / RESOLVE_WORKGROUP;
        pass.set_pipeline(&self.resolve);
        pass.set_bind_group(0, frame, &[]);
        pass.set_bind_group(1, &groups[1], &[]);
        pass.dispatch_workgroups(d.x, d.y, d.z);
    }
}
