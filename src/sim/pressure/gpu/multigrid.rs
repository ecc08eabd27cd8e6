//! The multigrid V-cycle on the GPU (`shaders/pressure/multigrid.wgsl`), level by level as the
//! twin's [`Multigrid`] runs it, and its smallest levels in one workgroup
//! (`shaders/pressure/coarse_cycle.wgsl`). The levels' operators come from the twin; the levels
//! below the finest share one buffer per vector, each level a range of it, and each level's bind
//! group also holds the next coarser level's ranges. Level 0 works in place on the conjugate
//! gradients' residual (its right-hand side) and preconditioned residual (its solution).

use bytemuck::{Pod, Zeroable};

use super::layout::{self, Binding, ComputeModule, WORKGROUP, buffer_init, dispatch_size, uniform_init};
use crate::sim::pressure::cpu::multigrid::{COARSEST_CELLS, Multigrid, SMOOTHING_SWEEPS};

/// The module's own WGSL (`shaders/pressure/multigrid.wgsl`), without [`layout::COMMON`] and
/// [`VCYCLE`].
pub const OWN_SOURCE: &str = include_str!("../../../../shaders/pressure/multigrid.wgsl");

/// What both V-cycle modules start with after [`layout::COMMON`] (`shaders/pressure/vcycle.wgsl`):
/// the smoother's and the coarsest solve's constants, and the transfers' weights.
pub const VCYCLE: &str = include_str!("../../../../shaders/pressure/vcycle.wgsl");

/// The module's complete WGSL: [`layout::compose`] of [`VCYCLE`] and its own.
pub fn source() -> String {
    layout::compose(&format!("{VCYCLE}\n{OWN_SOURCE}"))
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

// `rhs` is declared writable only because a coarse level's and the next one's share a buffer,
// which a dispatch may not bind both read-only and writable.
const BINDINGS: [Binding; 13] = [
    Binding::Uniform,
    Binding::Read,  // coeffs
    Binding::Read,  // kinds
    Binding::Write, // rhs
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

/// The fused coarse cycle's module (`shaders/pressure/coarse_cycle.wgsl`), without
/// [`layout::COMMON`] and [`VCYCLE`].
pub const CYCLE_SOURCE: &str = include_str!("../../../../shaders/pressure/coarse_cycle.wgsl");

/// The fused coarse cycle's complete WGSL: [`layout::compose`] of [`VCYCLE`] and its own.
pub fn cycle_source() -> String {
    layout::compose(&format!("{VCYCLE}\n{CYCLE_SOURCE}"))
}

/// Levels of at most this many cells (below the finest) run in one workgroup, the whole V-cycle
/// from there down and back up in one dispatch (`mg_cycle`): a level this small costs the GPU its
/// dispatches' launches and barriers, not its work. One workgroup is latency-bound, so past a few
/// hundred cells the dispatches it replaces are faster (`powder bench --pressure` profiles both).
pub const FUSED_CELLS: u32 = 512;

/// The most levels [`CycleUniforms`] holds: a level of at most [`FUSED_CELLS`] cells is at most
/// that long, and levels halve until 4 cells along every axis.
pub const MAX_CYCLE_LEVELS: usize = 16;

/// Mirror of `CycleLevel` in `coarse_cycle.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CycleLevel {
    /// The level's cells along x, y, z.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
    /// Its first element in the coarse levels' shared buffers.
    pub offset: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
}

/// Mirror of `CycleUniforms` in `coarse_cycle.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct CycleUniforms {
    /// Levels in use: the finest fused first, the coarsest last.
    pub count: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
    /// The levels.
    pub levels: [CycleLevel; MAX_CYCLE_LEVELS],
}

const CYCLE_BINDINGS: [Binding; 8] = [
    Binding::Uniform,
    Binding::Read,  // coeffs
    Binding::Write, // rhs
    Binding::Write, // x
    Binding::Write, // tmp
    Binding::Write, // res
    Binding::Read,  // sides
    Binding::Read,  // scalars
];

/// Elements a level's range in the shared buffers is aligned to: 256 bytes of f32, the largest
/// `minStorageBufferOffsetAlignment` Vulkan allows.
const ALIGN: u32 = 64;

/// The coarse levels' shared buffers, by vector: every level below the finest has a range of each.
const POOLS: [&str; 7] = ["coeffs", "kinds", "rhs", "x", "tmp", "res", "sides"];
const P_COEFFS: usize = 0;
const P_KINDS: usize = 1;
const P_RHS: usize = 2;
const P_X: usize = 3;
const P_TMP: usize = 4;
const P_RES: usize = 5;
const P_SIDES: usize = 6;

/// Level `l`'s range of `pool`, whose elements are `bytes` long (16 for the coefficients, 4 for the
/// rest), from the levels' `(first element, cells)`.
fn pool_range<'a>(pools: &'a [wgpu::Buffer], ranges: &[(u32, u32)], l: usize, pool: usize) -> wgpu::BufferBinding<'a> {
    let (offset, cells) = ranges[l];
    let bytes = if pool == P_COEFFS { 16 } else { 4 };
    wgpu::BufferBinding {
        buffer: &pools[pool],
        offset: u64::from(offset) * bytes,
        size: wgpu::BufferSize::new(u64::from(cells) * bytes),
    }
}

/// The levels' buffers and bind groups.
pub struct GpuMultigrid {
    module: ComputeModule,
    cycle_module: ComputeModule,
    /// Per level: its bind group, its cells and the next level's.
    levels: Vec<(wgpu::BindGroup, u32, u32)>,
    /// The first level the fused cycle runs (`None` where the finest is the coarsest), its bind group.
    cycle: Option<(usize, wgpu::BindGroup)>,
    /// The most workgroups along x in a dispatch.
    row: u32,
    /// The coarse levels' shared buffers ([`POOLS`]).
    pools: Vec<wgpu::Buffer>,
    /// Per level its first element in [`GpuMultigrid::pools`] and its cells (level 0's unused).
    ranges: Vec<(u32, u32)>,
    /// Level 0's scratch and side bits, the levels' uniforms and the rest the bind groups hold.
    _own: Vec<wgpu::Buffer>,
}

impl GpuMultigrid {
    /// Uploads `mg`'s levels, its dispatches at most `row` workgroups wide
    /// ([`layout::dispatch_size`]); level 0 shares `[coeffs, kinds]` and
    /// `[residual, precond, scratch, scalars]` with the conjugate gradients. The coarser levels
    /// share one buffer per vector ([`POOLS`]), so the fused cycle binds them all.
    pub fn new(
        device: &wgpu::Device,
        mg: &Multigrid,
        row: u32,
        operator: [&wgpu::Buffer; 2],
        pcg: [&wgpu::Buffer; 4],
    ) -> Self {
        let count = mg.levels.len();
        let mut ranges = vec![(0u32, mg.levels[0].diag.len() as u32)];
        let mut total = 0u32;
        for op in &mg.levels[1..] {
            let n = op.diag.len() as u32;
            ranges.push((total, n));
            total += n.div_ceil(ALIGN) * ALIGN;
        }
        let total = total.max(ALIGN) as usize;
        let mut coeffs = vec![[0f32; 4]; total];
        let mut kinds = vec![0u32; total];
        for (l, op) in mg.levels.iter().enumerate().skip(1) {
            let o = ranges[l].0 as usize;
            coeffs[o..o + op.diag.len()].copy_from_slice(&layout::coefficients(op));
            kinds[o..o + op.diag.len()].copy_from_slice(&layout::kinds(op));
        }
        let zeros = vec![0f32; total];
        let pools: Vec<wgpu::Buffer> = POOLS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let bytes: &[u8] = match i {
                    P_COEFFS => bytemuck::cast_slice(&coeffs),
                    P_KINDS => bytemuck::cast_slice(&kinds),
                    _ => bytemuck::cast_slice(&zeros),
                };
                buffer_init(device, &format!("pressure.mg.{name}"), bytes)
            })
            .collect();
        // Level 0's own scratch and side bits (its other vectors are the conjugate gradients').
        let n0 = mg.levels[0].diag.len().max(1);
        let tmp0 = buffer_init(device, "pressure.mg0.tmp", bytemuck::cast_slice(&vec![0f32; n0]));
        let sides0 = buffer_init(device, "pressure.mg0.sides", bytemuck::cast_slice(&vec![0u32; n0]));
        let level_uniforms: Vec<wgpu::Buffer> = (0..count)
            .map(|l| {
                let (op, coarse) = (&mg.levels[l], mg.levels.get(l + 1));
                let uniforms = LevelUniforms {
                    dims: op.cells.dims.map(|d| d as u32),
                    cells: op.diag.len() as u32,
                    coarse_dims: coarse.map_or(op.cells.dims, |c| c.cells.dims).map(|d| d as u32),
                    coarse_cells: coarse.map_or(0, |c| c.diag.len() as u32),
                };
                uniform_init(device, &format!("pressure.mg{l}.uniforms"), bytemuck::bytes_of(&uniforms))
            })
            .collect();
        // Stand-ins for the coarsest level's missing coarser one.
        let dummy: Vec<wgpu::Buffer> = (0..4).map(|_| buffer_init(device, "pressure.mg.none", &[0u8; 16])).collect();
        // Level 0's vectors by binding (coeffs, kinds, rhs, x, tmp, res, sides after the uniforms).
        let level0 = [operator[0], operator[1], pcg[0], pcg[1], &tmp0, pcg[2], &sides0];
        let pools_of = [P_COEFFS, P_KINDS, P_RHS, P_X, P_TMP, P_RES, P_SIDES];
        // Level l's binding i (uniforms, coeffs, kinds, rhs, x, tmp, res, sides).
        let range = |l: usize, i: usize| -> wgpu::BufferBinding {
            match (i, l) {
                (0, _) => level_uniforms[l].as_entire_buffer_binding(),
                (_, 0) => level0[i - 1].as_entire_buffer_binding(),
                _ => pool_range(&pools, &ranges, l, pools_of[i - 1]),
            }
        };
        let module = ComputeModule::new(device, "pressure/multigrid.wgsl", &source(), &[&BINDINGS], ENTRIES);
        let levels = (0..count)
            .map(|l| {
                let fine: Vec<wgpu::BufferBinding> = (0..7).map(|i| range(l, i)).collect();
                let coarse: Vec<wgpu::BufferBinding> = if l + 1 < count {
                    [1, 2, 3, 4].map(|i| range(l + 1, i)).to_vec()
                } else {
                    dummy.iter().map(|b| b.as_entire_buffer_binding()).collect()
                };
                let all: Vec<wgpu::BufferBinding> =
                    fine.into_iter().chain(coarse).chain([pcg[3].as_entire_buffer_binding(), range(l, 7)]).collect();
                let coarse_cells = mg.levels.get(l + 1).map_or(0, |c| c.diag.len() as u32);
                (module.bind_ranges(device, 0, &all), ranges[l].1, coarse_cells)
            })
            .collect();
        let cycle_module =
            ComputeModule::new(device, "pressure/coarse_cycle.wgsl", &cycle_source(), &[&CYCLE_BINDINGS], ["mg_cycle"]);
        let first = (1..count).find(|&l| ranges[l].1 <= FUSED_CELLS);
        let mut own = vec![tmp0, sides0];
        own.extend(level_uniforms);
        own.extend(dummy);
        let cycle = first.map(|first| {
            let fused = &mg.levels[first..];
            assert!(fused.len() <= MAX_CYCLE_LEVELS, "{} levels of at most {FUSED_CELLS} cells", fused.len());
            let mut uniforms = CycleUniforms {
                count: fused.len() as u32,
                pad0: 0,
                pad1: 0,
                pad2: 0,
                levels: [CycleLevel::default(); MAX_CYCLE_LEVELS],
            };
            for (k, op) in fused.iter().enumerate() {
                let (offset, cells) = ranges[first + k];
                uniforms.levels[k] =
                    CycleLevel { dims: op.cells.dims.map(|d| d as u32), cells, offset, ..Default::default() };
            }
            let u = uniform_init(device, "pressure.mg.cycle", bytemuck::bytes_of(&uniforms));
            let whole = |i: usize| pools[i].as_entire_buffer_binding();
            let all = [
                u.as_entire_buffer_binding(),
                whole(P_COEFFS),
                whole(P_RHS),
                whole(P_X),
                whole(P_TMP),
                whole(P_RES),
                whole(P_SIDES),
                pcg[3].as_entire_buffer_binding(),
            ];
            let group = cycle_module.bind_ranges(device, 0, &all);
            own.push(u);
            (first, group)
        });
        Self { module, cycle_module, levels, cycle, row, pools, ranges, _own: own }
    }

    /// The levels below the finest.
    pub fn coarse_levels(&self) -> usize {
        self.levels.len() - 1
    }

    /// Level `l`'s (≥ 1) `[coeffs, kinds]` ranges, which an operator built on the GPU fills.
    pub fn operator_buffers(&self, l: usize) -> [wgpu::BufferBinding<'_>; 2] {
        assert!(l >= 1 && l < self.levels.len(), "a coarse level owns its operator");
        [P_COEFFS, P_KINDS].map(|pool| pool_range(&self.pools, &self.ranges, l, pool))
    }

    /// Records one of [`GpuMultigrid::stages`] (a V-cycle records them all; a profile repeats one).
    pub fn record_stage(&self, pass: &mut wgpu::ComputePass, stage: Stage) {
        if stage.entry == "mg_cycle" {
            let (_, group) = self.cycle.as_ref().expect("a fused cycle where a stage names it");
            pass.set_pipeline(self.cycle_module.pipeline("mg_cycle"));
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            return;
        }
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
    /// x; the first pair from zero in one dispatch), residual and restriction; from the first
    /// level of at most [`FUSED_CELLS`] cells the rest of the cycle in one workgroup (`mg_cycle`;
    /// `mg_coarsest` where the finest level is the coarsest); per level up, the prolongation and
    /// its sweeps.
    pub fn stages(&self) -> Vec<Stage> {
        let last = self.cycle.as_ref().map_or(0, |(first, _)| *first);
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
        let entry = if self.cycle.is_some() { "mg_cycle" } else { "mg_coarsest" };
        out.push(Stage { level: last, entry, items: self.levels[last].1 });
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
