//! MIC(0) on the GPU (`shaders/pressure/mic.wgsl`): the twin's factor uploaded, its forward and
//! backward triangular solves as wavefronts, one dispatch per plane `i + j + k = s`, the plane's
//! index at a dynamic offset of a uniform buffer (immediates would do, but on lavapipe each
//! dispatch of a pipeline with immediates leaks driver memory: docs/pbmpm.md).

use bytemuck::{Pod, Zeroable};

use super::layout::{self, Binding, ComputeModule, SLOT, buffer_init, uniform_init};
use crate::sim::pressure::cpu::operator::Poisson;

/// The module's own WGSL (`shaders/pressure/mic.wgsl`), without [`layout::COMMON`].
pub const OWN_SOURCE: &str = include_str!("../../../../shaders/pressure/mic.wgsl");

/// The module's complete WGSL ([`layout::compose`]).
pub fn source() -> String {
    layout::compose(OWN_SOURCE)
}
/// Threads per workgroup along x and y of a plane pass.
pub const TILE: u32 = 16;

/// The entry points the host builds pipelines for.
pub const ENTRIES: [&str; 3] = ["mic_forward", "mic_backward", "mic_factor"];

/// Mirror of `MicUniforms` in `mic.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MicUniforms {
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
}

const BINDINGS: [Binding; 7] = [
    Binding::Uniform,
    Binding::Read,  // coeffs
    Binding::Write, // precon
    Binding::Read,  // residual
    Binding::Write, // forward
    Binding::Write, // precond
    Binding::Read,  // scalars
];

/// MIC(0)'s buffers and passes for one operator.
pub struct GpuMic {
    module: ComputeModule,
    group: wgpu::BindGroup,
    planes_group: wgpu::BindGroup,
    dims: [u32; 3],
    planes: u32,
    _buffers: Vec<wgpu::Buffer>,
}

impl GpuMic {
    /// Uploads `precon` (the twin's factor for `op`) and binds the conjugate gradients' `coeffs`
    /// and `[residual, precond, scalars]`.
    pub fn new(
        device: &wgpu::Device,
        op: &Poisson,
        precon: &[f64],
        coeffs: &wgpu::Buffer,
        pcg: [&wgpu::Buffer; 3],
    ) -> Self {
        let dims = op.cells.dims.map(|d| d as u32);
        let planes = dims.iter().sum::<u32>().saturating_sub(2);
        let uniforms = MicUniforms { dims, cells: op.diag.len() as u32 };
        let precon: Vec<f32> = precon.iter().map(|v| *v as f32).collect();
        let mut slots = vec![0u8; (planes.max(1) as u64 * SLOT) as usize];
        for s in 0..planes {
            let at = (s as u64 * SLOT) as usize;
            slots[at..at + 4].copy_from_slice(&s.to_le_bytes());
        }
        let buffers = vec![
            uniform_init(device, "pressure.mic.uniforms", bytemuck::bytes_of(&uniforms)),
            buffer_init(device, "pressure.mic.precon", bytemuck::cast_slice(&precon)),
            buffer_init(device, "pressure.mic.forward", bytemuck::cast_slice(&vec![0f32; precon.len()])),
            uniform_init(device, "pressure.mic.planes", &slots),
        ];
        let module = ComputeModule::new(
            device,
            "pressure/mic.wgsl",
            &source(),
            &[&BINDINGS, &[Binding::DynamicUniform]],
            ENTRIES,
        );
        let group = module.bind(device, 0, &[&buffers[0], coeffs, &buffers[1], pcg[0], &buffers[2], pcg[1], pcg[2]]);
        let planes_group = module.bind(device, 1, &[&buffers[3]]);
        Self { module, group, planes_group, dims, planes, _buffers: buffers }
    }

    /// Records z = (L Lᵀ)⁻¹ r: the planes up, then down.
    pub fn record(&self, pass: &mut wgpu::ComputePass) {
        let order: Vec<(&str, u32)> = (0..self.planes)
            .map(|s| ("mic_forward", s))
            .chain((0..self.planes).rev().map(|s| ("mic_backward", s)))
            .collect();
        self.record_planes(pass, &order);
    }

    /// Records the factor of the operator in `coeffs` (built on the GPU), the planes up.
    pub fn record_factor(&self, pass: &mut wgpu::ComputePass) {
        let order: Vec<(&str, u32)> = (0..self.planes).map(|s| ("mic_factor", s)).collect();
        self.record_planes(pass, &order);
    }

    fn record_planes(&self, pass: &mut wgpu::ComputePass, order: &[(&str, u32)]) {
        let size = [self.dims[0].div_ceil(TILE), self.dims[1].div_ceil(TILE), 1];
        pass.set_bind_group(0, &self.group, &[]);
        for &(entry, s) in order {
            pass.set_pipeline(self.module.pipeline(entry));
            pass.set_bind_group(1, &self.planes_group, &[(s as u64 * SLOT) as u32]);
            pass.dispatch_workgroups(size[0], size[1], size[2]);
        }
    }
}
