//! What the pressure solve's GPU modules share: buffers made from the twin's operator, and a
//! compute module's bind group layouts and pipelines built from a list of bindings.

use std::collections::HashMap;

use wgpu::util::DeviceExt;

use crate::sim::pressure::cells::CellKind;
use crate::sim::pressure::cpu::operator::Poisson;

/// The WGSL every pressure module starts with (`shaders/pressure/common.wgsl`): the solve's
/// scalars, the cell index of a one-dimensional pass, the index step along an axis.
pub const COMMON: &str = include_str!("../../../../shaders/pressure/common.wgsl");

/// A pressure module's complete WGSL: [`COMMON`], then the module's own.
pub fn compose(module: &str) -> String {
    format!("{COMMON}\n{module}")
}

/// Threads per workgroup of every one-dimensional cell pass (`WORKGROUP` in `common.wgsl`).
pub const WORKGROUP: u32 = 256;

/// The most workgroups a dispatch may have along one axis (Vulkan's guaranteed minimum).
pub const MAX_GROUPS_X: u32 = 65535;

/// The workgroups of a one-dimensional pass over `groups` workgroups: up to `row` along x, the rest
/// in rows along y (the WGSL's `linear` folds them back; threads past the end return).
pub fn dispatch_size(groups: u32, row: u32) -> [u32; 2] {
    let x = groups.clamp(1, row.max(1));
    [x, groups.div_ceil(x).max(1)]
}

/// Bytes between two dynamic-offset slots of a uniform buffer: Vulkan's largest
/// `minUniformBufferOffsetAlignment`, so one layout fits every device.
pub const SLOT: u64 = 256;

/// How a binding is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// `var<uniform>`.
    Uniform,
    /// `var<uniform>` bound at a dynamic offset, 16 bytes a slot.
    DynamicUniform,
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    Write,
}

/// Per cell `(A_cc, A_c,c+x, A_c,c+y, A_c,c+z)` in f32: `coeffs` of the WGSL.
pub fn coefficients(op: &Poisson) -> Vec<[f32; 4]> {
    (0..op.diag.len())
        .map(|c| [op.diag[c] as f32, op.upper[0][c] as f32, op.upper[1][c] as f32, op.upper[2][c] as f32])
        .collect()
}

/// Per cell its kind as the WGSL's `kinds` (0 air, 1 liquid, 2 solid).
pub fn kinds(op: &Poisson) -> Vec<u32> {
    op.cells
        .kind
        .iter()
        .map(|k| match k {
            CellKind::Air => 0,
            CellKind::Liquid => 1,
            CellKind::Solid => 2,
        })
        .collect()
}

/// A storage buffer holding `contents` (at least 4 bytes), readable back and writable.
pub fn buffer_init(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    let padded;
    let contents = if contents.is_empty() {
        padded = [0u8; 4];
        &padded[..]
    } else {
        contents
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    })
}

/// A uniform buffer holding `contents`, writable.
pub fn uniform_init(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    })
}

/// One WGSL module's bind group layouts (one per group) and its pipelines by entry point.
pub struct ComputeModule {
    layouts: Vec<(wgpu::BindGroupLayout, Vec<Binding>)>,
    pipelines: HashMap<String, wgpu::ComputePipeline>,
}

impl ComputeModule {
    /// Compiles `source` and a pipeline for each of `entries`, with group g's bindings
    /// `groups[g]` (binding i declared as `groups[g][i]`). The sources are embedded and validated
    /// by `tests/wgsl_pressure.rs` and `tests/wgsl_water.rs`; a failure here is a build defect.
    pub fn new<'a>(
        device: &wgpu::Device,
        label: &str,
        source: &str,
        groups: &[&[Binding]],
        entries: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let layouts: Vec<(wgpu::BindGroupLayout, Vec<Binding>)> = groups
            .iter()
            .map(|bindings| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
                    .iter()
                    .enumerate()
                    .map(|(i, b)| wgpu::BindGroupLayoutEntry {
                        binding: i as u32,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: match b {
                                Binding::Uniform | Binding::DynamicUniform => wgpu::BufferBindingType::Uniform,
                                Binding::Read => wgpu::BufferBindingType::Storage { read_only: true },
                                Binding::Write => wgpu::BufferBindingType::Storage { read_only: false },
                            },
                            has_dynamic_offset: *b == Binding::DynamicUniform,
                            min_binding_size: None,
                        },
                        count: None,
                    })
                    .collect();
                let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(label),
                    entries: &entries,
                });
                (layout, bindings.to_vec())
            })
            .collect();
        let refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(|(l, _)| Some(l)).collect();
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &refs,
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipelines = entries
            .into_iter()
            .map(|entry| {
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                });
                (entry.to_string(), pipeline)
            })
            .collect();
        Self { layouts, pipelines }
    }

    /// A bind group of group `group` over `buffers`, binding i to the whole of `buffers[i]` (a
    /// dynamic uniform's window is one 16-byte slot).
    pub fn bind(&self, device: &wgpu::Device, group: usize, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        let ranges: Vec<wgpu::BufferBinding> = buffers.iter().map(|b| b.as_entire_buffer_binding()).collect();
        self.bind_ranges(device, group, &ranges)
    }

    /// [`ComputeModule::bind`] over ranges of buffers: binding i to `ranges[i]` (a dynamic
    /// uniform's window is one 16-byte slot from its range's start).
    pub fn bind_ranges(&self, device: &wgpu::Device, group: usize, ranges: &[wgpu::BufferBinding]) -> wgpu::BindGroup {
        let (layout, bindings) = &self.layouts[group];
        let entries: Vec<wgpu::BindGroupEntry> = ranges
            .iter()
            .zip(bindings)
            .enumerate()
            .map(|(i, (range, b))| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: wgpu::BindingResource::Buffer(if *b == Binding::DynamicUniform {
                    wgpu::BufferBinding { size: wgpu::BufferSize::new(16), ..range.clone() }
                } else {
                    range.clone()
                }),
            })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout, entries: &entries })
    }

    /// The pipeline of `entry` (one the module was built with).
    pub fn pipeline(&self, entry: &str) -> &wgpu::ComputePipeline {
        &self.pipelines[entry]
    }
}
