//! The water step on the GPU (`shaders/water/`), pass for pass the twin's
//! [`WaterCpu::step`](super::cpu::WaterCpu::step), with the pressure solve's operator built on the
//! GPU ([`PressureGpu::on_grid`]): a frame's steps are recorded in one submission with no host
//! round trip; the host reads back only what it asks for (the fastest speed for the next frame's
//! step, the particles, the last solve's scalars). `tests/water_gpu.rs` holds it to the twin.

pub mod layout;
pub mod snow;
mod submit;
mod types;

use nalgebra::Vector3;

use self::layout::{BINDINGS, ENTRIES, SNOW_BINDINGS, WaterStatus, WaterUniforms};
use self::snow::SnowGroup;
pub use self::snow::SnowStreams;
pub use self::types::{FrameStatus, WaterDiagnostics, WaterGrid, fixed_point_scale};
use self::types::{history_of, solid_mask};
use super::cpu::WaterParticle;
use super::solids::cells_with_solids;
use super::{Transfer, WaterSettings};
use crate::gpu::{Gpu, GpuError};
use crate::sim::pressure::cells::{PressureCells, face_dims};
use crate::sim::pressure::gpu::build::open_fractions;
use crate::sim::pressure::gpu::layout::{
    ComputeModule, MAX_GROUPS_X, WORKGROUP, buffer_init, dispatch_size, uniform_init,
};
use crate::sim::pressure::gpu::{HISTORY_LENGTH, PcgScalars, PressureGpu};

/// Rounds of the snow's join ([`snow`]) a step records: a body of snow joins the liquid at least
/// this many cells deep from the water (more where a round's changes reach others in it).
const JOIN_ROUNDS: usize = 16;

/// Rounds of extrapolation after the projection (the twin's `extrapolate(2)`).
const EXTRAPOLATION_ROUNDS: usize = 2;
/// The fastest a particle of a standalone step may move, m/s (a scene's default `max_speed`).
pub const DEFAULT_MAX_SPEED: f64 = 50.0;

/// The indices in `own` of the colliders' solid cells and open fractions.
const OWN_SOLID: usize = 10;
const OWN_OPEN: usize = 11;
/// The index in `own` of the kinds the last projection solved on.
const OWN_SOLVE_KINDS: usize = 13;
/// The index in `own` of the last projection's diagnostics.
const OWN_DIAGNOSTICS: usize = 12;
/// The index in `own` of the last projection's residual history.
const OWN_SOLVE_HISTORY: usize = 14;
/// The index in `own` of the colliders' face velocities.
const OWN_SOLID_VELOCITY: usize = 15;

/// The stages of a step [`WaterGpu::record_step_marked`] marks: particles to the faces (with the
/// snow's, the join and the mixture), the operator's build and the divergence, the projection's
/// solve, the gradient and the extrapolation, the gather and move, the volume correction's count,
/// classification, build and excess, its solve, and its displacement.
pub const STAGES: [&str; 8] = [
    "to grid",
    "operator and divergence",
    "projection solve",
    "project and extrapolate",
    "gather and move",
    "volume: count and operator",
    "volume: solve",
    "volume: displace",
];

/// Iterations a frame records beyond the most the last frame's solves took.
const ITERATION_MARGIN: u32 = 4;

/// What the water step holds on the GPU.
pub struct WaterGpu {
    settings: WaterSettings,
    h: f64,
    gravity: Vector3<f64>,
    uniforms: WaterUniforms,
    module: ComputeModule,
    group: wgpu::BindGroup,
    pressure: PressureGpu,
    /// The pressure solve's scalars and pressure, copied before the volume correction's solve
    /// reuses the solve's buffers.
    solve_scalars: wgpu::Buffer,
    solve_pressure: wgpu::Buffer,
    /// The particle streams where the step made them ([`WaterGpu::new`]); `None` over another's.
    streams: Option<[wgpu::Buffer; 3]>,
    status: wgpu::Buffer,
    /// The snow in the projection ([`WaterGpu::set_snow`]), stand-ins while there is none.
    snow: SnowGroup,
    /// Iterations recorded per projection solve and per volume solve ([`WaterGpu::finish_frame`]).
    budget: u32,
    volume_budget: u32,
    own: Vec<wgpu::Buffer>,
}

impl WaterGpu {
    /// Water in a box of `cells` cells of `h` m from the origin (a solid layer around it), under
    /// `gravity`, its particles in streams of its own.
    pub fn new(
        gpu: &Gpu,
        cells: [usize; 3],
        h: f64,
        gravity: Vector3<f64>,
        settings: WaterSettings,
        particles: &[WaterParticle],
    ) -> Self {
        Self::with_solids(gpu, cells, h, gravity, settings, particles, &cells_with_solids(cells, None))
    }

    /// [`WaterGpu::new`] with colliders: `solids`' solid cells and face fractions
    /// ([`cells_with_solids`] of the same cells).
    pub fn with_solids(
        gpu: &Gpu,
        cells: [usize; 3],
        h: f64,
        gravity: Vector3<f64>,
        settings: WaterSettings,
        particles: &[WaterParticle],
        solids: &PressureCells,
    ) -> Self {
        let data = layout::streams_of(particles);
        let names = ["water.positions", "water.velocities", "water.affine"];
        let streams: [wgpu::Buffer; 3] =
            std::array::from_fn(|i| buffer_init(&gpu.device, names[i], bytemuck::cast_slice(&data[i])));
        let grid = WaterGrid { cells, h, origin: Vector3::zeros(), gravity, max_speed: DEFAULT_MAX_SPEED };
        let mut water =
            Self::over_streams(gpu, &grid, solids, settings, particles.len(), [&streams[0], &streams[1], &streams[2]]);
        water.streams = Some(streams);
        water
    }

    /// Water on `grid` with the colliders of `solids` ([`cells_with_solids`] of its cells) whose
    /// `count` particles are in `streams` (position, velocity, affine: the MPM solver's layouts,
    /// [`layout::streams_of`]).
    pub fn over_streams(
        gpu: &Gpu,
        grid: &WaterGrid,
        solids: &PressureCells,
        settings: WaterSettings,
        count: usize,
        streams: [&wgpu::Buffer; 3],
    ) -> Self {
        let WaterGrid { cells, h, origin, gravity, .. } = *grid;
        let device = &gpu.device;
        let dims = cells.map(|c| c + 2);
        assert_eq!(solids.dims, dims, "the colliders' cells are the water's");
        let pressure = PressureGpu::on_grid(gpu, solids, settings.pressure.preconditioner);
        let counts: Vec<u32> = (0..3).map(|a| face_dims(dims, a).iter().product::<usize>() as u32).collect();
        let cell_count = (dims[0] * dims[1] * dims[2]) as u32;
        let (transfer, flip_ratio) = match settings.transfer {
            Transfer::Apic => (0, 0.0),
            Transfer::PicFlip { ratio } => (1, ratio as f32),
        };
        let uniforms = WaterUniforms {
            dims: dims.map(|d| d as u32),
            cells: cell_count,
            face_offsets: [0, counts[0], counts[0] + counts[1]],
            faces: counts.iter().sum(),
            extent: cells.map(|c| (c as f64 * h) as f32),
            h: h as f32,
            particles: count as u32,
            origin: [0, 1, 2].map(|a| origin[a] as f32),
            transfer,
            flip_ratio,
            rest: settings.particles_per_cell as f32,
            fixed: fixed_point_scale(settings.particles_per_cell, grid.max_speed),
            max_speed: grid.max_speed as f32,
            cell_mass: (settings.density * h.powi(3)) as f32,
            ..Default::default()
        };
        let faces = uniforms.faces as usize;
        let cells_n = cell_count as usize;
        let zeros = |n: usize| vec![0u8; 4 * n.max(1)];
        let status = buffer_init(device, "water.status", bytemuck::bytes_of(&WaterStatus::default()));
        let own = vec![
            uniform_init(device, "water.uniforms", bytemuck::bytes_of(&uniforms)),
            buffer_init(device, "water.face_weight", &zeros(faces)),
            buffer_init(device, "water.face_momentum", &zeros(faces)),
            buffer_init(device, "water.velocity", &zeros(faces)),
            buffer_init(device, "water.scattered", &zeros(faces)),
            buffer_init(device, "water.flags", &zeros(faces)),
            buffer_init(device, "water.velocity_copy", &zeros(faces)),
            buffer_init(device, "water.flags_copy", &zeros(faces)),
            buffer_init(device, "water.liquid", &zeros(cells_n)),
            buffer_init(device, "water.count", &zeros(cells_n)),
            buffer_init(device, "water.solid", bytemuck::cast_slice(&solid_mask(solids))),
            buffer_init(device, "water.open", bytemuck::cast_slice(&open_fractions(solids))),
            buffer_init(device, "water.diagnostics", &zeros(4 * cells_n)),
            buffer_init(device, "water.solve_kinds", &zeros(cells_n)),
            buffer_init(device, "water.solve_history", &zeros(HISTORY_LENGTH)),
            buffer_init(device, "water.solid_velocity", &zeros(faces)),
        ];
        let module = ComputeModule::new(device, "water", &layout::source(), &[&BINDINGS, &SNOW_BINDINGS], ENTRIES);
        let group = module.bind(
            device,
            0,
            &[
                &own[0],
                streams[0],
                streams[1],
                streams[2],
                &own[1],
                &own[2],
                &own[3],
                &own[4],
                &own[5],
                &own[6],
                &own[7],
                &own[8],
                &own[9],
                pressure.kinds(),
                pressure.coeffs(),
                pressure.rhs(),
                pressure.pressure(),
                &status,
                pressure.scalars(),
                &own[10],
                &own[11],
                &own[12],
                &own[OWN_SOLID_VELOCITY],
            ],
        );
        let solve_scalars = buffer_init(device, "water.solve_scalars", bytemuck::bytes_of(&PcgScalars::default()));
        let solve_pressure = buffer_init(device, "water.solve_pressure", &zeros(cells_n));
        let snow = SnowGroup::new(device, &module, uniforms.faces, cell_count, None, Self::finest_open(&pressure));
        Self {
            settings,
            h,
            gravity,
            uniforms,
            module,
            group,
            pressure,
            solve_scalars,
            solve_pressure,
            streams: None,
            status,
            snow,
            budget: settings.pressure.max_iterations,
            volume_budget: settings.pressure.max_iterations,
            own,
        }
    }

    fn finest_open(pressure: &PressureGpu) -> &wgpu::Buffer {
        pressure.finest_open().expect("a solve on the grid builds its operator")
    }

    /// Puts `snow` (an MPM solver's particles, in the scene's frame as the water's) into the
    /// projection of the steps recorded after it ([`snow`], the twin's `WaterCpu::step_with`), or
    /// takes it out (`None`). The snow's own step is its solver's: this gives its particles only the
    /// projection's change of velocity.
    pub fn set_snow(&mut self, gpu: &Gpu, snow: Option<SnowStreams>) {
        let u = &self.uniforms;
        let open = Self::finest_open(&self.pressure);
        self.snow = SnowGroup::new(&gpu.device, &self.module, u.faces, u.cells, snow, open);
        self.uniforms.snow = u32::from(snow.is_some());
        self.uniforms.snow_particles = snow.map_or(0, |s| s.count);
        if snow.is_none() {
            // The operator's fractions as the colliders leave them (the mixture scaled them).
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(&self.own[OWN_OPEN], 0, open, 0, None);
            gpu.queue.submit([encoder.finish()]);
        }
    }

    /// Particles.
    pub fn particle_count(&self) -> usize {
        self.uniforms.particles as usize
    }

    /// Dispatches `entry` over `items` threads (folded into rows past 65535 workgroups).
    fn run(&self, pass: &mut wgpu::ComputePass, entry: &str, items: u32) {
        pass.set_pipeline(self.module.pipeline(entry));
        pass.set_bind_group(0, &self.group, &[]);
        pass.set_bind_group(1, &self.snow.group, &[]);
        let [x, y] = dispatch_size(items.div_ceil(WORKGROUP), MAX_GROUPS_X);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records `entries` in one compute pass, each over its items.
    fn passes(&self, encoder: &mut wgpu::CommandEncoder, label: &str, entries: &[(&str, u32)]) {
        let mut pass =
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: None });
        for &(entry, items) in entries {
            self.run(&mut pass, entry, items);
        }
    }

    /// Records the extrapolation's rounds.
    fn extrapolate(&self, encoder: &mut wgpu::CommandEncoder) {
        let faces = self.uniforms.faces;
        let rounds: Vec<(&str, u32)> =
            (0..EXTRAPOLATION_ROUNDS).flat_map(|_| [("w_copy_faces", faces), ("w_extrapolate", faces)]).collect();
        self.passes(encoder, "water.extrapolate", &rounds);
    }

    /// Records one step with the uniforms last written, `mark(encoder, stage)` recorded before each
    /// of its [`STAGES`] and once after the last (as `"end"`): what a profile times between.
    pub fn record_step_marked(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        mark: &mut dyn FnMut(&mut wgpu::CommandEncoder, &'static str),
    ) {
        let u = &self.uniforms;
        let (cells, faces, particles, snow) = (u.cells, u.faces, u.particles, u.snow_particles);
        let with_snow = u.snow != 0;
        let join = vec![("s_join", cells); if with_snow { JOIN_ROUNDS } else { 0 }];
        let mut to_grid = vec![("w_clear", faces.max(cells)), ("w_scatter", particles)];
        if with_snow {
            to_grid.extend([("s_clear", (3 * faces).max(2 * cells)), ("s_scatter", snow)]);
        }
        to_grid.push(("w_classify", cells));
        to_grid.extend(&join);
        to_grid.push(("w_faces", faces));
        if with_snow {
            to_grid.push(("s_mix", faces));
        }
        mark(encoder, STAGES[0]);
        self.passes(encoder, "water.to_grid", &to_grid);
        mark(encoder, STAGES[1]);
        self.pressure.record_build(encoder);
        self.passes(encoder, "water.divergence", &[("w_divergence", cells)]);
        // A warm start from the last projection's pressure (the volume correction's solve has
        // used the solve's vector since).
        encoder.copy_buffer_to_buffer(&self.solve_pressure, 0, self.pressure.pressure(), 0, None);
        mark(encoder, STAGES[2]);
        self.pressure.record_solve_in(encoder, self.budget, 0);
        mark(encoder, STAGES[3]);
        self.passes(encoder, "water.note_solve", &[("w_note_solve", 1)]);
        encoder.copy_buffer_to_buffer(self.pressure.scalars(), 0, &self.solve_scalars, 0, None);
        encoder.copy_buffer_to_buffer(self.pressure.pressure(), 0, &self.solve_pressure, 0, None);
        encoder.copy_buffer_to_buffer(self.pressure.kinds(), 0, &self.own[OWN_SOLVE_KINDS], 0, None);
        encoder.copy_buffer_to_buffer(self.pressure.history(), 0, &self.own[OWN_SOLVE_HISTORY], 0, None);
        let project: &[(&str, u32)] = if with_snow {
            &[("w_project", faces), ("s_change", faces), ("w_diagnose", cells), ("s_apply", snow)]
        } else {
            &[("w_project", faces), ("w_diagnose", cells)]
        };
        self.passes(encoder, "water.project", project);
        self.extrapolate(encoder);
        mark(encoder, STAGES[4]);
        self.passes(encoder, "water.to_particles", &[("w_gather", particles)]);
        if self.settings.volume_correction {
            mark(encoder, STAGES[5]);
            let mut count = vec![("w_clear_count", cells), ("w_count", particles), ("w_classify", cells)];
            count.extend(&join);
            self.passes(encoder, "water.volume", &count);
            if with_snow {
                // The volume's operator is the plain one: the mixture scaled level 0's fractions.
                let open = Self::finest_open(&self.pressure);
                encoder.copy_buffer_to_buffer(&self.own[OWN_OPEN], 0, open, 0, None);
            }
            self.pressure.record_build(encoder);
            self.passes(encoder, "water.excess", &[("w_excess", cells)]);
            mark(encoder, STAGES[6]);
            self.pressure.record_solve_in(encoder, self.volume_budget, 1);
            mark(encoder, STAGES[7]);
            self.passes(encoder, "water.note_volume", &[("w_note_volume", 1)]);
            self.passes(encoder, "water.displacement", &[("w_displacement_faces", faces)]);
            self.extrapolate(encoder);
            self.passes(encoder, "water.displace", &[("w_displace", particles)]);
        }
        mark(encoder, "end");
    }

    /// Sets the step length of the steps recorded next (one per submission: the uniforms are
    /// written before it) and zeroes the solves' notes in the status.
    pub fn prepare(&mut self, gpu: &Gpu, dt: f64) {
        let density = self.settings.density;
        self.uniforms.dt = dt as f32;
        self.uniforms.gravity_dt = [0, 1, 2].map(|a| (self.gravity[a] * dt) as f32);
        self.uniforms.gradient_scale = (dt / (density * self.h)) as f32;
        self.uniforms.rhs_scale = (density * self.h / dt) as f32;
        gpu.queue.write_buffer(&self.own[0], 0, bytemuck::bytes_of(&self.uniforms));
        // The solves' notes count from here (the speed and air words are the steps' own).
        gpu.queue.write_buffer(&self.status, 8, &[0u8; size_of::<WaterStatus>() - 8]);
        let s = &self.settings;
        self.pressure.set_solve_slots(&gpu.queue, [(s.pressure.tolerance, true), (s.volume_tolerance, false)]);
    }

    /// Takes `solids` (the same cells, [`cells_with_solids`]) in place of the colliders it had:
    /// their solid cells and open fractions, on every level of the pressure solve.
    pub fn set_solids(&self, queue: &wgpu::Queue, solids: &PressureCells) {
        assert_eq!(solids.dims.map(|d| d as u32), self.uniforms.dims, "the colliders' cells are the water's");
        queue.write_buffer(&self.own[OWN_SOLID], 0, bytemuck::cast_slice(&solid_mask(solids)));
        queue.write_buffer(&self.own[OWN_OPEN], 0, bytemuck::cast_slice(&open_fractions(solids)));
        self.pressure.set_open(queue, solids);
    }

    /// Sets the colliders' velocity on the faces ([`crate::sim::water::solids::face_velocities`]
    /// of the same cells), zero until set: a moving collider pushes the water.
    pub fn set_solid_velocity(&self, queue: &wgpu::Queue, velocity: &[Vec<f64>; 3]) {
        let flat: Vec<f32> = velocity.iter().flatten().map(|v| *v as f32).collect();
        assert_eq!(flat.len(), self.uniforms.faces as usize, "one velocity per face");
        queue.write_buffer(&self.own[OWN_SOLID_VELOCITY], 0, bytemuck::cast_slice(&flat));
    }

    /// The settings it steps with.
    pub fn settings(&self) -> &WaterSettings {
        &self.settings
    }

    /// The fastest particle's speed after the last step, m/s.
    pub fn fastest(&self, gpu: &Gpu) -> Result<f64, GpuError> {
        Ok(self.read_status(gpu)?.fastest as f64)
    }

    fn read_status(&self, gpu: &Gpu) -> Result<WaterStatus, GpuError> {
        let bytes = gpu.read_buffers(&[&self.status])?.remove(0);
        Ok(bytemuck::pod_read_unaligned(&bytes[..size_of::<WaterStatus>()]))
    }

    /// Reads what the steps since [`WaterGpu::prepare`] report and sets the iterations the next
    /// steps record per solve (projection and volume correction each): a recorded iteration costs
    /// its dispatches even after convergence, so the most the last frame took plus a margin, up
    /// to the cap (twice as many where a solve stopped there short of the tolerance).
    pub fn finish_frame(&mut self, gpu: &Gpu) -> Result<FrameStatus, GpuError> {
        Ok(self.finish_frame_with_history(gpu, false)?.0)
    }

    /// [`WaterGpu::finish_frame`], and where `history` asks, the last projection's residual curve
    /// ([`WaterGpu::last_history`]) in the same readback.
    pub fn finish_frame_with_history(
        &mut self,
        gpu: &Gpu,
        history: bool,
    ) -> Result<(FrameStatus, Option<Vec<f32>>), GpuError> {
        let mut read = vec![&self.status];
        if history {
            read.extend([&self.solve_scalars, &self.own[OWN_SOLVE_HISTORY]]);
        }
        let bytes = gpu.read_buffers(&read)?;
        let status: WaterStatus = bytemuck::pod_read_unaligned(&bytes[0][..size_of::<WaterStatus>()]);
        let curve = history.then(|| history_of(&bytes[1], &bytes[2]));
        let cap = self.settings.pressure.max_iterations;
        let next = |budget: u32, unconverged: u32, took: u32| {
            if unconverged > 0 { (budget * 2).min(cap) } else { (took + ITERATION_MARGIN).clamp(1, cap) }
        };
        self.budget = next(self.budget, status.unconverged, status.iterations);
        self.volume_budget = next(self.volume_budget, status.volume_unconverged, status.volume_iterations);
        let frame = FrameStatus {
            fastest: status.fastest as f64,
            iterations: status.iterations,
            volume_iterations: status.volume_iterations,
            unconverged: status.unconverged + status.volume_unconverged,
            budget: self.budget,
        };
        Ok((frame, curve))
    }

    /// The last step's pressure solve: iterations and residual.
    pub fn last_solve(&self, gpu: &Gpu) -> Result<PcgScalars, GpuError> {
        let bytes = gpu.read_buffers(&[&self.solve_scalars])?.remove(0);
        Ok(bytemuck::pod_read_unaligned(&bytes[..size_of::<PcgScalars>()]))
    }

    /// The particles, read back (none where the streams are another's, who reads them).
    pub fn read_particles(&self, gpu: &Gpu) -> Result<Vec<WaterParticle>, GpuError> {
        let Some(streams) = &self.streams else { return Ok(Vec::new()) };
        let bytes = gpu.read_buffers(&streams.iter().collect::<Vec<_>>())?;
        let n = self.particle_count();
        let stream = |i: usize, per: usize| -> &[[f32; 4]] { &bytemuck::cast_slice(&bytes[i])[..n * per] };
        Ok(layout::particles_of(stream(0, 1), stream(1, 1), stream(2, 3)))
    }

    /// The last projection's relative residual at the start (1) and after each of its iterations.
    pub fn last_history(&self, gpu: &Gpu) -> Result<Vec<f32>, GpuError> {
        let bytes = gpu.read_buffers(&[&self.solve_scalars, &self.own[OWN_SOLVE_HISTORY]])?;
        Ok(history_of(&bytes[0], &bytes[1]))
    }

    /// What the last step's projection did, per grid cell (solid layer included).
    pub fn read_diagnostics(&self, gpu: &Gpu) -> Result<WaterDiagnostics, GpuError> {
        let n = self.uniforms.cells as usize;
        let bytes = gpu.read_buffers(&[&self.own[OWN_SOLVE_KINDS], &self.own[OWN_DIAGNOSTICS]])?;
        let kinds: &[u32] = bytemuck::cast_slice(&bytes[0][..4 * n]);
        let cells: &[[f32; 4]] = bytemuck::cast_slice(&bytes[1][..16 * n]);
        Ok(WaterDiagnostics { dims: self.uniforms.dims, kinds: kinds.to_vec(), cells: cells.to_vec() })
    }

    /// The last step's pressure per grid cell (solid layer included), Pa.
    pub fn read_pressure(&self, gpu: &Gpu) -> Result<Vec<f32>, GpuError> {
        let bytes = gpu.read_buffers(&[&self.solve_pressure])?.remove(0);
        Ok(bytemuck::cast_slice(&bytes[..4 * self.uniforms.cells as usize]).to_vec())
    }
}
