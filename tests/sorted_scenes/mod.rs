//! Scenes and helpers the sorted-path tests share (`tests/sorted_path.rs`,
//! `tests/sorted_path_equivalence.rs`, `tests/sorted_path_reorder.rs`): a 64³ grid, particles
//! placed near nodes so that f32 rounding cannot move them between blocks, a busy block, awkward
//! placements, and raw buffer reads.

#![allow(dead_code)] // Each test binary uses a different subset of these helpers.

use glam::Vec3;
use powder::gpu::Gpu;
use powder::sim::Solver;
use powder::sim::cpu::bins::home_cell;
use powder::sim::params::{GpuParticle, SolverParams};
use powder::sim::sort::bins::{BLOCK_CELLS, BLOCK_EDGE, SolverPath, block_dims};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::common;

pub const H: f64 = 1.0 / 64.0;

/// 64³ cells: 69³ nodes in 18³ = 5,832 blocks, so bin_offsets runs 23 workgroups and their
/// reservations must fit together.
pub fn params() -> SolverParams {
    common::params(64, H, 2e-4)
}

/// A particle near node `node` (in cells), off by up to ±0.45 cells per axis: never within 0.05
/// cells of a stencil-base boundary (those lie at cell centres, node + 0.5), so f32 rounding on
/// either side cannot move it to another block.
pub fn near_node(node: Vec3, rng: &mut StdRng) -> GpuParticle {
    let jitter = Vec3::new(rng.random_range(-0.45..0.45), rng.random_range(-0.45..0.45), rng.random_range(-0.45..0.45));
    let volume = (0.5 * H as f32).powi(3);
    let v = Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
    GpuParticle::new((node + jitter) * H as f32, v, 400.0 * volume, volume, 0)
}

/// `count` particles near random nodes of the domain's interior.
pub fn scattered(count: usize, seed: u64) -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let node = Vec3::new(
                rng.random_range(1..64) as f32,
                rng.random_range(1..64) as f32,
                rng.random_range(1..64) as f32,
            );
            near_node(node, &mut rng)
        })
        .collect()
}

pub fn sorted_solver(gpu: &Gpu, particles: &[GpuParticle]) -> Solver {
    let mut solver = Solver::new(gpu, params(), particles).expect("solver");
    solver.set_path(gpu, SolverPath::Sorted).expect("path");
    solver
}

/// A 0.25 m block of 8 particles per cell moving and spinning toward the floor and the x = 0 wall,
/// with random C and F beyond the yield limits, plus a few particles alone elsewhere.
pub fn busy_scene() -> Vec<GpuParticle> {
    let mut rng = StdRng::seed_from_u64(21);
    let mut ps = common::block(Vec3::new(0.02, 0.3, 0.02), Vec3::new(0.27, 0.55, 0.27), H as f32, 400.0, |x| {
        Vec3::new(-1.0, 0.5, -2.0) + Vec3::new(0.0, 6.0, 0.0).cross(x - Vec3::splat(0.15))
    });
    for p in &mut ps {
        let mut noise = |s: f32| glam::Mat3::from_cols_array(&std::array::from_fn(|_| rng.random_range(-s..s)));
        p.affine = common::padded(noise(5.0));
        p.deformation = common::padded(glam::Mat3::IDENTITY + noise(0.03));
    }
    ps.extend(scattered(37, 22));
    ps
}

/// The stencil base node of a particle at `position`, decoded from its cell counter (`home_cell`,
/// the CPU twin of the GPU's binning).
pub fn base_node(grid: &powder::sim::params::GridSpec, position: [f32; 3]) -> glam::IVec3 {
    let cell = home_cell(grid, Vec3::from(position));
    let (block, within) = (cell / BLOCK_CELLS, cell % BLOCK_CELLS);
    let d = block_dims(grid.node_dims());
    let b = glam::UVec3::new(block % d.x, (block / d.x) % d.y, block / (d.x * d.y));
    let w =
        glam::UVec3::new(within % BLOCK_EDGE, (within / BLOCK_EDGE) % BLOCK_EDGE, within / (BLOCK_EDGE * BLOCK_EDGE));
    (b * BLOCK_EDGE + w).as_ivec3()
}

/// The busy block (runs of up to 8 particles per cell); a cloud of 3,001 particles in one cell;
/// and scattered particles, 60 of them outside the domain or with NaN positions (clamped to the
/// domain's faces and centre).
pub fn awkward_cases() -> [(&'static str, Vec<GpuParticle>); 3] {
    let mut rng = StdRng::seed_from_u64(31);
    let cloud: Vec<_> = (0..3_001).map(|_| near_node(Vec3::new(20.0, 33.0, 41.0), &mut rng)).collect();
    let mut strays = scattered(500, 32);
    for (k, p) in strays.iter_mut().enumerate().take(60) {
        p.position = match k % 3 {
            0 => [-0.3, 0.5, 2.0],
            1 => [f32::NAN, 0.2, 0.2],
            _ => [0.5, 1.0 + k as f32, 0.5],
        };
    }
    [("busy block", busy_scene()), ("one cell", cloud), ("strays", strays)]
}

/// Raw GPU buffer as `T`s, in the GPU's storage order.
pub fn raw<T: bytemuck::Pod>(gpu: &Gpu, buffer: &wgpu::Buffer, count: usize) -> Vec<T> {
    let all: Vec<T> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(buffer).expect("readback"));
    all[..count].to_vec()
}
