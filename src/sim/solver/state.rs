//! [`Solver`] itself: what it holds (kernels, pages, parameters, the integrator) and what it says
//! about them. What changes it lies in `settings` and `grid`, stepping in `frame`, readbacks in
//! `readback` (siblings of this file).

use crate::sim::explicit::substep;
use crate::sim::grid_pool::{GridMode, GridStorage};
use crate::sim::integrator::Integrator;
use crate::sim::interaction::Interaction;
use crate::sim::page::ParticlePage;
use crate::sim::params::SolverParams;
use crate::sim::passes::MpmPass;
use crate::sim::path::SolverPath;
use crate::sim::pipelines::Kernels;

/// The GPU solver: compiled kernels, the simulation's buffers and its parameters.
pub struct Solver {
    pub(crate) kernels: Kernels,
    /// The particles' pages over one grid ([`ParticlePage::new_pages`]); at least one.
    pub(crate) pages: Vec<ParticlePage>,
    /// Particles per page as asked for (`None`: as many as fit one binding).
    pub(crate) page_capacity: Option<u32>,
    /// Dense or sparse grid, as asked for; `pages[0].grid_storage` is what it is now.
    pub(crate) grid_mode: GridMode,
    /// The scene has colliders, whose fields every grid must fit ([`SolverOptions::colliders`]).
    pub(crate) expects_colliders: bool,
    /// What steps the snow: explicit substeps or PB-MPM steps ([`Solver::set_integrator`]).
    pub(crate) integrator: Integrator,
    pub(crate) params: SolverParams,
    pub(crate) interaction: Interaction,
    pub(crate) collider_count: u32,
    /// The bins, the cell counters and the grid's sums may not be as a binned substep leaves
    /// them, so the next step on a binned path clears them first ([`Solver::record_clean_bins`]):
    /// a pass ran alone ([`Solver::run_pass`]: a sort with no grid update after it, a `bin_clear`
    /// that forgot the last sort's lists), or the path became binned ([`Solver::set_path`]: the
    /// naive path leaves its sums on the grid).
    pub(crate) clear_bins_first: std::cell::Cell<bool>,
    /// The stored stress is not that of the current material and state (after
    /// [`Solver::set_params`] or a new state): the next recording refreshes it first
    /// ([`Solver::record_stale_stress`]), so that these submit nothing of their own (on a software
    /// driver a submission waits for the queue's earlier work, and the app's may be running).
    pub(crate) stress_stale: std::cell::Cell<bool>,
    /// The stable dt last measured (by [`Solver::stable_dt`] or a frame's clock), seconds: how
    /// many substeps the next auto frame's first batch records ([`Solver::step_frame`]).
    pub(crate) last_stable_dt: std::cell::Cell<Option<f64>>,
    /// Stats passes read back so far ([`Solver::stats_readbacks`]).
    pub(crate) stats_reads: std::cell::Cell<u64>,
    /// Bumped whenever work that moves the particles is recorded or the particles are replaced:
    /// tells whether a stats readback still describes the current state.
    pub(crate) steps_recorded: std::cell::Cell<u64>,
    /// The largest particle speed and hardening the last stats readback measured, with the value
    /// of `steps_recorded` when its pass was recorded: a PB-MPM frame plans its steps from them
    /// while no step has run since ([`Solver::step_frame`]), and so does the snow beside water
    /// (`mixed`), instead of waiting for the same numbers again.
    pub(crate) measured_speed: std::cell::Cell<Option<(u64, f64, f64)>>,
    /// The Newton–PCG totals of every stats report read back since [`Solver::take_solve_totals`].
    pub(crate) solve_totals: std::cell::Cell<SolveTotals>,
    /// The length of the last PB-MPM step recorded, seconds; 0 after an explicit frame or a new
    /// state, whose velocities are not a PB-MPM step's mean. The next PB-MPM frame's first step
    /// lets gravity act from the middle of that step ([`crate::sim::pbmpm::cpu::integrate::gravity_kick`]).
    pub(crate) pb_last_dt: std::cell::Cell<f64>,
    /// The colliders' signed distance per grid node at the end of the frame they were last set
    /// for (empty without colliders), and how many times they were set: what the water step's
    /// solid cells are built from.
    pub(crate) collider_distance: Vec<f32>,
    /// The colliders' velocity per grid node at the same time (empty without colliders).
    pub(crate) collider_velocity: Vec<[f32; 3]>,
    pub(crate) collider_generation: u64,
    /// The water step, while the integrator is water ([`super::water`]).
    pub(crate) water: std::cell::RefCell<Option<super::water_state::SolverWater>>,
    /// The last projection's residual curve for each preconditioner used so far.
    pub(crate) water_history: std::cell::RefCell<Vec<(crate::sim::pressure::Preconditioner, Vec<f32>)>>,
    /// What the last water frame reported.
    pub(crate) water_status: std::cell::Cell<Option<crate::sim::water::gpu::FrameStatus>>,
    /// The substep clock of the water frame in progress, kept on the host (the water's steps do
    /// not run the clock's pass) and written to the page's clock with each batch, so that frame
    /// loops read it as they read the other integrators'.
    pub(crate) water_clock: std::cell::Cell<Option<crate::sim::explicit::clock::GpuSubstepClock>>,
    /// The water's own particles where water meets snow ([`super::mixed`]): the liquid of a `flip`
    /// scene that holds other materials too, whose particles stay in the pages.
    pub(crate) companion: Option<crate::sim::particles::ParticleBuffers>,
}

impl Solver {
    /// How many times the `stats` pass has been run and its status read back
    /// ([`Solver::request_stats`], [`Solver::stats`]): each is a wait for the GPU, so tests count
    /// them per frame.
    pub fn stats_readbacks(&self) -> u64 {
        self.stats_reads.get()
    }

    /// Notes that work which moves the particles is being recorded (or that they were replaced):
    /// stats read before it no longer describe them.
    pub(crate) fn note_steps_recorded(&self) {
        self.steps_recorded.set(self.steps_recorded.get() + 1);
    }

    /// The integrator that steps the snow.
    pub fn integrator(&self) -> Integrator {
        self.integrator
    }

    /// The solve PB-MPM steps run: the one its settings name, except that Newton–PCG falls back
    /// to the constraint iterations where its vectors are not allocated (a sparse grid, or a dense
    /// one past the binding limit); `None` under the explicit integrator.
    pub fn pbmpm_solve(&self) -> Option<crate::sim::pbmpm::PbSolver> {
        use crate::sim::pbmpm::PbSolver;
        let settings = self.integrator.pbmpm()?;
        let newton = settings.solver == PbSolver::Newton && self.pages[0].has_newton_buffer();
        Some(if newton { PbSolver::Newton } else { PbSolver::Constraints })
    }

    /// The current parameters.
    pub fn params(&self) -> &SolverParams {
        &self.params
    }

    /// Number of particles, over all pages (and the water's own, where water meets snow).
    pub fn particle_count(&self) -> u32 {
        self.pages.iter().map(|page| page.particle_count).sum::<u32>() + self.companion.as_ref().map_or(0, |c| c.count)
    }

    /// The kernels (for recording passes into an outside encoder, e.g. in benchmarks).
    pub fn kernels(&self) -> &Kernels {
        &self.kernels
    }

    /// How the grid is stored now: dense, or a pool of blocks of the size it has grown to.
    pub fn grid_storage(&self) -> GridStorage {
        self.pages[0].grid_storage
    }

    /// The grid storage asked for.
    pub fn grid_mode(&self) -> GridMode {
        self.grid_mode
    }

    /// The particle streams of each page, in order, then the water's own where water meets snow
    /// (what the renderer draws).
    pub fn particle_pages(&self) -> Vec<&crate::sim::particles::ParticleBuffers> {
        self.pages.iter().map(|page| &page.particles).chain(self.companion.as_ref()).collect()
    }

    /// The GPU buffers, page by page: page k holds the particles after those of the pages before it,
    /// in the host's order.
    pub fn pages(&self) -> &[ParticlePage] {
        &self.pages
    }

    /// The current tool.
    pub fn interaction(&self) -> &Interaction {
        &self.interaction
    }

    /// The substep's path.
    pub fn path(&self) -> SolverPath {
        self.pages[0].path
    }

    /// Substeps between two reorders (0: none).
    pub fn reorder_interval(&self) -> u32 {
        self.pages[0].reorder.interval()
    }

    /// The kernel the sorted path's P2G stage runs.
    pub fn p2g_pass(&self) -> MpmPass {
        substep::sorted_p2g(&self.kernels, &self.pages[0])
    }

    /// The names of the four timed stages of a substep as this solver runs them:
    /// [`SolverPath::stage_names`], with the P2G variant in use on the sorted path.
    pub fn stage_names(&self) -> [&'static str; 4] {
        let mut names = self.path().stage_names();
        if self.path() == SolverPath::Sorted {
            names[1] = self.p2g_pass().name();
        }
        names
    }

    /// Number of colliders the grid update applies.
    pub fn collider_count(&self) -> u32 {
        self.collider_count
    }
}

/// What PB-MPM's Newton–PCG steps did over a span: one stats report, or several added up
/// ([`Solver::take_solve_totals`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveTotals {
    /// Newton–PCG steps.
    pub steps: u64,
    /// Their CG iterations, added up (each step stops at its tolerance or its `iterations`).
    pub iterations: u64,
    /// The largest relative residual a step ended with, `‖r‖/‖r₀‖` in the norm
    /// `‖r‖² = Σ |r_i|²/m_i` ([`crate::sim::pbmpm::cpu::newton::SolveReport::mass_residual`]); 0
    /// when no step ran.
    pub max_residual: f64,
}

impl SolveTotals {
    /// CG iterations a step on average; `None` when no step ran.
    pub fn mean_iterations(&self) -> Option<f64> {
        (self.steps > 0).then(|| self.iterations as f64 / self.steps as f64)
    }

    /// These totals and `other`'s over both spans.
    pub fn and(self, other: SolveTotals) -> SolveTotals {
        SolveTotals {
            steps: self.steps + other.steps,
            iterations: self.iterations + other.iterations,
            max_residual: self.max_residual.max(other.max_residual),
        }
    }
}
