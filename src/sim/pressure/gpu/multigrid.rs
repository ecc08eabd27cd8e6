//! The multigrid V-cycle on the GPU (`shaders/pressure/multigrid.wgsl`), level by level as the
//! twin's [`Multigrid`] runs it: its levels' operators come from the twin, each level gets its own
//! buffers and a bind group that also holds the next coarser level's, and level 0 works in place
//! on the conjugate gradients' residual (its right-hand side) and preconditioned residual (its
//! solution).

use bytemuck::{Pod, Zeroable};

use super::layout::{self, Binding, ComputeModule, WORKGROUP, buffer_init, dispatch_size, uniform_init};
use crate::sim::pressure::cpu::multigrid::{COARSEST_CELLS, Multigrid, SMOOTHING_SWEEPS};

/// The module's own WGSL (`shaders/pressure/multigrid.wgsl`), without [`layout::COMMON`].
pub const OWN_SOURCE: &str = include_str!("../../../../shaders/pressure/multigrid.wgsl");

/// The module's complete WGSL ([`layout::compose`]).
pub fn source() -> String {
    layout::compose(OWN_SOURCE)
}

// The sweeps ping-pong between x and tmp and must end in x; the coarsest level fits one workgroup
// of 64 threads (`mg_coarsest`).
const _: () = assert!(SMOOTHING_SWEEPS % 2 == 0, "sweeps come in pairs on the GPU");
const _: () = assert!(COARSEST_CELLS * COARSEST_CELLS * COARSEST_CELLS <= 64, "the coarsest level fits one workgroup");

/// The entry points the host builds pipelines for.
pub const ENTRIES: [&str; 8] = [
    "mg_sides",
    "mg_smooth_from_zero",
    "mg_smooth_to_tmp",
    "mg_smooth_to_x",
    "mg_residual",
    "mg_restrict",
    "mg_prolong",
    "mg_coarsest",
];

/// Mirror of `LevelUniforms` in `multigrid.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LevelUniforms {
    /// The level's cells along x, y, z.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
    /// The next coarser level's cells along x, y, z (the level's own on the coarsest).
    pub coarse_dims: [u32; 3],
    /// Their count (0 on the coarsest).
    pub coarse_cells: u32,
}

const BINDINGS: [Binding; 13] = [
    Binding::Uniform,
    Binding::Read,  // coeffs
    Binding::Read,  // kinds
    Binding::Read,  // rhs
    Binding::Write, // x
    Binding::Write, // tmp
    Binding::Write, // res
    Binding::Read,  // coarse_coeffs
    Binding::Read,  // coarse_kinds
    Binding::Write, // coarse_rhs
    Binding::Write, // coarse_x
    Binding::Read,  // scalars
    Binding::Write, // sides
];

/// The levels' buffers and bind groups.
pub struct GpuMultigrid {
    module: ComputeModule,
    /// Per level: its bind group, cells and the next level's cells.
    levels: Vec<(wgpu::BindGroup, u32, u32)>,
    /// The most workgroups along x in a dispatch.
    row: u32,
    /// Per level: uniforms, coeffs, kinds, rhs, x, tmp, res, sides (`None` where level 0 shares).
    own: Vec<[Option<wgpu::Buffer>; 8]>,
    _dummy: Vec<wgpu::Buffer>,
}

impl GpuMultigrid {
    /// Uploads `mg`'s levels, its dispatches at most `row` workgroups wide
    /// ([`layout::dispatch_size`]); level 0 shares `[coeffs, kinds]` and
    /// `[residual, precond, scratch, scalars]` with the conjugate gradients.
    pub fn new(
        device: &wgpu::Device,
        mg: &Multigrid,
        row: u32,
        operator: [&wgpu::Buffer; 2],
        pcg: [&wgpu::Buffer; 4],
    ) -> Self {
        let count = mg.levels.len();
        // Per level: uniforms, coeffs, kinds, rhs, x, tmp, res, sides (None where level 0 shares).
        let mut own: Vec<[Option<wgpu::Buffer>; 8]> = Vec::with_capacity(count);
        for (l, op) in mg.levels.iter().enumerate() {
            let n = op.diag.len();
            let coarse = mg.levels.get(l + 1);
            let uniforms = LevelUniforms {
                dims: op.cells.dims.map(|d| d as u32),
                cells: n as u32,
                coarse_dims: coarse.map_or(op.cells.dims, |c| c.cells.dims).map(|d| d as u32),
                coarse_cells: coarse.map_or(0, |c| c.diag.len() as u32),
            };
            let zeros = vec![0f32; n];
            let vector =
                |name: &str| Some(buffer_init(device, &format!("pressure.mg{l}.{name}"), bytemuck::cast_slice(&zeros)));
            let first = l == 0;
            own.push([
                Some(uniform_init(device, &format!("pressure.mg{l}.uniforms"), bytemuck::bytes_of(&uniforms))),
                (!first).then(|| {
                    buffer_init(device, "pressure.mg.coeffs", bytemuck::cast_slice(&layout::coefficients(op)))
                }),
                (!first).then(|| buffer_init(device, "pressure.mg.kinds", bytemuck::cast_slice(&layout::kinds(op)))),
                if first { None } else { vector("rhs") },
                if first { None } else { vector("x") },
                vector("tmp"),
                if first { None } else { vector("res") },
                vector("sides"),
            ]);
        }
        // Stand-ins for the coarsest level's missing coarser one.
        let dummy: Vec<wgpu::Buffer> = (0..4).map(|_| buffer_init(device, "pressure.mg.none", &[0u8; 16])).collect();
        let shared = [None, Some(operator[0]), Some(operator[1]), Some(pcg[0]), Some(pcg[1]), None, Some(pcg[2])];
        let buffer = |l: usize, i: usize| -> &wgpu::Buffer {
            match (&own[l][i], l == 0) {
                (Some(b), _) => b,
                (None, true) => shared[i].expect("level 0 shares this buffer"),
                (None, false) => unreachable!("only level 0 shares"),
            }
        };
        let module = ComputeModule::new(device, "pressure/multigrid.wgsl", &source(), &[&BINDINGS], ENTRIES);
        let levels = (0..count)
            .map(|l| {
                let fine: Vec<&wgpu::Buffer> = (0..7).map(|i| buffer(l, i)).collect();
                let coarse: Vec<&wgpu::Buffer> = if l + 1 < count {
                    [1, 2, 3, 4].map(|i| buffer(l + 1, i)).to_vec()
                } else {
                    dummy.iter().collect()
                };
                let sides = buffer(l, 7);
                let all: Vec<&wgpu::Buffer> = fine.into_iter().chain(coarse).chain([pcg[3], sides]).collect();
                let cells = mg.levels[l].diag.len() as u32;
                let coarse_cells = mg.levels.get(l + 1).map_or(0, |c| c.diag.len() as u32);
                (module.bind(device, 0, &all), cells, coarse_cells)
            })
            .collect();
        Self { module, levels, row, own, _dummy: dummy }
    }

    /// The levels below the finest.
    pub fn coarse_levels(&self) -> usize {
        self.levels.len() - 1
    }

    /// Level `l`'s (≥ 1) `[coeffs, kinds]`, which an operator built on the GPU fills.
    pub fn operator_buffers(&self, l: usize) -> [&wgpu::Buffer; 2] {
        let own = &self.own[l];
        [1, 2].map(|i| own[i].as_ref().expect("a coarse level owns its operator"))
    }

    /// Records one of [`GpuMultigrid::stages`] (a V-cycle records them all; a profile repeats one).
    pub fn record_stage(&self, pass: &mut wgpu::ComputePass, stage: Stage) {
        pass.set_pipeline(self.module.pipeline(stage.entry));
        pass.set_bind_group(0, &self.levels[stage.level].0, &[]);
        let [x, y] = if stage.entry == "mg_coarsest" {
            [1, 1]
        } else {
            dispatch_size(stage.items.div_ceil(WORKGROUP), self.row)
        };
        pass.dispatch_workgroups(x, y, 1);
    }

    /// The dispatches of one V-cycle, in order: per level down, its sweeps (in pairs, x → tmp →
    /// x; the first pair from zero in one dispatch), residual and restriction; the coarsest
    /// level in one workgroup; per level up, the prolongation and its sweeps.
    pub fn stages(&self) -> Vec<Stage> {
        let last = self.levels.len() - 1;
        let mut out = Vec::new();
        let smooth = |out: &mut Vec<Stage>, level: usize, from_zero: bool| {
            let cells = self.levels[level].1;
            for pair in 0..SMOOTHING_SWEEPS / 2 {
                if from_zero && pair == 0 {
                    out.push(Stage { level, entry: "mg_smooth_from_zero", items: cells });
                } else {
                    out.push(Stage { level, entry: "mg_smooth_to_tmp", items: cells });
                    out.push(Stage { level, entry: "mg_smooth_to_x", items: cells });
                }
            }
        };
        for level in 0..last {
            let (_, cells, coarse_cells) = self.levels[level];
            smooth(&mut out, level, true);
            out.push(Stage { level, entry: "mg_residual", items: cells });
            // Eight threads a coarse cell (`mg_restrict`).
            out.push(Stage { level, entry: "mg_restrict", items: 8 * coarse_cells });
        }
        out.push(Stage { level: last, entry: "mg_coarsest", items: self.levels[last].1 });
        for level in (0..last).rev() {
            out.push(Stage { level, entry: "mg_prolong", items: self.levels[level].1 });
            smooth(&mut out, level, false);
        }
        out
    }

    /// Records the side bits of every level with a coarser one (`mg_sides`), from the levels'
    /// kinds: once before each solve, after any build of the operator.
    pub fn record_sides(&self, pass: &mut wgpu::ComputePass) {
        for (level, &(_, cells, _)) in self.levels.iter().enumerate().take(self.levels.len() - 1) {
            self.record_stage(pass, Stage { level, entry: "mg_sides", items: cells });
        }
    }

    /// Records one V-cycle: z = M⁻¹ r in the conjugate gradients' `precond`.
    pub fn record(&self, pass: &mut wgpu::ComputePass) {
        for stage in self.stages() {
            self.record_stage(pass, stage);
        }
    }
}

/// One dispatch of a V-cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Its level, 0 the finest.
    pub level: usize,
    /// Its entry point in `multigrid.wgsl`.
    pub entry: &'static str,
    /// The threads it runs: one a cell, eight a coarse cell for a restriction.
    pub items: u32,
}
