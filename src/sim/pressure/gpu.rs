//! The pressure solve's conjugate gradients on the GPU (`shaders/pressure/pcg.wgsl`), checked
//! against the twin's [`super::cpu::pcg::solve`] by `tests/pressure_gpu.rs`. It takes the
//! operator the twin builds ([`Poisson`]) and runs the preconditioners whose passes have no
//! recurrence: none, Jacobi and incomplete Poisson.
//!
//! A solve is recorded whole, the cap's iterations in one submission: once the residual reaches
//! the tolerance a flag in [`PcgScalars`] makes every later pass return at once.

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use super::Preconditioner;
use super::cpu::operator::Poisson;
use crate::gpu::{Gpu, GpuError};

/// The WGSL of the passes.
pub const SOURCE: &str = include_str!("../../../shaders/pressure/pcg.wgsl");
/// Threads per workgroup of every cell pass (`WORKGROUP` in the WGSL).
pub const WORKGROUP: u32 = 256;

/// Mirror of `PressureUniforms` in `pcg.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PressureUniforms {
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
    /// 0 none, 1 Jacobi, 2 incomplete Poisson.
    pub preconditioner: u32,
    /// Workgroups of a cell pass: the partial sums of a dot product.
    pub partial_count: u32,
    /// The tolerance on the relative residual, squared.
    pub tolerance_squared: f32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// Mirror of `PcgScalars` in `pcg.wgsl`: what the solve carries between passes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PcgScalars {
    /// zᵀr.
    pub sigma: f32,
    /// The step along the direction.
    pub alpha: f32,
    /// The direction's update weight.
    pub beta: f32,
    /// bᵀb.
    pub bb: f32,
    /// rᵀr after the last iteration.
    pub rr: f32,
    /// Iterations taken.
    pub iterations: u32,
    /// 1 once converged or stalled.
    pub done: u32,
    /// Padding.
    pub pad: u32,
}

/// What a GPU solve returns: the pressure and its scalars.
#[derive(Clone, Debug)]
pub struct GpuSolve {
    /// Per cell.
    pub pressure: Vec<f32>,
    /// Iterations, residual and whether it stopped.
    pub scalars: PcgScalars,
}

/// A preconditioner's code in `PressureUniforms::preconditioner`, or `None` for those that have no
/// GPU passes yet.
pub fn preconditioner_code(kind: Preconditioner) -> Option<u32> {
    match kind {
        Preconditioner::None => Some(0),
        Preconditioner::Jacobi => Some(1),
        Preconditioner::IncompletePoisson => Some(2),
        Preconditioner::Mic0 | Preconditioner::Multigrid => None,
    }
}

/// The passes of one iteration, in order (`pcg_ip_upper` only for incomplete Poisson).
const ITERATION: [&str; 6] =
    ["pcg_apply", "pcg_reduce_sq", "pcg_update", "pcg_reduce_rr", "pcg_precondition", "pcg_reduce_zr"];

/// Solves `A p = b` for `op` on the GPU from p = 0, as the twin does, to `tolerance` in at most
/// `max_iterations`. `None` if `kind` has no GPU passes ([`preconditioner_code`]); an error if
/// the device is lost while reading back.
pub fn solve(
    gpu: &Gpu,
    op: &Poisson,
    kind: Preconditioner,
    b: &[f64],
    tolerance: f64,
    max_iterations: u32,
) -> Result<Option<GpuSolve>, GpuError> {
    let Some(code) = preconditioner_code(kind) else {
        return Ok(None);
    };
    let device = &gpu.device;
    let n = op.diag.len();
    let groups = (n as u32).div_ceil(WORKGROUP);
    let dims = op.cells.dims.map(|d| d as u32);
    let uniforms = PressureUniforms {
        dims,
        cells: n as u32,
        preconditioner: code,
        partial_count: groups,
        tolerance_squared: (tolerance * tolerance) as f32,
        pad: 0,
    };
    let coeffs: Vec<[f32; 4]> = (0..n)
        .map(|c| [op.diag[c] as f32, op.upper[0][c] as f32, op.upper[1][c] as f32, op.upper[2][c] as f32])
        .collect();
    let rhs: Vec<f32> = b.iter().map(|v| *v as f32).collect();
    let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let init = |label: &str, contents: &[u8], usage| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
    };
    let vector = |label: &str| init(label, bytemuck::cast_slice(&vec![0f32; n.max(1)]), storage);
    let buffers = [
        init("pressure.uniforms", bytemuck::bytes_of(&uniforms), wgpu::BufferUsages::UNIFORM),
        init("pressure.coeffs", bytemuck::cast_slice(&coeffs), storage),
        init("pressure.rhs", bytemuck::cast_slice(&rhs), storage),
        vector("pressure.p"),
        vector("pressure.r"),
        vector("pressure.z"),
        vector("pressure.s"),
        vector("pressure.q"),
        init("pressure.partials", bytemuck::cast_slice(&vec![0f32; groups.max(1) as usize]), storage),
        init("pressure.scalars", bytemuck::bytes_of(&PcgScalars::default()), storage),
        vector("pressure.y"),
    ];
    let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..buffers.len() as u32)
        .map(|binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match binding {
                    0 => wgpu::BufferBindingType::Uniform,
                    1 | 2 => wgpu::BufferBindingType::Storage { read_only: true },
                    _ => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let layout = device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some("pressure"), entries: &entries });
    let bind_entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
        .collect();
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("pressure"),
        layout: &layout,
        entries: &bind_entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("pressure"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("pressure/pcg.wgsl"),
        source: wgpu::ShaderSource::Wgsl(SOURCE.into()),
    });
    let pipeline = |entry: &str| {
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        })
    };
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("pressure.solve") });
    {
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("pressure.pcg"), timestamp_writes: None });
        pass.set_bind_group(0, &group, &[]);
        let pipelines: std::collections::HashMap<&str, wgpu::ComputePipeline> =
            ["pcg_begin", "pcg_reduce_bb", "pcg_ip_upper", "pcg_direction"]
                .into_iter()
                .chain(ITERATION)
                .map(|e| (e, pipeline(e)))
                .collect();
        let mut run = |entry: &str| {
            pass.set_pipeline(&pipelines[entry]);
            pass.dispatch_workgroups(if entry.starts_with("pcg_reduce") { 1 } else { groups }, 1, 1);
        };
        let precondition = |run: &mut dyn FnMut(&str)| {
            if code == 2 {
                run("pcg_ip_upper");
            }
            run("pcg_precondition");
            run("pcg_reduce_zr");
            run("pcg_direction");
        };
        run("pcg_begin");
        run("pcg_reduce_bb");
        precondition(&mut run);
        for _ in 0..max_iterations {
            for entry in &ITERATION[..4] {
                run(entry);
            }
            // The direction for the next iteration (skipped by the flag once converged).
            precondition(&mut run);
        }
    }
    gpu.queue.submit([encoder.finish()]);
    let bytes = gpu.read_buffers(&[&buffers[3], &buffers[9]])?;
    let pressure: Vec<f32> = bytemuck::cast_slice(&bytes[0]).to_vec();
    let scalars: PcgScalars = bytemuck::pod_read_unaligned(&bytes[1][..size_of::<PcgScalars>()]);
    Ok(Some(GpuSolve { pressure: pressure[..n].to_vec(), scalars }))
}
