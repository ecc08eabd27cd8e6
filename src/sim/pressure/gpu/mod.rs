//! The pressure solve's conjugate gradients on the GPU (`shaders/pressure/`), checked against the
//! twin's [`super::cpu::pcg::solve`] by `tests/pressure_solve.rs`. [`PressureGpu`] takes the
//! operator the twin builds ([`Poisson`]) with every preconditioner of the twin: none, Jacobi and
//! incomplete Poisson in `pcg.wgsl`, MIC(0) as wavefronts ([`mic`]) and the multigrid V-cycle
//! ([`multigrid`]), whose factor and levels the twin computes.
//!
//! A solve is recorded whole, the cap's iterations in one submission: once the residual reaches
//! the tolerance a flag in [`PcgScalars`] makes every later pass return at once.
//!
//! [`PressureGpu::on_grid`] builds the operator on the GPU instead ([`build`]): a step that
//! classifies its cells on the GPU writes their kinds and right-hand side to the solve's buffers
//! and records the build (the multigrid's levels and MIC(0)'s factor included) and the solve in
//! its own command encoder, with no host round trip.

pub mod build;
pub mod layout;
pub mod mic;
pub mod multigrid;

use bytemuck::{Pod, Zeroable};

use self::layout::{Binding, ComputeModule, buffer_init};
pub use self::layout::{MAX_GROUPS_X, WORKGROUP, dispatch_size};
use super::Preconditioner;
use super::cells::PressureCells;
use super::cpu::operator::Poisson;
use super::cpu::precond::Precond;
use crate::gpu::{Gpu, GpuError};

/// The module's own WGSL (`shaders/pressure/pcg.wgsl`), without [`layout::COMMON`].
pub const OWN_SOURCE: &str = include_str!("../../../../shaders/pressure/pcg.wgsl");

/// The module's complete WGSL ([`layout::compose`]).
pub fn source() -> String {
    layout::compose(OWN_SOURCE)
}

/// Mirror of `PressureUniforms` in `pcg.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct PressureUniforms {
    /// Cells along x, y, z.
    pub dims: [u32; 3],
    /// Their count.
    pub cells: u32,
    /// [`preconditioner_code`].
    pub preconditioner: u32,
    /// Workgroups of a cell pass (both axes): the partial sums of a dot product.
    pub partial_count: u32,
    /// The tolerance on the relative residual, squared.
    pub tolerance_squared: f32,
    /// 1: start from the values in the pressure buffer on the unknowns (a warm start), 0: from 0.
    pub warm: u32,
}

/// Mirror of `PcgScalars` in `common.wgsl`: what the solve carries between passes.
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

/// A preconditioner's code in [`PressureUniforms::preconditioner`]: 0 none, 1 Jacobi, 2
/// incomplete Poisson (all in `pcg_precondition`), 3 MIC(0) and 4 multigrid (their passes leave
/// z in place before it).
pub fn preconditioner_code(kind: Preconditioner) -> u32 {
    match kind {
        Preconditioner::None => 0,
        Preconditioner::Jacobi => 1,
        Preconditioner::IncompletePoisson => 2,
        Preconditioner::Mic0 => 3,
        Preconditioner::Multigrid => 4,
    }
}

/// The conjugate-gradient buffers, by binding (`pcg.wgsl`).
const PCG_BINDINGS: [Binding; 12] = [
    Binding::Uniform,
    Binding::Read,  // coeffs
    Binding::Read,  // rhs
    Binding::Write, // pressure
    Binding::Write, // residual
    Binding::Write, // precond
    Binding::Write, // direction
    Binding::Write, // applied
    Binding::Write, // partials
    Binding::Write, // scalars
    Binding::Write, // half_step
    Binding::Write, // history
];

/// Entries of [`PressureGpu::history`]: the start and the most iterations a solve may take.
pub const HISTORY_LENGTH: usize = super::MAX_ITERATIONS_RANGE.1 as usize + 1;

/// Buffer indices in [`PressureGpu::buffers`].
const UNIFORMS: usize = 0;
const COEFFS: usize = 1;
const RHS: usize = 2;
const PRESSURE: usize = 3;
const RESIDUAL: usize = 4;
const PRECOND: usize = 5;
const SCALARS: usize = 9;
const HALF_STEP: usize = 10;
const HISTORY: usize = 11; // the relative residual after each iteration
/// Per cell its kind (`layout::kinds`), not bound by `pcg.wgsl`: what a build reads.
const KINDS: usize = 12;

/// The passes of one iteration before its preconditioning, in order.
const ITERATION: [&str; 4] = ["pcg_apply", "pcg_reduce_sq", "pcg_update", "pcg_reduce_rr"];

/// Every entry point the host builds pipelines for.
pub const ENTRIES: [&str; 13] = [
    "pcg_begin",
    "pcg_reduce_bb",
    "pcg_warm_residual",
    "pcg_reduce_warm",
    "pcg_warm_fallback",
    "pcg_ip_upper",
    "pcg_precondition",
    "pcg_reduce_zr",
    "pcg_direction",
    "pcg_apply",
    "pcg_reduce_sq",
    "pcg_update",
    "pcg_reduce_rr",
];

/// A pressure solve on the GPU for one operator and preconditioner: its buffers and pipelines,
/// built once, solved for any right-hand side.
pub struct PressureGpu {
    kind: Preconditioner,
    cells: usize,
    row: u32,
    uniforms: PressureUniforms,
    buffers: Vec<wgpu::Buffer>,
    module: ComputeModule,
    group: wgpu::BindGroup,
    mic: Option<mic::GpuMic>,
    multigrid: Option<multigrid::GpuMultigrid>,
    build: Option<build::OperatorBuild>,
    /// [`PressureUniforms`] with each of two solves' tolerance and start (zero or warm), one
    /// 256-byte slot each, copied into the uniforms before a solve that names its slot
    /// ([`PressureGpu::record_solve_in`]).
    tolerance_slots: wgpu::Buffer,
}

impl PressureGpu {
    /// Uploads `op` and builds `kind` for it (MIC(0)'s factor and the multigrid levels on the
    /// host, as the twin builds them).
    pub fn new(gpu: &Gpu, op: &Poisson, kind: Preconditioner) -> Self {
        Self::with_rows(gpu, op, kind, MAX_GROUPS_X)
    }

    /// [`PressureGpu::new`] with at most `row` workgroups along x in a dispatch (the rest in rows
    /// along y): what a grid of more than 65535 · 256 cells takes, testable on a small one.
    pub fn with_rows(gpu: &Gpu, op: &Poisson, kind: Preconditioner, row: u32) -> Self {
        Self::make(gpu, op, kind, row, false)
    }

    /// A solve whose operator the GPU builds from the kinds in [`PressureGpu::kinds`] and the
    /// open fractions of `structure` (its kinds only size the buffers), before each solve
    /// ([`PressureGpu::record_build`]).
    pub fn on_grid(gpu: &Gpu, structure: &PressureCells, kind: Preconditioner) -> Self {
        Self::on_grid_with_rows(gpu, structure, kind, MAX_GROUPS_X)
    }

    /// [`PressureGpu::on_grid`] with at most `row` workgroups along x in a dispatch.
    pub fn on_grid_with_rows(gpu: &Gpu, structure: &PressureCells, kind: Preconditioner, row: u32) -> Self {
        Self::make(gpu, &Poisson::new(structure.clone(), 1.0), kind, row, true)
    }

    fn make(gpu: &Gpu, op: &Poisson, kind: Preconditioner, row: u32, on_gpu: bool) -> Self {
        let device = &gpu.device;
        let n = op.diag.len();
        let [gx, gy] = dispatch_size((n as u32).div_ceil(WORKGROUP), row);
        // One partial sum per workgroup dispatched, those past the cells adding zero.
        let groups = gx * gy;
        let uniforms = PressureUniforms {
            dims: op.cells.dims.map(|d| d as u32),
            cells: n as u32,
            preconditioner: preconditioner_code(kind),
            partial_count: groups,
            tolerance_squared: 0.0,
            warm: 0,
        };
        let coeffs = layout::coefficients(op);
        let zeros = vec![0f32; n.max(1)];
        let vector = |label: &str| buffer_init(device, label, bytemuck::cast_slice(&zeros));
        let buffers = vec![
            layout::uniform_init(device, "pressure.uniforms", bytemuck::bytes_of(&uniforms)),
            buffer_init(device, "pressure.coeffs", bytemuck::cast_slice(&coeffs)),
            vector("pressure.rhs"),
            vector("pressure.p"),
            vector("pressure.r"),
            vector("pressure.z"),
            vector("pressure.s"),
            vector("pressure.q"),
            buffer_init(device, "pressure.partials", bytemuck::cast_slice(&vec![0f32; groups.max(1) as usize])),
            buffer_init(device, "pressure.scalars", bytemuck::bytes_of(&PcgScalars::default())),
            vector("pressure.y"),
            buffer_init(device, "pressure.history", &[0u8; 4 * HISTORY_LENGTH]),
            buffer_init(device, "pressure.kinds", bytemuck::cast_slice(&layout::kinds(op))),
        ];
        let module = ComputeModule::new(device, "pressure/pcg.wgsl", &source(), &[&PCG_BINDINGS], ENTRIES);
        let group = module.bind(device, 0, &buffers[..PCG_BINDINGS.len()].iter().collect::<Vec<_>>());
        let (mut mic, mut multigrid) = (None, None);
        let mut levels: Vec<&PressureCells> = vec![&op.cells];
        let precond = Precond::new(kind, op);
        match &precond {
            Precond::Mic0 { precon } => {
                mic = Some(mic::GpuMic::new(
                    device,
                    op,
                    precon,
                    &buffers[COEFFS],
                    [&buffers[RESIDUAL], &buffers[PRECOND], &buffers[SCALARS]],
                ));
            }
            Precond::Multigrid(mg) => {
                multigrid = Some(multigrid::GpuMultigrid::new(
                    device,
                    mg,
                    row,
                    [&buffers[COEFFS], &buffers[KINDS]],
                    [&buffers[RESIDUAL], &buffers[PRECOND], &buffers[HALF_STEP], &buffers[SCALARS]],
                ));
                levels.extend(mg.levels[1..].iter().map(|l| &l.cells));
            }
            _ => {}
        }
        let build = on_gpu.then(|| {
            let mut targets = vec![[COEFFS, KINDS].map(|i| buffers[i].as_entire_buffer_binding())];
            if let Some(mg) = &multigrid {
                targets.extend((1..=mg.coarse_levels()).map(|l| mg.operator_buffers(l)));
            }
            let levels: Vec<_> = levels.iter().copied().zip(targets).collect();
            build::OperatorBuild::new(device, &levels, row)
        });
        let tolerance_slots = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pressure.tolerance_slots"),
            size: 2 * layout::SLOT,
            usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self { kind, cells: n, row, uniforms, buffers, module, group, mic, multigrid, build, tolerance_slots }
    }

    /// The multigrid preconditioner's V-cycle (`None` under the other preconditioners).
    pub fn multigrid(&self) -> Option<&multigrid::GpuMultigrid> {
        self.multigrid.as_ref()
    }

    /// Per cell its kind (0 air, 1 liquid, 2 solid): what [`PressureGpu::record_build`] reads.
    pub fn kinds(&self) -> &wgpu::Buffer {
        &self.buffers[KINDS]
    }

    /// The right-hand side `b`, per cell (zero off the unknowns).
    pub fn rhs(&self) -> &wgpu::Buffer {
        &self.buffers[RHS]
    }

    /// The pressure a solve leaves, per cell.
    pub fn pressure(&self) -> &wgpu::Buffer {
        &self.buffers[PRESSURE]
    }

    /// The operator's coefficients per cell, `[A_cc, A_c,c+x, A_c,c+y, A_c,c+z]`.
    pub fn coeffs(&self) -> &wgpu::Buffer {
        &self.buffers[COEFFS]
    }

    /// `‖r‖/‖b‖` at the start and after each iteration of the last solve ([`HISTORY_LENGTH`]).
    pub fn history(&self) -> &wgpu::Buffer {
        &self.buffers[HISTORY]
    }

    /// The solve's [`PcgScalars`]: iterations and residual of the last solve.
    pub fn scalars(&self) -> &wgpu::Buffer {
        &self.buffers[SCALARS]
    }

    /// Sets the tolerance of the solves submitted after it, which start from zero.
    pub fn set_tolerance(&self, queue: &wgpu::Queue, tolerance: f64) {
        self.set_uniforms(queue, tolerance, false);
    }

    fn set_uniforms(&self, queue: &wgpu::Queue, tolerance: f64, warm: bool) {
        let uniforms = PressureUniforms {
            tolerance_squared: (tolerance * tolerance) as f32,
            warm: u32::from(warm),
            ..self.uniforms
        };
        queue.write_buffer(&self.buffers[UNIFORMS], 0, bytemuck::bytes_of(&uniforms));
    }

    /// Records the operator's build from [`PressureGpu::kinds`] (and the preconditioner's: the
    /// multigrid's levels, MIC(0)'s factor); nothing for a solve made by [`PressureGpu::new`],
    /// whose operator came from the host.
    pub fn record_build(&self, encoder: &mut wgpu::CommandEncoder) {
        let Some(build) = &self.build else { return };
        let mut pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("pressure.build"), timestamp_writes: None });
        build.record(&mut pass);
        if let Some(mic) = &self.mic {
            mic.record_factor(&mut pass);
        }
    }

    /// Level 0's open fractions of a solve made by [`PressureGpu::on_grid`] (`None` otherwise).
    pub fn finest_open(&self) -> Option<&wgpu::Buffer> {
        self.build.as_ref().map(|b| b.finest_open())
    }

    /// Replaces the open fractions of a solve made by [`PressureGpu::on_grid`] with `structure`'s
    /// (the same cells, moved solids; its kinds unused), on every multigrid level.
    pub fn set_open(&self, queue: &wgpu::Queue, structure: &PressureCells) {
        let Some(build) = &self.build else { return };
        let mut levels = vec![structure.clone()];
        while levels.len() < build.level_count() {
            let coarser = levels.last().expect("one level at least").coarsen();
            levels.push(coarser);
        }
        build.set_open(queue, &levels);
    }

    /// Sets the two tolerances [`PressureGpu::record_solve_in`]'s slots hold, and whether each
    /// slot's solve starts from the pressure buffer's values (warm) or from zero.
    pub fn set_solve_slots(&self, queue: &wgpu::Queue, tolerances: [(f64, bool); 2]) {
        for (slot, (tolerance, warm)) in tolerances.into_iter().enumerate() {
            let uniforms = PressureUniforms {
                tolerance_squared: (tolerance * tolerance) as f32,
                warm: u32::from(warm),
                ..self.uniforms
            };
            queue.write_buffer(&self.tolerance_slots, slot as u64 * layout::SLOT, bytemuck::bytes_of(&uniforms));
        }
    }

    /// Records a solve of `A p = b` with `b` in [`PressureGpu::rhs`], at most `max_iterations`,
    /// from p = 0 or (a warm slot) the pressure buffer's values, to the tolerance of `slot` (0 or 1, [`PressureGpu::set_solve_slots`]):
    /// two solves of one submission may stop at different residuals.
    pub fn record_solve_in(&self, encoder: &mut wgpu::CommandEncoder, max_iterations: u32, slot: u64) {
        let size = size_of::<PressureUniforms>() as u64;
        encoder.copy_buffer_to_buffer(&self.tolerance_slots, slot * layout::SLOT, &self.buffers[UNIFORMS], 0, size);
        self.record(encoder, max_iterations, None);
    }

    /// Dispatches `entry` of `pcg.wgsl`: one workgroup for a reduction, else one per 256 cells.
    fn run(&self, pass: &mut wgpu::ComputePass, entry: &str) {
        let [x, y] = if entry.starts_with("pcg_reduce") {
            [1, 1]
        } else {
            dispatch_size((self.cells as u32).div_ceil(WORKGROUP), self.row)
        };
        pass.set_pipeline(self.module.pipeline(entry));
        pass.set_bind_group(0, &self.group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// z = M⁻¹ r, zᵀr, and the next direction.
    fn precondition(&self, pass: &mut wgpu::ComputePass) {
        match self.kind {
            Preconditioner::IncompletePoisson => self.run(pass, "pcg_ip_upper"),
            Preconditioner::Mic0 => self.mic.iter().for_each(|m| m.record(pass)),
            Preconditioner::Multigrid => self.multigrid.iter().for_each(|m| m.record(pass)),
            Preconditioner::None | Preconditioner::Jacobi => {}
        }
        for entry in ["pcg_precondition", "pcg_reduce_zr", "pcg_direction"] {
            self.run(pass, entry);
        }
    }

    /// Records a solve of `A p = b` from p = 0, or from the pressure's values where `warm` is set.
    fn record(&self, encoder: &mut wgpu::CommandEncoder, max_iterations: u32, timestamps: Option<&wgpu::QuerySet>) {
        let timestamp_writes = timestamps.map(|query_set| wgpu::ComputePassTimestampWrites {
            query_set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        });
        let mut pass =
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("pressure.pcg"), timestamp_writes });
        self.multigrid.iter().for_each(|m| m.record_sides(&mut pass));
        for entry in ["pcg_begin", "pcg_reduce_bb", "pcg_warm_residual", "pcg_reduce_warm", "pcg_warm_fallback"] {
            self.run(&mut pass, entry);
        }
        self.precondition(&mut pass);
        for _ in 0..max_iterations {
            for entry in ITERATION {
                self.run(&mut pass, entry);
            }
            // The next direction (every pass returns at once after convergence).
            self.precondition(&mut pass);
        }
    }

    /// Solves `A p = b` from p = 0 to the relative residual `tolerance` in at most
    /// `max_iterations`, one submission; an error if the device is lost while reading back.
    pub fn solve(&self, gpu: &Gpu, b: &[f64], tolerance: f64, max_iterations: u32) -> Result<GpuSolve, GpuError> {
        Ok(self.submit(gpu, b, tolerance, max_iterations, None)?.0)
    }

    /// [`PressureGpu::solve`] from `start` (one value per cell; a start whose residual exceeds
    /// `‖b‖` is dropped for zero), as the twin's `solve_from`.
    pub fn solve_from(
        &self,
        gpu: &Gpu,
        b: &[f64],
        start: &[f64],
        tolerance: f64,
        max_iterations: u32,
    ) -> Result<GpuSolve, GpuError> {
        let start: Vec<f32> = start.iter().map(|v| *v as f32).collect();
        gpu.queue.write_buffer(&self.buffers[PRESSURE], 0, bytemuck::cast_slice(&start));
        self.set_uniforms(&gpu.queue, tolerance, true);
        let rhs: Vec<f32> = b.iter().map(|v| *v as f32).collect();
        gpu.queue.write_buffer(&self.buffers[RHS], 0, bytemuck::cast_slice(&rhs));
        Ok(self.record_and_read(gpu, max_iterations, None)?.0)
    }

    /// [`PressureGpu::solve`], and the GPU's milliseconds from the solve's first pass to the end of
    /// its last; `None` where the device has no timestamp queries.
    pub fn solve_timed(
        &self,
        gpu: &Gpu,
        b: &[f64],
        tolerance: f64,
        max_iterations: u32,
    ) -> Result<(GpuSolve, Option<f64>), GpuError> {
        let timing = gpu.has_timestamps.then(|| gpu.timestamp_queries("pressure.solve", 2));
        self.submit(gpu, b, tolerance, max_iterations, timing.as_ref())
    }

    /// Uploads `b` and the tolerance, records and submits the solve (its first and last pass
    /// timed into `timing` where given) and reads the pressure, the scalars and the time back.
    fn submit(
        &self,
        gpu: &Gpu,
        b: &[f64],
        tolerance: f64,
        max_iterations: u32,
        timing: Option<&(wgpu::QuerySet, wgpu::Buffer)>,
    ) -> Result<(GpuSolve, Option<f64>), GpuError> {
        self.set_tolerance(&gpu.queue, tolerance);
        let rhs: Vec<f32> = b.iter().map(|v| *v as f32).collect();
        gpu.queue.write_buffer(&self.buffers[RHS], 0, bytemuck::cast_slice(&rhs));
        self.record_and_read(gpu, max_iterations, timing)
    }

    /// Records and submits a solve with the uniforms and vectors already written, and reads back
    /// the pressure, the scalars and (with `timing`) the GPU's milliseconds.
    fn record_and_read(
        &self,
        gpu: &Gpu,
        max_iterations: u32,
        timing: Option<&(wgpu::QuerySet, wgpu::Buffer)>,
    ) -> Result<(GpuSolve, Option<f64>), GpuError> {
        let mut encoder =
            gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("pressure.solve") });
        self.record(&mut encoder, max_iterations, timing.map(|(q, _)| q));
        if let Some((queries, resolve)) = timing {
            encoder.resolve_query_set(queries, 0..2, resolve, 0);
        }
        gpu.queue.submit([encoder.finish()]);
        let mut read = vec![&self.buffers[PRESSURE], &self.buffers[SCALARS]];
        read.extend(timing.map(|(_, r)| r));
        let bytes = gpu.read_buffers(&read)?;
        let pressure: Vec<f32> = bytemuck::cast_slice(&bytes[0][..4 * self.cells]).to_vec();
        let scalars: PcgScalars = bytemuck::pod_read_unaligned(&bytes[1][..size_of::<PcgScalars>()]);
        let ms = bytes.get(2).map(|t| {
            let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&t[..16]);
            ticks[1].saturating_sub(ticks[0]) as f64 * gpu.queue.get_timestamp_period() as f64 * 1e-6
        });
        Ok((GpuSolve { pressure, scalars }, ms))
    }
}
