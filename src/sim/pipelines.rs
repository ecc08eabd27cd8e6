//! The compiled MPM kernels: one compute pipeline per pass, all sharing one bind group layout.
//! The data they run on lives in [`super::state::SimState`]; kernels are built once per device
//! and survive scene loads and grid changes.

use std::collections::HashMap;

use super::params::WORKGROUP_SIZE;
use super::shaders::MpmPass;

/// Compute pipelines of every MPM pass and their bind group layout (group 0, see `types.wgsl`).
pub struct Kernels {
    /// Layout of the simulation-state bind group.
    pub layout: wgpu::BindGroupLayout,
    pipelines: HashMap<MpmPass, wgpu::ComputePipeline>,
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: false },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Kernels {
    /// Compiles every pass for `device`.
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("mpm.state"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage_entry(1),
                storage_entry(2),
                storage_entry(3),
                storage_entry(4),
                wgpu::BindGroupLayoutEntry {
                    binding: 5,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("mpm"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let constants = [("WORKGROUP_SIZE", WORKGROUP_SIZE as f64)];
        let pipelines = MpmPass::ALL
            .into_iter()
            .map(|pass| {
                let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(pass.name()),
                    source: wgpu::ShaderSource::Wgsl(pass.composed_source().into()),
                });
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(pass.name()),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(pass.name()),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    cache: None,
                });
                (pass, pipeline)
            })
            .collect();
        Self { layout, pipelines }
    }

    /// The pipeline of `pass`.
    pub fn pipeline(&self, pass: MpmPass) -> &wgpu::ComputePipeline {
        &self.pipelines[&pass]
    }
}
