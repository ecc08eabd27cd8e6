//! The simulation's GPU data: particles, grid and parameters, and the bind group that exposes them
//! to the kernels. Rebuilt when a scene loads or the grid changes; the kernels are not.

use thiserror::Error;
use wgpu::util::DeviceExt;

use super::params::{GpuParticle, GpuPickRay, GpuSimParams, GpuSolverStatus, SolverParams};
use super::pipelines::Kernels;

/// Bytes per grid node in the fixed-point buffer: mass and three momentum components, each a
/// 64-bit sum kept in two i32 words.
pub const GRID_FIXED_NODE_BYTES: u64 = 32;
/// Bytes per grid node in the velocity buffer: `vec4<f32>`.
pub const GRID_VELOCITY_NODE_BYTES: u64 = 16;

/// Why the solver state could not be created.
#[derive(Debug, Error)]
pub enum StateError {
    /// The grid needs a buffer larger than the adapter allows.
    #[error(
        "grid of {nodes} nodes ({dims:?} incl. padding) needs a {bytes}-byte buffer, but this GPU \
         allows at most {limit} bytes per storage buffer: lower grid.resolution to at most {max_resolution}"
    )]
    GridTooLarge {
        /// Nodes requested.
        nodes: u64,
        /// Node dimensions.
        dims: [u32; 3],
        /// Buffer size needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
        /// Largest resolution along the longest axis that fits.
        max_resolution: u32,
    },
    /// The particles need a buffer larger than the adapter allows.
    #[error(
        "{count} particles need a {bytes}-byte buffer, but this GPU allows at most {limit} bytes per storage buffer"
    )]
    TooManyParticles {
        /// Particles requested.
        count: usize,
        /// Buffer size needed.
        bytes: u64,
        /// The adapter's limit.
        limit: u64,
    },
    /// There are no particles to simulate.
    #[error("the scene has no particles")]
    NoParticles,
}

/// GPU buffers of one simulation.
pub struct SimState {
    /// Uniform block ([`GpuSimParams`]).
    pub params: wgpu::Buffer,
    /// Particles ([`GpuParticle`] array).
    pub particles: wgpu::Buffer,
    /// Fixed-point mass and momentum, four i32 per node.
    pub grid_fixed: wgpu::Buffer,
    /// Node velocity and mass, `vec4<f32>` per node.
    pub grid_velocity: wgpu::Buffer,
    /// Counters and maxima ([`GpuSolverStatus`]).
    pub status: wgpu::Buffer,
    /// The ray of the pick pass ([`GpuPickRay`]).
    pub pick_ray: wgpu::Buffer,
    /// Group 0 of every pass.
    pub bind_group: wgpu::BindGroup,
    /// Number of particles.
    pub particle_count: u32,
    /// Number of grid nodes.
    pub node_count: u32,
}

/// The largest storage buffer the device allows.
pub fn max_storage_bytes(device: &wgpu::Device) -> u64 {
    let limits = device.limits();
    limits.max_storage_buffer_binding_size.min(limits.max_buffer_size)
}

/// Checks that a grid and particle set fit the device's buffer limits.
pub fn check_limits(device: &wgpu::Device, params: &SolverParams, particle_count: usize) -> Result<(), StateError> {
    if particle_count == 0 {
        return Err(StateError::NoParticles);
    }
    let limit = max_storage_bytes(device);
    let grid = &params.grid;
    let nodes = grid.node_count();
    let bytes = nodes * GRID_FIXED_NODE_BYTES.max(GRID_VELOCITY_NODE_BYTES);
    // Node indices are u32 in the shaders, and eight i32 per node are addressed as 8·node.
    if bytes > limit || nodes * 8 > u32::MAX as u64 {
        let max_nodes = (limit / GRID_FIXED_NODE_BYTES).min(u32::MAX as u64 / 8) as f64;
        let cells = grid.cells.as_dvec3();
        let longest = cells.max_element();
        // Nodes ≈ Π(cells_a · s + 5) for a scale s of the resolution; solve approximately by bisection.
        let fits = |s: f64| ((cells * s).ceil() + 5.0).element_product() <= max_nodes;
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if fits(mid) { lo = mid } else { hi = mid }
        }
        return Err(StateError::GridTooLarge {
            nodes,
            dims: grid.node_dims().to_array(),
            bytes,
            limit,
            max_resolution: (longest * lo).floor() as u32,
        });
    }
    let particle_bytes = particle_count as u64 * size_of::<GpuParticle>() as u64;
    if particle_bytes > limit || particle_count as u64 > u32::MAX as u64 {
        return Err(StateError::TooManyParticles { count: particle_count, bytes: particle_bytes, limit });
    }
    Ok(())
}

impl SimState {
    /// Uploads `particles` and allocates a grid for `params`.
    pub fn new(
        device: &wgpu::Device,
        kernels: &Kernels,
        params: &SolverParams,
        particles: &[GpuParticle],
    ) -> Result<Self, StateError> {
        check_limits(device, params, particles.len())?;
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let particle_count = particles.len() as u32;
        let node_count = params.grid.node_count() as u32;
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("sim_params"),
            contents: bytemuck::bytes_of(&params.to_gpu(particle_count)),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let particle_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("particles"),
            contents: bytemuck::cast_slice(particles),
            usage: storage,
        });
        let grid_fixed = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grid_fixed"),
            size: node_count as u64 * GRID_FIXED_NODE_BYTES,
            usage: storage,
            mapped_at_creation: false,
        });
        let grid_velocity = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("grid_velocity"),
            size: node_count as u64 * GRID_VELOCITY_NODE_BYTES,
            usage: storage,
            mapped_at_creation: false,
        });
        let status = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("solver_status"),
            contents: bytemuck::bytes_of(&GpuSolverStatus::reset()),
            usage: storage,
        });
        let pick_ray = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("pick_ray"),
            contents: bytemuck::bytes_of(&GpuPickRay::default()),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mpm.state"),
            layout: &kernels.layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: params_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: particle_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: grid_fixed.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: grid_velocity.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: status.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 5, resource: pick_ray.as_entire_binding() },
            ],
        });
        Ok(Self {
            params: params_buffer,
            particles: particle_buffer,
            grid_fixed,
            grid_velocity,
            status,
            pick_ray,
            bind_group,
            particle_count,
            node_count,
        })
    }

    /// Number of i32 words in the fixed-point grid (one `grid_clear` thread each).
    pub fn grid_fixed_words(&self) -> u32 {
        (self.node_count as u64 * GRID_FIXED_NODE_BYTES / 4) as u32
    }

    /// Writes new parameters (e.g. a new dt) for the next submission.
    pub fn write_params(&self, queue: &wgpu::Queue, params: &GpuSimParams) {
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(params));
    }
}
