//! Making a page's buffers and its bind group: the usages the passes and readbacks need, the
//! buffers every page of a simulation shares ([`Shared`]: grid, counters, pick ray, colliders,
//! clock) and group 0 in the binding order `types.wgsl` declares ([`Group0`]).

use wgpu::util::DeviceExt;

use crate::collider::field::{GpuColliderNode, GpuColliderSurface};
use crate::sim::explicit::clock::GpuSubstepClock;
use crate::sim::grid_pool::GridStorage;
use crate::sim::params::{GpuPickRay, GpuSolverStatus, GridSpec};
use crate::sim::particles::ParticleBuffers;
use crate::sim::pipelines::{BINDINGS, Kernels};

use super::sizes::{GRID_FIXED_NODE_BYTES, GRID_VELOCITY_NODE_BYTES};

/// The buffers of one page's group 0, by name: [`Group0::bind`] puts them in binding order, so
/// that order is written once (`types.wgsl` declares the same).
pub(crate) struct Group0<'a> {
    pub(crate) params: &'a wgpu::Buffer,
    pub(crate) particles: &'a ParticleBuffers,
    pub(crate) grid_fixed: &'a wgpu::Buffer,
    pub(crate) grid_velocity: &'a wgpu::Buffer,
    pub(crate) pb_solve: &'a wgpu::Buffer,
    pub(crate) status: &'a wgpu::Buffer,
    pub(crate) pick_ray: &'a wgpu::Buffer,
    pub(crate) colliders: &'a [wgpu::Buffer; 2],
    pub(crate) collider_surfaces: &'a wgpu::Buffer,
    pub(crate) bin_header: &'a wgpu::Buffer,
    pub(crate) block_bins: &'a wgpu::Buffer,
    pub(crate) block_lists: &'a wgpu::Buffer,
    pub(crate) particle_order: &'a wgpu::Buffer,
    pub(crate) cell_bins: &'a wgpu::Buffer,
    pub(crate) scatter_sources: &'a wgpu::Buffer,
    pub(crate) reorder_scratch: &'a wgpu::Buffer,
    pub(crate) block_slots: &'a wgpu::Buffer,
    pub(crate) clock: &'a wgpu::Buffer,
}

impl Group0<'_> {
    /// The bind group: binding 0 the uniform block, 1–6 the particle streams, 7–18 the grid, the
    /// counters, the colliders at the frame's start and the bins, 19 the particle ids, 20 the
    /// reorder scratch, 21 the colliders at the frame's end, 22 the sparse grid's block map, 23 the
    /// substep clock, 24 PB-MPM's Newton–PCG vectors.
    pub(crate) fn bind(&self, device: &wgpu::Device, kernels: &Kernels) -> wgpu::BindGroup {
        let buffers: Vec<&wgpu::Buffer> = std::iter::once(self.params)
            .chain(self.particles.buffers())
            .chain([
                self.grid_fixed,
                self.grid_velocity,
                self.status,
                self.pick_ray,
                &self.colliders[0],
                self.collider_surfaces,
                self.bin_header,
                self.block_bins,
                self.block_lists,
                self.particle_order,
                self.cell_bins,
                self.scatter_sources,
                &self.particles.id,
                self.reorder_scratch,
                &self.colliders[1],
                self.block_slots,
                self.clock,
                self.pb_solve,
            ])
            .collect();
        assert_eq!(buffers.len(), BINDINGS, "group 0 has BINDINGS bindings");
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("mpm.state"),
            layout: &kernels.layout,
            entries: &entries,
        })
    }
}

/// The one-entry stand-ins for the two collider frames while there are no colliders.
pub(crate) fn no_colliders(device: &wgpu::Device) -> [wgpu::Buffer; 2] {
    ["colliders_start", "colliders_end"]
        .map(|label| placeholder(device, label, bytemuck::bytes_of(&GpuColliderNode::default())))
}

/// A read-only storage buffer holding `contents` (the one-entry stand-ins for absent colliders).
pub(crate) fn placeholder(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    })
}

/// A storage buffer the host also copies from (readbacks) and into: the grid, the bins, the order.
pub(crate) fn readable_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: READABLE_STORAGE,
        mapped_at_creation: false,
    })
}

/// The usage of [`readable_buffer`]s.
pub(crate) const READABLE_STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

/// A storage buffer the passes write and the host fills (`COPY_DST`), never reads back.
pub(crate) fn storage_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The buffers all pages of one simulation share: the grid, the counters, the pick ray and the
/// colliders (wgpu buffers are shared handles; each page's bind group names the same ones).
#[derive(Clone)]
pub(crate) struct Shared {
    pub(crate) grid: GridBuffers,
    pub(crate) status: wgpu::Buffer,
    pub(crate) pick_ray: wgpu::Buffer,
    pub(crate) colliders: [wgpu::Buffer; 2],
    pub(crate) collider_surfaces: wgpu::Buffer,
    pub(crate) clock: wgpu::Buffer,
}

/// The grid's buffers: its nodes and, on a sparse grid, the map from grid block to pool block.
#[derive(Clone)]
pub(crate) struct GridBuffers {
    pub(crate) fixed: wgpu::Buffer,
    pub(crate) velocity: wgpu::Buffer,
    pub(crate) block_slots: wgpu::Buffer,
    /// PB-MPM's Newton–PCG vectors ([`newton_buffer_bytes`]).
    pub(crate) pb_solve: wgpu::Buffer,
    pub(crate) storage: GridStorage,
}

/// Bytes of the one-entry placeholder that stands for the Newton–PCG buffer where its vectors are
/// not made ([`newton_buffer_bytes`]).
pub(crate) const NEWTON_PLACEHOLDER_BYTES: u64 = 16;

/// Bytes of the Newton–PCG buffer: [`super::sizes::newton_solve_len`] entries of 16 bytes on a
/// dense grid whose vectors fit one binding, else [`NEWTON_PLACEHOLDER_BYTES`] (PB-MPM's Newton
/// solve then falls back to the constraint iterations).
fn newton_buffer_bytes(device: &wgpu::Device, grid: &GridSpec, storage: GridStorage) -> u64 {
    let bytes = 16 * super::sizes::newton_solve_len(grid.node_dims());
    let limits = device.limits();
    let limit = limits.max_storage_buffer_binding_size.min(limits.max_buffer_size);
    if storage.is_sparse() || bytes > limit { NEWTON_PLACEHOLDER_BYTES } else { bytes }
}

impl GridBuffers {
    /// Buffers for `storage` of `grid`: the nodes zeroed, a sparse grid's map "none" throughout.
    pub(crate) fn new(device: &wgpu::Device, grid: &GridSpec, storage: GridStorage) -> Self {
        let nodes = storage.stored_nodes(grid);
        let blocks = if storage.is_sparse() { crate::sim::grid_pool::grid_blocks(grid) as u64 } else { 1 };
        Self {
            fixed: readable_buffer(device, "grid_fixed", nodes * GRID_FIXED_NODE_BYTES),
            velocity: readable_buffer(device, "grid_velocity", nodes * GRID_VELOCITY_NODE_BYTES),
            // Stored one up (`block_slot` in types.wgsl), so the zeros it is made with mean "none".
            block_slots: readable_buffer(device, "block_slots", 4 * blocks),
            pb_solve: readable_buffer(device, "pb_solve", newton_buffer_bytes(device, grid, storage)),
            storage,
        }
    }
}

impl Shared {
    /// The shared buffers of a new simulation: the grid zeroed, the counters reset, no colliders.
    pub(crate) fn new(device: &wgpu::Device, grid: &GridSpec, storage: GridStorage) -> Self {
        Self {
            grid: GridBuffers::new(device, grid, storage),
            status: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("solver_status"),
                contents: bytemuck::bytes_of(&GpuSolverStatus::reset()),
                usage: READABLE_STORAGE,
            }),
            pick_ray: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("pick_ray"),
                contents: bytemuck::bytes_of(&GpuPickRay::default()),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            }),
            colliders: no_colliders(device),
            collider_surfaces: placeholder(device, "collider_surfaces", &[0; size_of::<GpuColliderSurface>()]),
            clock: readable_buffer(device, "substep_clock", size_of::<GpuSubstepClock>() as u64),
        }
    }
}
