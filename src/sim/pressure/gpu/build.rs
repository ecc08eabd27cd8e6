//! The pressure operator built on the GPU (`shaders/pressure/build.wgsl`) from cell kinds the GPU
//! classified: level 0's coefficients from its kinds, and for the multigrid each coarser level's
//! kinds coarsened from the level above and its coefficients rediscretised, as the twin's
//! [`Poisson::new`](crate::sim::pressure::cpu::operator::Poisson::new) and
//! [`PressureCells::coarsen`] do. The faces' open fractions change only with the solids: the host
//! uploads them once per level.

use bytemuck::{Pod, Zeroable};

use super::layout::{self, Binding, ComputeModule, WORKGROUP, buffer_init, dispatch_size, uniform_init};
use crate::sim::pressure::cells::PressureCells;

/// The module's own WGSL (`shaders/pressure/build.wgsl`), without [`layout::COMMON`].
pub const OWN_SOURCE: &str = include_str!("../../../../shaders/pressure/build.wgsl");

/// The module's complete WGSL ([`layout::compose`]).
pub fn source() -> String {
    layout::compose(OWN_SOURCE)
}

/// The entry points the host builds pipelines for.
pub const ENTRIES: [&str; 2] = ["op_build", "op_coarsen"];

/// Mirror of `BuildUniforms` in `build.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct BuildUniforms {
    /// The level's cells along x, y, z.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
    /// The next finer level's cells (the level's own on level 0).
    pub fine_dims: [u32; 3],
    /// Their count.
    pub fine_cells: u32,
    /// The operator's scale on this level.
    pub scale: f32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
}

const BINDINGS: [Binding; 5] = [
    Binding::Uniform,
    Binding::Read,  // open
    Binding::Write, // kinds
    Binding::Write, // coeffs
    Binding::Write, // fine_kinds (never written: the coarse levels' kinds share one buffer)
];

/// Every face's open fraction of `cells`, x faces then y then z (`open` in the WGSL).
pub fn open_fractions(cells: &PressureCells) -> Vec<f32> {
    cells.open.iter().flatten().map(|v| *v as f32).collect()
}

/// The build's per-level buffers and bind groups.
pub struct OperatorBuild {
    module: ComputeModule,
    /// Per level: its bind group and cells.
    levels: Vec<(wgpu::BindGroup, u32)>,
    row: u32,
    /// A stand-in, then per level its uniforms and open fractions.
    _buffers: Vec<wgpu::Buffer>,
}

impl OperatorBuild {
    /// The build of `levels` (finest first: each level's cells, whose open fractions are
    /// uploaded, and the `[coeffs, kinds]` ranges it fills; level k's operator scaled by 4⁻ᵏ), its
    /// dispatches at most `row` workgroups wide.
    pub fn new(device: &wgpu::Device, levels: &[(&PressureCells, [wgpu::BufferBinding; 2])], row: u32) -> Self {
        let module = ComputeModule::new(device, "pressure/build.wgsl", &source(), &[&BINDINGS], ENTRIES);
        let mut buffers = Vec::new();
        // Level 0 reads no finer kinds: a stand-in (the same buffer may not be bound twice).
        buffers.push(buffer_init(device, "pressure.build.none", &[0u8; 16]));
        let mut groups = Vec::with_capacity(levels.len());
        for (l, (cells, _)) in levels.iter().enumerate() {
            let dims = cells.dims.map(|d| d as u32);
            let fine = if l == 0 { cells.dims } else { levels[l - 1].0.dims }.map(|d| d as u32);
            let uniforms = BuildUniforms {
                dims,
                cells: cells.len() as u32,
                fine_dims: fine,
                fine_cells: fine.iter().product(),
                scale: 0.25f32.powi(l as i32),
                pad0: 0,
                pad1: 0,
                pad2: 0,
            };
            buffers.push(uniform_init(device, &format!("pressure.build{l}.uniforms"), bytemuck::bytes_of(&uniforms)));
            buffers.push(buffer_init(
                device,
                &format!("pressure.build{l}.open"),
                bytemuck::cast_slice(&open_fractions(cells)),
            ));
        }
        for (l, (cells, [coeffs, kinds])) in levels.iter().enumerate() {
            let fine_kinds = if l == 0 { buffers[0].as_entire_buffer_binding() } else { levels[l - 1].1[1].clone() };
            let whole = |i: usize| buffers[i].as_entire_buffer_binding();
            let ranges = [whole(1 + 2 * l), whole(2 + 2 * l), kinds.clone(), coeffs.clone(), fine_kinds];
            let group = module.bind_ranges(device, 0, &ranges);
            groups.push((group, cells.len() as u32));
        }
        Self { module, levels: groups, row, _buffers: buffers }
    }

    /// Replaces every level's open fractions with those of `levels` (the same cells as built,
    /// finest first): the solids moved, the cells did not.
    pub fn set_open(&self, queue: &wgpu::Queue, levels: &[PressureCells]) {
        for (l, cells) in levels.iter().enumerate().take(self.levels.len()) {
            queue.write_buffer(&self._buffers[2 + 2 * l], 0, bytemuck::cast_slice(&open_fractions(cells)));
        }
    }

    /// Level 0's open fractions, which a pass may scale before the build (the coefficients of a
    /// projection of two phases, `shaders/water/snow.wgsl`).
    pub fn finest_open(&self) -> &wgpu::Buffer {
        &self._buffers[2]
    }

    /// Levels built.
    pub fn level_count(&self) -> usize {
        self.levels.len()
    }

    fn run(&self, pass: &mut wgpu::ComputePass, level: usize, entry: &str) {
        let (group, cells) = &self.levels[level];
        pass.set_pipeline(self.module.pipeline(entry));
        pass.set_bind_group(0, group, &[]);
        let [x, y] = dispatch_size(cells.div_ceil(WORKGROUP), self.row);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records the build: level 0's coefficients from its kinds, then level by level the coarser
    /// kinds and coefficients.
    pub fn record(&self, pass: &mut wgpu::ComputePass) {
        self.run(pass, 0, "op_build");
        for l in 1..self.levels.len() {
            self.run(pass, l, "op_coarsen");
            self.run(pass, l, "op_build");
        }
    }
}
