//! `powder bench`: GPU time per pass, ms per substep and particle-substeps per second for a block
//! of snow of a given size, compared against the memory-bandwidth floor measured on the same device.

use std::time::Instant;

pub mod bandwidth;
pub mod emitter;
mod offscreen_view;
pub mod pressure;
pub mod realtime;
pub mod render;
pub mod sdf;
pub mod water;

pub use bandwidth::{COPY_SHADER, memory_bandwidth};

use crate::gpu::Gpu;
use crate::runner::{RunError, build_solver_with};
use crate::scene::Scene;
use crate::sim::Solver;
use crate::sim::explicit::GpuScatterSource;
use crate::sim::explicit::substep;
use crate::sim::grid_pool::GridMode;
use crate::sim::page::{GRID_FIXED_NODE_BYTES, GRID_VELOCITY_NODE_BYTES};
use crate::sim::particles::{PARTICLE_BYTES, stream_bytes};
use crate::sim::passes::MpmPass;
use crate::sim::record::PassTimestamps;
use crate::sim::solver::SolverOptions;
use crate::sim::sort::bins::{BLOCK_EDGE, GpuBlockBin, SolverPath};

/// The middle value of `values` (the upper of the two middle ones for an even count), NaN if empty.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Substeps per command buffer while timing (8 timestamp queries each, within the 4096 a query set may hold).
const SUBSTEPS_PER_BATCH: u32 = 256;

/// One benchmark case.
#[derive(Clone, Copy, Debug)]
pub struct BenchCase {
    /// Particles wanted (the block is sized to hold about this many).
    pub particles: u64,
    /// Cells along each axis of the unit-cube domain.
    pub grid: u32,
    /// Timed substeps.
    pub substeps: u32,
    /// Particles per cell.
    pub particles_per_cell: u32,
    /// Which substep is timed.
    pub path: SolverPath,
    /// The sorted path's P2G kernel, or `None` for the solver's default.
    pub p2g: Option<MpmPass>,
    /// Particles stored in a random order (a fixed seed) instead of the emitter's lattice order:
    /// snow that has mixed, where neighbours in space are not neighbours in memory.
    pub shuffled: bool,
    /// Substeps between reorders on the binned paths (0: none), or `None` for the solver's default
    /// ([`crate::sim::sort::reorder`]).
    pub reorder: Option<u32>,
    /// Particles per page ([`crate::sim::page::ParticlePage::new_pages`]), or `None` for as many as
    /// fit one binding: smaller pages time the paged solver on a count that would fit one.
    pub page_particles: Option<u32>,
    /// Dense or sparse grid ([`crate::sim::grid_pool`]); `Auto` is the solver's default.
    pub grid_mode: GridMode,
    /// The material preset the block is made of ([`crate::sim::presets`]).
    pub material: &'static str,
}

/// The solver of a case: its scene's particles, shuffled if the case says so, on the case's path,
/// P2G kernel and reorder interval, at the scene's stable dt. Returns the solver and the scene.
pub fn case_solver(
    gpu: &Gpu,
    case: &BenchCase,
    shaders: Option<&std::path::Path>,
) -> Result<(Solver, Scene), RunError> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let scene = bench_scene(case);
    let mut particles = scene.spawn_particles()?;
    if case.shuffled {
        particles.shuffle(&mut rand::rngs::StdRng::seed_from_u64(0x5eed));
    }
    let mut solver = build_solver_with(
        gpu,
        &scene,
        &particles,
        "bench",
        SolverOptions { page_capacity: case.page_particles, grid_mode: case.grid_mode, ..Default::default() },
    )?;
    // Edited kernels first, so that the stable dt below comes from them too.
    if let Some(dir) = shaders {
        solver.reload_kernels(gpu, dir).map_err(|source| RunError::Shader { dir: dir.to_path_buf(), source })?;
    }
    let solver_err = |source| RunError::Solver { source_name: "bench".into(), source };
    solver.set_path(gpu, case.path).map_err(solver_err)?;
    if let Some(pass) = case.p2g {
        solver.set_p2g(gpu, pass);
    }
    if let Some(interval) = case.reorder {
        solver.set_reorder_interval(gpu, interval);
    }
    let (dt, _) = solver.stable_dt(gpu, scene.time.cfl).map_err(solver_err)?;
    solver.set_dt(gpu, dt);
    Ok((solver, scene))
}

/// Time of one stage of the substep (see [`SolverPath::stage_names`]), averaged over the timed
/// substeps.
#[derive(Clone, Debug)]
pub struct PassTime {
    /// The stage's name: its pass, or `sort` for the five bin passes.
    pub name: &'static str,
    /// Milliseconds per substep.
    pub ms_per_substep: f64,
    /// Bytes the pass must move per substep in powder's current layout (see `pass_bytes`).
    pub bytes: f64,
}

/// The result of one case.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// The case.
    pub case: BenchCase,
    /// Particles actually made.
    pub particle_count: u32,
    /// Grid nodes (padding included).
    pub node_count: u64,
    /// Nodes of the blocks the sorted path's grid update visited in the last timed substep (the
    /// whole grid on the naive path).
    pub touched_nodes: u64,
    /// Per pass.
    pub passes: Vec<PassTime>,
    /// `true` if pass times come from GPU timestamps, `false` if from wall clock around each pass.
    pub timestamps: bool,
    /// Wall-clock ms per substep with all substeps in a few submissions (includes submit overhead).
    pub wall_ms_per_substep: f64,
    /// Of that, the host's ms per substep to record and submit the command buffers (the GPU runs
    /// the submissions made so far meanwhile, [`crate::sim::explicit::substep::SUBSTEPS_PER_SUBMIT`] substeps each).
    pub record_ms_per_substep: f64,
    /// GPU ms per substep from the first pass's begin to the last pass's end (timestamps), the idle
    /// time between passes included; `None` without timestamp queries.
    pub gpu_span_ms_per_substep: Option<f64>,
    /// Memory bandwidth of a streaming copy kernel on this GPU, bytes/s (read + write counted).
    pub copy_bandwidth: f64,
    /// The time step every substep of the case ran at, s: fixed for the run, the scene's stable dt
    /// of the snow at rest ([`crate::scene::Scene::solver_params`]).
    pub dt: f64,
    /// The largest ratio of that fixed dt to the stable dt of the state a timed substep stepped
    /// ([`crate::sim::explicit::clock::FrameReport::max_ratio`]): above 1, the snow moved or
    /// hardened enough in the timed substeps that the fixed dt went past the step its state allows.
    pub max_dt_ratio: f64,
    /// Substeps between reorders the solver ran with (0: none; the naive path never reorders).
    pub reorder_interval: u32,
    /// Pages the particles were split into (1 unless past one binding or asked for).
    pub pages: usize,
    /// How the grid was stored at the end of the run (a sparse pool may have grown).
    pub grid_storage: crate::sim::grid_pool::GridStorage,
    /// GPU bytes of the solver's buffers ([`Solver::gpu_bytes`]).
    pub gpu_bytes: u64,
    /// On a sparse grid, the most pool blocks a substep of the run asked for.
    pub grid_blocks_peak: u32,
}

/// The scene of a case: a unit-cube domain with a block of the case's material (falling snow by
/// default) sized for the particle count, centred in x and y, a little above the floor, moving down
/// at 2 m/s.
pub fn bench_scene(case: &BenchCase) -> Scene {
    let h = 1.0 / case.grid as f64;
    let cells = case.particles as f64 / case.particles_per_cell as f64;
    let side = (cells.cbrt() * h).min(0.9);
    let (lo, hi) = (0.5 - side / 2.0, 0.5 + side / 2.0);
    let z0 = 0.05;
    let json = format!(
        r#"{{ "version": 1, "name": "bench", "domain": {{ "size": [1, 1, 1] }}, "grid": {{ "resolution": {} }},
            "particles_per_cell": {}, "time": {{ "dt": "auto" }}, "material": {{ "preset": "{}" }},
            "emitters": [ {{ "shape": "box", "min": [{lo}, {lo}, {z0}], "max": [{hi}, {hi}, {}], "velocity": [0.3, 0.2, -2.0] }} ] }}"#,
        case.grid,
        case.particles_per_cell,
        case.material,
        (z0 + side).min(0.95)
    );
    Scene::from_json(&json, "bench").expect("the bench scene is valid by construction")
}

/// What the byte counts of [`stage_bytes`] depend on.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Particles.
    pub particles: f64,
    /// Nodes of the dense grid.
    pub nodes: f64,
    /// Nodes the grid update visits (all of them on the naive path; the touched blocks' on the
    /// sorted path).
    pub touched_nodes: f64,
    /// Particles per cell of snow.
    pub particles_per_cell: f64,
    /// Reorders per substep (1 / the reorder interval; 0 without reordering).
    pub reorders_per_substep: f64,
    /// A sparse grid: the sort also reads and resets the block map, 4 bytes per touched block each.
    pub sparse: bool,
}

/// Minimum bytes stage `stage` of `path` moves per substep in the current particle layout (six
/// streams, `src/sim/particles.rs`). P2G reads every stream; g2p (and g2p2g) read all but C and τ,
/// which they recompute, and write every stream. Particle passes touch about one node per cell of
/// snow (N / ppc). The naive grid passes touch every node; the sorted path's grid update touches
/// the touched blocks' nodes, reading the 32-byte sums, writing 16 bytes of velocity and 32 bytes
/// of zeros and zeroing the node's 4-byte cell counter. Its sort reads each 16-byte position twice
/// and writes a 4-byte index; per touched block it clears and reads the 16-byte bin, reads its list
/// entry and writes it anew, and on a sparse grid reads and resets the block map (the sort works
/// from the lists, not over every block of the domain: `src/sim/sort/bins.rs`); and on the substeps
/// that reorder (a share `reorders_per_substep`) it reads and writes every stream and id twice and
/// reads and rewrites the order. The sorted path's P2G stage is `p2g`: with `p2g_gather` it reads each
/// particle and its index once, writes and reads its 80-byte scatter source once (the floor: a
/// source's 27 readers hit the cache) and writes every touched node's 32-byte sums. The fused
/// path's g2p2g reads and writes each particle once, reads velocities and writes sums per node of
/// snow; its g2p runs once per run of substeps and is counted as nothing.
pub fn stage_bytes(path: SolverPath, p2g: MpmPass, stage: usize, t: &Traffic) -> f64 {
    let particle = PARTICLE_BYTES as f64;
    // Read and written by an update from the grid: C and τ are written, not read.
    let advance = 2.0 * particle - (stream_bytes("particle_affine") + stream_bytes("particle_stress")) as f64;
    let snow_nodes = t.particles / t.particles_per_cell;
    let fixed = GRID_FIXED_NODE_BYTES as f64;
    let velocity = GRID_VELOCITY_NODE_BYTES as f64;
    let block = size_of::<GpuBlockBin>() as f64;
    match (path, stage) {
        (SolverPath::Naive, 0) => fixed * t.nodes,
        (_, 0) => {
            // A reorder reads and writes the streams and id twice (gather, copy back) and reads and
            // rewrites the order.
            let reorder = 4.0 * (particle + 4.0) + 8.0;
            let map = if t.sparse { 8.0 } else { 0.0 };
            let touched_blocks = t.touched_nodes / BLOCK_EDGE.pow(3) as f64;
            (36.0 + reorder * t.reorders_per_substep) * t.particles + (2.0 * block + 8.0 + map) * touched_blocks
        }
        (SolverPath::Naive, 1) => particle * t.particles + fixed * snow_nodes,
        (SolverPath::Sorted, 1) if p2g == MpmPass::P2gGather => {
            let source = size_of::<GpuScatterSource>() as f64;
            (particle + 4.0 + 2.0 * source) * t.particles + fixed * t.touched_nodes
        }
        (SolverPath::Sorted, 1) => (particle + 4.0) * t.particles + fixed * snow_nodes,
        (SolverPath::Fused, 1) => (advance + 4.0) * t.particles + (velocity + fixed) * snow_nodes,
        (SolverPath::Naive, 2) => (fixed + velocity) * t.nodes,
        (_, 2) => (2.0 * fixed + velocity + 4.0) * t.touched_nodes,
        (SolverPath::Naive, _) => advance * t.particles + velocity * snow_nodes,
        (SolverPath::Sorted, _) => (advance + 4.0) * t.particles + velocity * snow_nodes,
        // g2p runs once per run of substeps, inside g2p2g otherwise.
        (SolverPath::Fused, _) => 0.0,
    }
}

/// Per-stage GPU ms per substep from timestamp queries, and the GPU's span per substep: from the
/// first pass's begin to the last pass's end of each submission, so the idle time between dependent
/// passes and the collider blend's copies are in it.
fn timed_with_queries(gpu: &Gpu, solver: &Solver, substeps: u32) -> (Vec<f64>, f64) {
    let queries = 8 * SUBSTEPS_PER_BATCH;
    let (query_set, resolve) = gpu.timestamp_queries("bench", queries);
    let period_ns = gpu.queue.get_timestamp_period() as f64;
    let mut totals = [0.0f64; 4];
    let mut span = 0.0;
    let mut left = substeps;
    let fused = solver.path() == SolverPath::Fused;
    let dt = solver.params().dt;
    while left > 0 {
        let n = left.min(SUBSTEPS_PER_BATCH);
        solver.begin_frame(gpu, n as f64 * dt, crate::sim::explicit::clock::FrameStep::Fixed { dt, substeps: n });
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for s in 0..n {
            let ts = PassTimestamps { query_set: &query_set, first: 8 * s };
            substep::record_substep(&mut encoder, solver.kernels(), solver.pages(), s, n, fused, Some(ts));
        }
        encoder.resolve_query_set(&query_set, 0..8 * n, &resolve, 0);
        gpu.queue.submit([encoder.finish()]);
        let bytes = gpu.read_buffer(&resolve).unwrap_or_default();
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        if let (Some(first), Some(last)) =
            (ticks.iter().take(8 * n as usize).min(), ticks.iter().take(8 * n as usize).max())
        {
            span += last.saturating_sub(*first) as f64 * period_ns * 1e-6;
        }
        for s in 0..n as usize {
            for (k, total) in totals.iter_mut().enumerate() {
                let (begin, end) = (ticks[8 * s + 2 * k], ticks[8 * s + 2 * k + 1]);
                *total += end.saturating_sub(begin) as f64 * period_ns * 1e-6;
            }
        }
        left -= n;
    }
    (totals.iter().map(|t| t / substeps as f64).collect(), span / substeps as f64)
}

fn timed_with_wall_clock(gpu: &Gpu, solver: &Solver, substeps: u32) -> Vec<f64> {
    let mut totals = [0.0f64; 4];
    // run_pass runs the current path's stage for each of these (see its doc). A fused substep is
    // sort, g2p2g and the grid update; its g2p (once per run) is left out.
    let passes: &[MpmPass] = match solver.path() {
        SolverPath::Fused => &[MpmPass::GridClear, MpmPass::G2p2g, MpmPass::GridUpdate],
        _ => &MpmPass::SUBSTEP,
    };
    for _ in 0..substeps {
        for (k, &pass) in passes.iter().enumerate() {
            let start = Instant::now();
            solver.run_pass(gpu, pass);
            gpu.wait_idle();
            totals[k] += start.elapsed().as_secs_f64() * 1e3;
        }
    }
    totals.iter().map(|t| t / substeps as f64).collect()
}

/// Runs one case, with the MPM kernels built from the shader files under `shaders`
/// (`shaders/mpm/*.wgsl` of a checkout, edited or not) instead of the built-in ones if given: an
/// edited kernel can be timed without rebuilding powder.
pub fn run_case(gpu: &Gpu, case: BenchCase, shaders: Option<&std::path::Path>) -> Result<BenchResult, RunError> {
    let (solver, _) = case_solver(gpu, &case, shaders)?;
    let solver_err = |source| RunError::Solver { source_name: "bench".into(), source };
    let dt = solver.params().dt;
    // Warm-up: pipelines compiled, memory touched, caches in a steady state.
    solver.step(gpu, 10);
    gpu.wait_idle();

    // One frame of all the timed substeps (submitted a few at a time as they are recorded), so
    // that the clock's largest dt / stable dt covers them all.
    let start = Instant::now();
    solver.step(gpu, case.substeps);
    let record_ms_per_substep = start.elapsed().as_secs_f64() * 1e3 / case.substeps as f64;
    gpu.wait_idle();
    let wall_ms_per_substep = start.elapsed().as_secs_f64() * 1e3 / case.substeps as f64;
    let max_dt_ratio = solver.read_clock(gpu).map_err(solver_err)?.max_ratio as f64;

    let (per_pass, gpu_span_ms_per_substep) = if gpu.has_timestamps {
        let (per_pass, span) = timed_with_queries(gpu, &solver, case.substeps);
        (per_pass, Some(span))
    } else {
        (timed_with_wall_clock(gpu, &solver, case.substeps), None)
    };
    let nodes = solver.params().grid.node_count();
    let block_nodes = BLOCK_EDGE.pow(3) as u64;
    // The most pool blocks a timed substep asked for: past the pool, nodes were skipped and the
    // timing is not of the whole grid (the bench does not grow the pool mid-run).
    let grid_blocks_peak = solver.stats(gpu).map_err(solver_err)?.grid_blocks_peak;
    let touched_nodes = match case.path {
        SolverPath::Naive => nodes,
        // Each page updates its own touched blocks (sim::explicit::substep::record_substep).
        SolverPath::Sorted | SolverPath::Fused => {
            let headers = solver.read_bin_headers(gpu).map_err(solver_err)?;
            headers.iter().map(|h| h.touched_count as u64).sum::<u64>() * block_nodes
        }
    };
    let traffic = Traffic {
        particles: solver.particle_count() as f64,
        nodes: nodes as f64,
        touched_nodes: touched_nodes as f64,
        sparse: solver.grid_storage().is_sparse(),
        particles_per_cell: case.particles_per_cell as f64,
        // Without timestamps the stages run one by one through `Solver::run_pass`, whose sort
        // never reorders.
        reorders_per_substep: match (case.path, solver.reorder_interval()) {
            (SolverPath::Naive, _) | (_, 0) => 0.0,
            _ if !gpu.has_timestamps => 0.0,
            (_, n) => 1.0 / n as f64,
        },
    };
    let passes = solver
        .stage_names()
        .into_iter()
        .zip(per_pass)
        .enumerate()
        .map(|(k, (name, ms))| PassTime {
            name,
            ms_per_substep: ms,
            bytes: stage_bytes(case.path, solver.p2g_pass(), k, &traffic),
        })
        .collect();
    Ok(BenchResult {
        case,
        particle_count: solver.particle_count(),
        node_count: nodes,
        touched_nodes,
        passes,
        timestamps: gpu.has_timestamps,
        wall_ms_per_substep,
        record_ms_per_substep,
        gpu_span_ms_per_substep,
        copy_bandwidth: memory_bandwidth(gpu),
        dt,
        max_dt_ratio,
        reorder_interval: solver.reorder_interval(),
        pages: solver.pages().len(),
        grid_storage: solver.grid_storage(),
        gpu_bytes: solver.gpu_bytes(),
        grid_blocks_peak,
    })
}

impl BenchResult {
    /// How the particles were stored and reordered, for the report.
    fn order_text(&self) -> String {
        let order = if self.case.shuffled { "shuffled" } else { "lattice order" };
        match (self.case.path, self.reorder_interval) {
            (SolverPath::Naive, _) => order.to_string(),
            (_, 0) => format!("{order}, never reordered"),
            (_, n) => format!("{order}, reordered every {n} substeps"),
        }
    }

    /// A plain-text report of the case.
    pub fn report(&self) -> String {
        let r = self.case.grid;
        let gpu_ms: f64 = self.passes.iter().map(|p| p.ms_per_substep).sum();
        let mut out = format!(
            "{} path, {}: {} particles ({} requested, {} per cell, {}{}), grid {r}³ cells ({} nodes, {} visited by the \
             grid update), {} substeps\n",
            self.case.path.name(),
            self.case.material,
            self.particle_count,
            self.case.particles,
            self.case.particles_per_cell,
            self.order_text(),
            if self.pages > 1 { format!(", {} pages", self.pages) } else { String::new() },
            self.node_count,
            self.touched_nodes,
            self.case.substeps
        );
        let storage = self.grid_storage.summary(Some(self.grid_blocks_peak));
        out += &format!("  grid storage: {storage}; solver buffers {:.1} MB on the GPU\n", self.gpu_bytes as f64 / 1e6);
        out += &format!(
            "  pass timing: {}; memory bandwidth of a copy kernel here: {:.0} GB/s\n",
            if self.timestamps {
                "GPU timestamp queries"
            } else {
                "wall clock around each pass (no timestamp queries)"
            },
            self.copy_bandwidth / 1e9
        );
        out += "  stage                ms/substep   share   MB moved   floor ms   x floor\n";
        for p in &self.passes {
            let floor = p.bytes / self.copy_bandwidth * 1e3;
            out += &format!(
                "  {:<19} {:>11.4} {:>6.1}% {:>10.1} {:>10.4} {:>9.1}\n",
                p.name,
                p.ms_per_substep,
                100.0 * p.ms_per_substep / gpu_ms,
                p.bytes / 1e6,
                floor,
                p.ms_per_substep / floor
            );
        }
        let bytes: f64 = self.passes.iter().map(|p| p.bytes).sum();
        let floor = bytes / self.copy_bandwidth * 1e3;
        out += &format!(
            "  total               {gpu_ms:>11.4}         {:>10.1} {floor:>10.4} {:>9.1}\n",
            bytes / 1e6,
            gpu_ms / floor
        );
        let n = self.particle_count as f64;
        out += &format!(
            "  wall clock: {:.4} ms/substep, {:.3e} particle-substeps/s; {:.0} bytes/particle/substep in this \
             layout, moved at {:.0} GB/s on the GPU total ({:.0} % of the copy kernel)\n",
            self.wall_ms_per_substep,
            n / (self.wall_ms_per_substep * 1e-3),
            bytes / n,
            bytes / (gpu_ms * 1e-3) / 1e9,
            100.0 * floor / gpu_ms
        );
        if let Some(span) = self.gpu_span_ms_per_substep {
            out += &format!(
                "  GPU span: {span:.4} ms/substep from the first pass's begin to the last one's end ({:.4} between \
                 passes); the host recorded and submitted {:.4} ms/substep of the wall clock\n",
                span - gpu_ms,
                self.record_ms_per_substep
            );
        }
        // Real time needs 1/dt substeps per wall second.
        out += &format!(
            "  dt {:.3e} s (the stable dt of the snow at rest, fixed for the run): {:.0} substeps per simulated \
             second, {:.3} simulated s per wall s (wall clock)\n",
            self.dt,
            1.0 / self.dt,
            self.dt / (self.wall_ms_per_substep * 1e-3)
        );
        // The bench steps with one fixed dt; the clock still measures the stable dt of each state.
        out += &format!(
            "  fixed dt / stable dt: at most {:.3} (the dt above against the stable dt of the state each timed \
             substep stepped; above 1 the snow sped up or hardened until the fixed dt was longer than its state \
             allows, so those substeps ran past the stability limit)\n",
            self.max_dt_ratio
        );
        out
    }
}
