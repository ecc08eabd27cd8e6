//! `powder bench`: GPU time per pass, ms per substep and particle-substeps per second for a block
//! of snow of a given size, compared against the memory-bandwidth floor measured on the same device.

use std::time::Instant;

pub mod bandwidth;
pub mod render;
pub mod sdf;

pub use bandwidth::{COPY_SHADER, memory_bandwidth};

use crate::gpu::Gpu;
use crate::headless::{RunError, build_solver};
use crate::scene::Scene;
use crate::sim::Solver;
use crate::sim::params::GpuParticle;
use crate::sim::shaders::MpmPass;
use crate::sim::state::{GRID_FIXED_NODE_BYTES, GRID_VELOCITY_NODE_BYTES};
use crate::sim::step::{self, PassTimestamps};

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
}

/// Time of one pass, summed over the timed substeps.
#[derive(Clone, Debug)]
pub struct PassTime {
    /// The pass.
    pub pass: MpmPass,
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
    /// Per pass.
    pub passes: Vec<PassTime>,
    /// `true` if pass times come from GPU timestamps, `false` if from wall clock around each pass.
    pub timestamps: bool,
    /// Wall-clock ms per substep with all substeps in a few submissions (includes submit overhead).
    pub wall_ms_per_substep: f64,
    /// Memory bandwidth of a streaming copy kernel on this GPU, bytes/s (read + write counted).
    pub copy_bandwidth: f64,
}

/// The scene of a case: a unit-cube domain with a block of falling snow sized for the particle
/// count, centred in x and y, a little above the floor, moving down at 2 m/s.
pub fn bench_scene(case: &BenchCase) -> Scene {
    let h = 1.0 / case.grid as f64;
    let cells = case.particles as f64 / case.particles_per_cell as f64;
    let side = (cells.cbrt() * h).min(0.9);
    let (lo, hi) = (0.5 - side / 2.0, 0.5 + side / 2.0);
    let z0 = 0.05;
    let json = format!(
        r#"{{ "version": 1, "name": "bench", "domain": {{ "size": [1, 1, 1] }}, "grid": {{ "resolution": {} }},
            "particles_per_cell": {}, "time": {{ "dt": "auto" }},
            "emitters": [ {{ "shape": "box", "min": [{lo}, {lo}, {z0}], "max": [{hi}, {hi}, {}], "velocity": [0.3, 0.2, -2.0] }} ] }}"#,
        case.grid,
        case.particles_per_cell,
        (z0 + side).min(0.95)
    );
    Scene::from_json(&json, "bench").expect("the bench scene is valid by construction")
}

/// Minimum bytes each pass moves per substep in the current array-of-structs layout: particles
/// are read whole by p2g and read and written whole by g2p; a particle passes touch about one node
/// per cell of snow (N / ppc); grid passes touch every node.
pub fn pass_bytes(pass: MpmPass, particles: f64, nodes: f64, ppc: f64) -> f64 {
    let particle = size_of::<GpuParticle>() as f64;
    let snow_nodes = particles / ppc;
    match pass {
        MpmPass::GridClear => GRID_FIXED_NODE_BYTES as f64 * nodes,
        MpmPass::P2g => particle * particles + GRID_FIXED_NODE_BYTES as f64 * snow_nodes,
        MpmPass::GridUpdate => (GRID_FIXED_NODE_BYTES + GRID_VELOCITY_NODE_BYTES) as f64 * nodes,
        MpmPass::G2p => 2.0 * particle * particles + GRID_VELOCITY_NODE_BYTES as f64 * snow_nodes,
        MpmPass::Stats | MpmPass::Pick => particle * particles,
    }
}

fn timed_with_queries(gpu: &Gpu, solver: &Solver, substeps: u32) -> Vec<f64> {
    let queries = 8 * SUBSTEPS_PER_BATCH;
    let query_set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench"),
        ty: wgpu::QueryType::Timestamp,
        count: queries,
    });
    let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench_resolve"),
        size: 8 * queries as u64,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let period_ns = gpu.queue.get_timestamp_period() as f64;
    let mut totals = [0.0f64; 4];
    let mut left = substeps;
    while left > 0 {
        let n = left.min(SUBSTEPS_PER_BATCH);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        for s in 0..n {
            let ts = PassTimestamps { query_set: &query_set, first: 8 * s };
            step::record_substep(&mut encoder, solver.kernels(), solver.state(), s, Some(ts));
        }
        encoder.resolve_query_set(&query_set, 0..8 * n, &resolve, 0);
        gpu.queue.submit([encoder.finish()]);
        let bytes = gpu.read_buffer(&resolve).unwrap_or_default();
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        for s in 0..n as usize {
            for (k, total) in totals.iter_mut().enumerate() {
                let (begin, end) = (ticks[8 * s + 2 * k], ticks[8 * s + 2 * k + 1]);
                *total += end.saturating_sub(begin) as f64 * period_ns * 1e-6;
            }
        }
        left -= n;
    }
    totals.iter().map(|t| t / substeps as f64).collect()
}

fn timed_with_wall_clock(gpu: &Gpu, solver: &Solver, substeps: u32) -> Vec<f64> {
    let mut totals = [0.0f64; 4];
    for _ in 0..substeps {
        for (k, pass) in MpmPass::SUBSTEP.into_iter().enumerate() {
            let start = Instant::now();
            solver.run_pass(gpu, pass);
            gpu.wait_idle();
            totals[k] += start.elapsed().as_secs_f64() * 1e3;
        }
    }
    totals.iter().map(|t| t / substeps as f64).collect()
}

/// Runs one case.
pub fn run_case(gpu: &Gpu, case: BenchCase) -> Result<BenchResult, RunError> {
    let scene = bench_scene(&case);
    let mut solver = build_solver(gpu, &scene, "bench")?;
    let solver_err = |source| RunError::Solver { source_name: "bench".into(), source };
    let (dt, _) = solver.stable_dt(gpu, scene.time.cfl).map_err(solver_err)?;
    solver.set_dt(gpu, dt);
    // Warm-up: pipelines compiled, memory touched, caches in a steady state.
    solver.step(gpu, 10);
    gpu.wait_idle();

    let start = Instant::now();
    let mut left = case.substeps;
    while left > 0 {
        let n = left.min(SUBSTEPS_PER_BATCH);
        solver.step(gpu, n);
        left -= n;
    }
    gpu.wait_idle();
    let wall_ms_per_substep = start.elapsed().as_secs_f64() * 1e3 / case.substeps as f64;

    let per_pass = if gpu.has_timestamps {
        timed_with_queries(gpu, &solver, case.substeps)
    } else {
        timed_with_wall_clock(gpu, &solver, case.substeps)
    };
    let n = solver.particle_count() as f64;
    let nodes = solver.params().grid.node_count();
    let passes = MpmPass::SUBSTEP
        .into_iter()
        .zip(per_pass)
        .map(|(pass, ms)| PassTime {
            pass,
            ms_per_substep: ms,
            bytes: pass_bytes(pass, n, nodes as f64, case.particles_per_cell as f64),
        })
        .collect();
    Ok(BenchResult {
        case,
        particle_count: solver.particle_count(),
        node_count: nodes,
        passes,
        timestamps: gpu.has_timestamps,
        wall_ms_per_substep,
        copy_bandwidth: memory_bandwidth(gpu),
    })
}

impl BenchResult {
    /// A plain-text report of the case.
    pub fn report(&self) -> String {
        let r = self.case.grid;
        let gpu_ms: f64 = self.passes.iter().map(|p| p.ms_per_substep).sum();
        let mut out = format!(
            "{} particles ({} requested, {} per cell), grid {r}³ cells ({} nodes), {} substeps\n",
            self.particle_count, self.case.particles, self.case.particles_per_cell, self.node_count, self.case.substeps
        );
        out += &format!(
            "  pass timing: {}; memory bandwidth of a copy kernel here: {:.0} GB/s\n",
            if self.timestamps {
                "GPU timestamp queries"
            } else {
                "wall clock around each pass (no timestamp queries)"
            },
            self.copy_bandwidth / 1e9
        );
        out += "  pass          ms/substep   share   MB moved   floor ms   x floor\n";
        for p in &self.passes {
            let floor = p.bytes / self.copy_bandwidth * 1e3;
            out += &format!(
                "  {:<12} {:>11.4} {:>6.1}% {:>10.1} {:>10.4} {:>9.1}\n",
                p.pass.name(),
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
            "  total        {gpu_ms:>11.4}         {:>10.1} {floor:>10.4} {:>9.1}\n",
            bytes / 1e6,
            gpu_ms / floor
        );
        let n = self.particle_count as f64;
        out += &format!(
            "  wall clock: {:.4} ms/substep, {:.3e} particle-substeps/s; {:.0} bytes/particle/substep in this layout\n",
            self.wall_ms_per_substep,
            n / (self.wall_ms_per_substep * 1e-3),
            bytes / n
        );
        out
    }
}
