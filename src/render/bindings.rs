//! Bind group layouts shared by the render passes, and small pipeline helpers.
//!
//! Group 0 is the frame (`Frame` uniform, every stage); group 1 the scene the draw passes read
//! (three particle streams, the density volume and its sampler; `lighting.wgsl`); group 2 belongs to one pass
//! (the scene depth of the volume raymarch). The volume splat compute pass has its own group 1.

use super::shaders::{DepthKind, RenderShader, RenderSources};

/// The layouts of groups 0 and 1, and the shader sources every pass compiles from (embedded, or
/// re-read from disk by [`super::Renderer::reload_shaders`]).
pub struct Layouts {
    /// The WGSL files the passes are built from.
    pub sources: RenderSources,
    /// Group 0: the frame uniform.
    pub frame: wgpu::BindGroupLayout,
    /// Group 1 of the draw passes: particle positions (0), volume texture (1) and sampler (2),
    /// particle velocities (3) and Jp with material (4).
    pub scene: wgpu::BindGroupLayout,
}

const DRAW: wgpu::ShaderStages = wgpu::ShaderStages::VERTEX_FRAGMENT;
/// The scene group is also read by the `particles_shade` compute entry.
const SCENE: wgpu::ShaderStages = DRAW.union(wgpu::ShaderStages::COMPUTE);

impl Layouts {
    /// Creates both layouts.
    pub fn new(device: &wgpu::Device) -> Self {
        let frame = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.frame"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: DRAW | wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let scene = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.scene"),
            entries: &[
                &[storage_entry(0, SCENE, true)][..],
                &sampled_entries(1, SCENE, wgpu::TextureViewDimension::D3),
                &[storage_entry(3, SCENE, true), storage_entry(4, SCENE, true)],
            ]
            .concat(),
        });
        Self { sources: RenderSources::embedded(), frame, scene }
    }
}

/// Layout entries of a filterable float texture of `dimension` at `binding` and its filtering
/// sampler at `binding + 1`.
pub fn sampled_entries(
    binding: u32,
    visibility: wgpu::ShaderStages,
    dimension: wgpu::TextureViewDimension,
) -> [wgpu::BindGroupLayoutEntry; 2] {
    [
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: dimension,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: binding + 1,
            visibility,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        },
    ]
}

/// A storage-buffer layout entry.
pub fn storage_entry(binding: u32, visibility: wgpu::ShaderStages, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// Compiles a stage's composed module from `layouts.sources`. The embedded sources are validated
/// by `tests/render_shaders.rs`, and reloaded ones by [`RenderSources::validate`] before they get
/// here, so a failure is a build defect, reported by wgpu.
pub fn shader_module(
    device: &wgpu::Device,
    layouts: &Layouts,
    shader: RenderShader,
    depth: DepthKind,
) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(shader.label()),
        source: wgpu::ShaderSource::Wgsl(shader.composed_from(depth, &layouts.sources).into()),
    })
}

/// The `ENCODE_SRGB` override of `types.wgsl` for a target `format`: the shaders encode to sRGB
/// themselves only where the format does not.
pub fn encode_srgb(format: wgpu::TextureFormat) -> (&'static str, f64) {
    ("ENCODE_SRGB", if format.is_srgb() { 0.0 } else { 1.0 })
}

/// A pipeline layout of the given groups.
pub fn pipeline_layout(device: &wgpu::Device, label: &str, groups: &[&wgpu::BindGroupLayout]) -> wgpu::PipelineLayout {
    let groups: Vec<Option<&wgpu::BindGroupLayout>> = groups.iter().map(|g| Some(*g)).collect();
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &groups,
        immediate_size: 0,
    })
}

/// A compute pipeline of `module`'s entry point `entry` over the bind group layouts `groups`.
pub fn compute_pipeline(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    entry: &str,
    groups: &[&wgpu::BindGroupLayout],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pipeline_layout(device, label, groups)),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

/// A bind group of whole buffers, `(binding, buffer)` each.
pub fn buffer_bind_group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    buffers: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<_> = buffers
        .iter()
        .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
}

/// The depth format of the scene.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Depth state of the opaque draws: nearer wins, depth written.
pub fn depth_state(compare: wgpu::CompareFunction) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(true),
        depth_compare: Some(compare),
        stencil: wgpu::StencilState::default(),
        bias: wgpu::DepthBiasState::default(),
    }
}

/// A storage buffer of `size` bytes, not mapped, with `usage` besides `STORAGE`.
pub fn storage_buffer(device: &wgpu::Device, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | usage,
        mapped_at_creation: false,
    })
}

/// WebGPU's default limit on workgroups per dispatch dimension.
const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65_535;

/// Splits `groups` workgroups into an x × y dispatch within the per-dimension limit; the shaders
/// rebuild the flat index from `num_workgroups` and skip the excess.
pub fn dispatch_size(groups: u32) -> (u32, u32) {
    if groups <= MAX_WORKGROUPS_PER_DIMENSION {
        (groups, 1)
    } else {
        (MAX_WORKGROUPS_PER_DIMENSION, groups.div_ceil(MAX_WORKGROUPS_PER_DIMENSION))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn large_dispatches_spill_into_y() {
        assert_eq!(super::dispatch_size(10), (10, 1));
        let (x, y) = super::dispatch_size(100_000);
        assert!(x * y >= 100_000 && x <= 65_535);
    }
}
