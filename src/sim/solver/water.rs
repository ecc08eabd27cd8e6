//! The [`Solver`] stepping water ([`Integrator::Flip`](crate::sim::integrator::Integrator)): a
//! [`WaterGpu`] over the first page's position, velocity and affine streams (or, where water meets
//! snow, the water's own streams with the first page's snow in its projection: [`super::mixed`])
//! and the solver's grid, built when first needed and again when the particles, the grid or the
//! settings change.

use std::cell::RefMut;

use nalgebra::Vector3;

use super::error::SolverError;
use super::state::Solver;
use super::water_state::SolverWater;
use crate::gpu::{Gpu, GpuError};
use crate::grid::GRID_PADDING;
use crate::sim::explicit::clock::{FrameReport, FrameStep, GpuSubstepClock};
use crate::sim::pressure::Preconditioner;
use crate::sim::pressure::cells::PressureCells;
use crate::sim::water::WaterSettings;
use crate::sim::water::gpu::{FrameStatus, SnowStreams, WaterDiagnostics, WaterGpu, WaterGrid};
use crate::sim::water::solids::{cells_with_solids, face_velocities};

impl Solver {
    /// The water's grid: the solver's cells, from its domain's corner.
    fn water_grid(&self) -> WaterGrid {
        let g = &self.params.grid;
        let gravity = self.params.gravity;
        WaterGrid {
            cells: [g.cells.x as usize, g.cells.y as usize, g.cells.z as usize],
            h: g.cell_size,
            origin: Vector3::new(g.domain_min.x, g.domain_min.y, g.domain_min.z),
            gravity: Vector3::new(gravity.x, gravity.y, gravity.z),
            max_speed: self.params.max_speed,
        }
    }

    /// The water step for `settings`, built anew if the particles, the grid or the settings are
    /// not those it has, and given the colliders' cells anew where they were set since.
    fn water_for(&self, gpu: &Gpu, settings: &WaterSettings) -> RefMut<'_, SolverWater> {
        let page = &self.pages[0];
        // Where water meets snow, the water's own streams, and the snow (page 0) in its projection.
        let (streams, count) = match &self.companion {
            Some(c) => ([&c.position, &c.velocity, &c.affine], c.count as usize),
            None => (
                [&page.particles.position, &page.particles.velocity, &page.particles.affine],
                page.particle_count as usize,
            ),
        };
        let snow = self.water_meets_snow().then_some(&page.particles);
        let grid = self.water_grid();
        let colliders =
            if self.collider_count > 0 && !self.collider_distance.is_empty() { self.collider_generation } else { 0 };
        let mut slot = self.water.borrow_mut();
        let current = slot.as_ref().is_some_and(|w| {
            w.position == *streams[0]
                && w.snow.as_ref() == snow.map(|s| &s.position)
                && w.grid == grid
                && w.water.settings() == settings
                && w.water.particle_count() == count
        });
        if let Some(w) = slot.as_mut().filter(|w| current && w.colliders != colliders) {
            // Moving colliders are set every frame: their cells and velocities change, nothing else
            // does.
            let solids = self.water_solids(&grid, colliders > 0);
            w.water.set_solids(&gpu.queue, &solids);
            w.water.set_solid_velocity(&gpu.queue, &self.water_solid_velocity(&solids, colliders > 0));
            w.colliders = colliders;
        }
        if !current {
            let solids = self.water_solids(&grid, colliders > 0);
            let mut water = WaterGpu::over_streams(gpu, &grid, &solids, *settings, count, streams);
            water.set_solid_velocity(&gpu.queue, &self.water_solid_velocity(&solids, colliders > 0));
            if let Some(s) = snow {
                let streams = [&s.position, &s.velocity, &s.affine, &s.deformation, &s.plastic];
                water.set_snow(gpu, Some(SnowStreams { streams, count: page.particle_count }));
            }
            let position = streams[0].clone();
            let snow = snow.map(|s| s.position.clone());
            *slot = Some(SolverWater { water, position, snow, grid, colliders, unread: false });
        }
        RefMut::map(slot, |w| w.as_mut().expect("built above"))
    }

    /// The water's cells with the colliders' solids and face fractions where `colliders` says
    /// there are some: corner n of the water's grid along an axis lies at `(n − 1) h` from the
    /// domain's corner, on grid node n + [`GRID_PADDING`] − 1.
    fn water_solids(&self, grid: &WaterGrid, colliders: bool) -> PressureCells {
        if !colliders {
            return cells_with_solids(grid.cells, None);
        }
        let spec = &self.params.grid;
        let node = |c: [usize; 3]| {
            let n = c.map(|v| (v + GRID_PADDING as usize - 1) as u32);
            self.collider_distance[spec.node_index(n[0], n[1], n[2])] as f64
        };
        cells_with_solids(grid.cells, Some(&node))
    }

    /// The colliders' velocity on the faces of `solids` (the water's cells, [`Solver::water_solids`]),
    /// corner n of the water's grid on grid node n + [`GRID_PADDING`] − 1; zero without colliders.
    fn water_solid_velocity(&self, solids: &PressureCells, colliders: bool) -> [Vec<f64>; 3] {
        let spec = &self.params.grid;
        let node = |c: [usize; 3]| {
            if !colliders || self.collider_velocity.is_empty() {
                return [0.0; 3];
            }
            let n = c.map(|v| (v + GRID_PADDING as usize - 1) as u32);
            self.collider_velocity[spec.node_index(n[0], n[1], n[2])].map(f64::from)
        };
        face_velocities(solids, &node)
    }

    /// What the water step's last projection did per cell ([`WaterDiagnostics`]), read back;
    /// `None` while the solver has no water step (another integrator, or no frame stepped yet).
    pub fn water_diagnostics(&self, gpu: &Gpu) -> Option<Result<WaterDiagnostics, GpuError>> {
        let water = self.water.borrow();
        Some(water.as_ref()?.water.read_diagnostics(gpu))
    }

    /// Per preconditioner the water has solved with, the relative residual at the start and after
    /// each iteration of the last projection it solved (the latest last).
    pub fn water_histories(&self) -> Vec<(Preconditioner, Vec<f32>)> {
        self.water_history.borrow().clone()
    }

    /// What the last water frame reported (its solves' iterations, the fastest speed), read once
    /// the next frame needs it; `None` before the first.
    pub fn water_status(&self) -> Option<FrameStatus> {
        self.water_status.get()
    }

    /// A frame of `span` seconds of water: as many steps as the fastest particle allows
    /// ([`WaterSettings::plan_frame`]), submitted at once.
    pub(super) fn step_water_frame(
        &self,
        gpu: &Gpu,
        span: f64,
        settings: &WaterSettings,
    ) -> Result<FrameReport, SolverError> {
        // Where water meets snow the stats hold the snow's speed and the water's last.
        let speed = match self.read_water_status(gpu, settings)? {
            Some(status) if self.companion.is_none() => status.fastest,
            _ => self.stats(gpu)?.max_speed,
        };
        let g = self.params.gravity.length();
        let (steps, dt) = settings.plan_frame(span, speed, self.params.max_speed, self.params.grid.cell_size, g);
        self.begin_frame(gpu, steps as f64 * dt, FrameStep::Fixed { dt, substeps: steps });
        self.record_water_then(gpu, steps, dt, &mut |_| {});
        Ok(FrameReport::planned(steps, dt))
    }

    /// Reads the status of the water frame last recorded, if not yet read (waiting for it), and
    /// keeps it for [`Solver::water_status`].
    fn read_water_status(&self, gpu: &Gpu, settings: &WaterSettings) -> Result<Option<FrameStatus>, SolverError> {
        // The step as it is, before anything rebuilds it: its status is that of its last frame.
        let mut slot = self.water.borrow_mut();
        let Some(water) = slot.as_mut() else { return Ok(None) };
        if water.unread {
            // The status and the last projection's residual curve (kept per preconditioner for the
            // Stats plot) in one readback.
            let (status, history) = water.water.finish_frame_with_history(gpu, true)?;
            let history = history.unwrap_or_default();
            water.unread = false;
            self.water_status.set(Some(status));
            let mut curves = self.water_history.borrow_mut();
            let kind = settings.pressure.preconditioner;
            curves.retain(|(k, _)| *k != kind);
            curves.push((kind, history));
            return Ok(Some(status));
        }
        Ok(None)
    }

    /// Records and submits `steps` water steps of `dt` seconds, a submission each, with `last`
    /// recording more into it.
    pub(super) fn record_water_then(
        &self,
        gpu: &Gpu,
        steps: u32,
        dt: f64,
        last: &mut dyn FnMut(&mut wgpu::CommandEncoder),
    ) -> Option<wgpu::SubmissionIndex> {
        let settings = *self.integrator.water()?;
        // The budget of iterations adapts to the last submission's solves: reading their status
        // waits for them, which in the window's loop have finished before the next batch starts.
        if let Err(e) = self.read_water_status(gpu, &settings) {
            log::warn!("the water's status could not be read: {e}");
        }
        // The stats the frame was planned from, if nothing has stepped since (the snow's stable dt).
        let measured = self.measured_speed.get().filter(|m| m.0 == self.steps_recorded.get());
        self.note_steps_recorded();
        let mut water = self.water_for(gpu, &settings);
        let mixed = self.water_meets_snow();
        // Where water meets snow each step is split into as many as the coupling's accuracy asks
        // for (`mixed::coupled_steps`); the frame's clock counts the steps as planned.
        let split = if mixed {
            super::mixed::coupled_steps(dt, self.params.grid.cell_size, self.params.gravity.length())
        } else {
            1
        };
        water.water.prepare(gpu, dt / split as f64);
        // The frame's clock (begin_frame's) moves on by these steps.
        let mut clock = self.water_clock.get().unwrap_or_else(|| {
            GpuSubstepClock::for_frame(&self.params, steps as f64 * dt, FrameStep::Fixed { dt, substeps: steps })
        });
        clock.substeps += steps;
        clock.time += (steps as f64 * dt) as f32;
        clock.dt = dt as f32;
        clock.stable_dt = dt as f32;
        clock.finished = u32::from(clock.substeps >= clock.planned.max(1));
        self.water_clock.set(Some(clock));
        water.unread = true;
        if mixed {
            // The snow's substeps before each water step (one clock for the batch's, set by
            // `record_snow_and_water`); then the frame's clock as the water's, and what `last`
            // records after it.
            let (water, clock_now) = (&water.water, clock);
            let record = &mut |encoder: &mut wgpu::CommandEncoder| water.record_step(encoder);
            let measured = measured.map(|(_, speed, hardening)| (speed, hardening));
            self.record_snow_and_water(gpu, steps * split, dt / split as f64, measured, record);
            self.water_clock.set(Some(clock_now));
            gpu.queue.write_buffer(&self.pages[0].clock, 0, bytemuck::bytes_of(&clock_now));
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            last(&mut encoder);
            return Some(gpu.queue.submit([encoder.finish()]));
        }
        gpu.queue.write_buffer(&self.pages[0].clock, 0, bytemuck::bytes_of(&clock));
        Some(water.water.submit_steps(gpu, steps as usize, last))
    }
}
