//! The grid view (`shaders/render/grid_view.wgsl`): one plane of the solver's grid nodes, normal to
//! an axis, as one value per node: the node mass (kg) or speed (m/s) after the last grid update,
//! or the colliders' signed distance (m), and with every node its mass and the grid velocity's two
//! components in the plane (m/s), which the app draws as arrows where snow is.
//!
//! The compute pass reads the solver's `grid_velocity` (velocity and mass per stored node) through
//! the sparse grid's block map where there is one, and writes the plane into a small buffer that
//! [`GridView::read_slice`] copies back; the app colours it and draws it with a legend in
//! physical units (`src/app/panels/grid_view.rs`, drawn by `src/app/window/grid_view.rs`). The
//! plane is small (at most the grid's two largest node counts multiplied), so it is read back
//! whole.

use glam::UVec3;

use super::bindings::{buffer_bind_group, compute_pipeline, storage_buffer, storage_entry};
use super::shaders::{DepthKind, RenderShader};
use crate::gpu::{Gpu, GpuError, PendingRead};
use crate::grid::GRID_PADDING;
use crate::sim::Solver;
use crate::sim::sort::bins::SolverPath;
use crate::sim::water::gpu::WaterDiagnostics;

pub use super::grid_quantity::GridQuantity;

/// A plane of grid nodes: those whose coordinate along `axis` (0 x, 1 y, 2 z) is `index`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GridSlice {
    /// The axis normal to the plane: 0 x, 1 y, 2 z.
    pub axis: u32,
    /// The node index along `axis` (clamped to the grid).
    pub index: u32,
    /// What the plane shows.
    pub quantity: GridQuantity,
}

impl GridSlice {
    /// The plane's image axes (u, v): the two other axes in increasing order (v is z whenever z is
    /// in the plane, so "up" is up).
    pub fn plane_axes(axis: u32) -> (usize, usize) {
        match axis {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        }
    }

    /// The plane's size in nodes (u, v) on a grid of `node_dims` nodes.
    pub fn extent(self, node_dims: UVec3) -> (u32, u32) {
        let (u, v) = Self::plane_axes(self.axis);
        (node_dims[u], node_dims[v])
    }

    /// The same plane with its axis and index clamped to a grid of `node_dims` nodes.
    pub fn clamped(self, node_dims: UVec3) -> GridSlice {
        let axis = self.axis.min(2);
        GridSlice { axis, index: self.index.min(node_dims[axis as usize] - 1), ..self }
    }

    /// The plane's corners in world space (metres): the nodes at image places (0, 0), (last, 0),
    /// (last, last) and (0, last) of a grid `grid`, the index clamped to it.
    pub fn corners(self, grid: &crate::sim::params::GridSpec) -> [glam::DVec3; 4] {
        let slice = self.clamped(grid.node_dims());
        let (w, h) = slice.extent(grid.node_dims());
        let at = |u: u32, v: u32| grid.grid_origin() + slice.node(u, v).as_dvec3() * grid.cell_size;
        [at(0, 0), at(w - 1, 0), at(w - 1, h - 1), at(0, h - 1)]
    }

    /// The grid node at image place (u, v).
    pub fn node(self, u: u32, v: u32) -> UVec3 {
        let (a, b) = Self::plane_axes(self.axis);
        let mut node = UVec3::ZERO;
        node[self.axis.min(2) as usize] = self.index;
        node[a] = u;
        node[b] = v;
        node
    }
}

/// The view's uniform block (`GridViewParams` in the shader).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuGridViewParams {
    /// Grid nodes per axis.
    pub node_dims: [u32; 3],
    /// The axis normal to the plane.
    pub axis: u32,
    /// The plane's node index along `axis`.
    pub slice_index: u32,
    /// 0 mass, 1 speed, 2 collider distance, 3 Jp, 4 |τ|.
    pub quantity: u32,
    /// 0 on a dense grid, the pool's size in blocks on a sparse one.
    pub pool_blocks: u32,
    /// Particles of the page the splat reads.
    pub particle_count: u32,
    /// The grid's node 0, metres.
    pub grid_origin: [f32; 3],
    /// Node spacing, metres.
    pub cell_size: f32,
    /// 1 where the grid update visits the touched blocks only: nodes elsewhere read as empty.
    pub touched_only: u32,
    /// Pads the block to a multiple of 16 bytes.
    pub _pad: [u32; 3],
}

/// One plane read back: `values[u + width · v]`, v upward.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceImage {
    /// What was read, the index clamped to the grid.
    pub slice: GridSlice,
    /// Nodes along u.
    pub width: u32,
    /// Nodes along v.
    pub height: u32,
    /// One value per node in the quantity's unit.
    pub values: Vec<f32>,
    /// Per node, the node's velocity after the last grid update along the plane's u and v axes
    /// (m/s; 0 where the node holds no snow), whatever `slice.quantity` is.
    pub flow: Vec<[f32; 2]>,
    /// Per node, the node's mass after the last grid update (kg), whatever `slice.quantity` is.
    pub mass: Vec<f32>,
    /// The plane's position along its axis in metres (the node's world coordinate).
    pub position: f64,
}

/// A plane on its way to the host ([`GridView::start_read`]).
pub struct PendingSlice {
    /// The node pass's plane on its way back (`None` for a plane made on the host).
    read: Option<PendingRead>,
    /// A plane made on the host (the water's cells), handed over by the first `take`.
    made: std::cell::RefCell<Option<Result<SliceImage, GpuError>>>,
    slice: GridSlice,
    width: u32,
    height: u32,
    position: f64,
}

impl PendingSlice {
    /// The plane once its copy has been mapped (after the device was polled past the read's
    /// submission, [`Gpu::poll`]); `None` before. Returns the plane once.
    pub fn take(&self) -> Option<Result<SliceImage, GpuError>> {
        if let Some(made) = self.made.borrow_mut().take() {
            return Some(made);
        }
        let bytes = match self.read.as_ref()?.take()? {
            Ok(mut parts) => parts.pop().unwrap_or_default(),
            Err(e) => return Some(Err(e)),
        };
        let nodes: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
        let values = nodes.iter().map(|n| n[0]).collect();
        let flow = nodes.iter().map(|n| [n[1], n[2]]).collect();
        let mass = nodes.iter().map(|n| n[3]).collect();
        let (slice, width, height, position) = (self.slice, self.width, self.height, self.position);
        Some(Ok(SliceImage { slice, width, height, values, flow, mass, position }))
    }

    /// Whether [`PendingSlice::take`] has the plane (or the copy's failure).
    pub fn ready(&self) -> bool {
        self.made.borrow().is_some() || self.read.as_ref().is_some_and(PendingRead::ready)
    }
}

/// The pipelines, their uniform and the plane's buffers.
pub struct GridView {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    splat: wgpu::ComputePipeline,
    resolve: wgpu::ComputePipeline,
    touched: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    /// Per node: value, velocity along u and v, mass.
    out: Option<wgpu::Buffer>,
    /// Per node: Σ w m q and Σ w m of the splatted quantities.
    sums: Option<wgpu::Buffer>,
    /// Per node: 1 once a page's sort listed its block as touched.
    marks: Option<wgpu::Buffer>,
}

/// Threads per workgroup along u and v (`@workgroup_size(8, 8, 1)`).
const GROUP: u32 = 8;

/// A storage buffer of `size` bytes for the plane, made anew when the plane's size changed.
fn plane_buffer(gpu: &Gpu, slot: &mut Option<wgpu::Buffer>, label: &str, size: u64, usage: wgpu::BufferUsages) {
    if slot.as_ref().is_none_or(|b| b.size() != size) {
        *slot = Some(storage_buffer(&gpu.device, label, size, usage));
    }
}

impl GridView {
    /// Builds the pipelines.
    pub fn new(device: &wgpu::Device) -> Self {
        let shader = RenderShader::GridView;
        let stage = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(shader.label()),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: stage,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage_entry(1, stage, true),
                storage_entry(2, stage, true),
                storage_entry(3, stage, false),
                storage_entry(4, stage, true),
                storage_entry(5, stage, true),
                storage_entry(6, stage, true),
                storage_entry(7, stage, true),
                storage_entry(8, stage, false),
                storage_entry(9, stage, true),
                storage_entry(10, stage, false),
            ],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shader.label()),
            source: wgpu::ShaderSource::Wgsl(shader.composed_source(DepthKind::Single).into()),
        });
        let entry = |name: &str| compute_pipeline(device, shader.label(), &module, name, &[&layout]);
        let (pipeline, splat, resolve, touched) = (
            entry("grid_view_slice"),
            entry("grid_view_splat"),
            entry("grid_view_resolve"),
            entry("grid_view_touched"),
        );
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.grid_view.params"),
            size: size_of::<GpuGridViewParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self { layout, pipeline, splat, resolve, touched, params, out: None, sums: None, marks: None }
    }

    /// Runs the passes over `solver`'s grid as the last substep left it and copies the plane back
    /// (a submission per particle page and one wait). The index is clamped to the grid.
    pub fn read_slice(&mut self, gpu: &Gpu, solver: &Solver, slice: GridSlice) -> Result<SliceImage, GpuError> {
        let pending = self.start_read(gpu, solver, slice);
        // Waiting for all submitted work runs the mapping's callback.
        gpu.wait_idle();
        pending.take().unwrap_or_else(|| {
            let reason = "the copy was not mapped after the device finished its work".to_string();
            Err(GpuError::Readback { label: "render.grid_view.slice".to_string(), reason })
        })
    }

    /// Runs the passes as [`GridView::read_slice`] does and starts the plane's copy to the host
    /// without waiting for it: the UI thread polls the device and takes the plane on a later frame
    /// ([`PendingSlice::take`]). The passes are submitted behind the simulation's work, so the
    /// plane is the grid as the last substep submitted before this call left it.
    pub fn start_read(&mut self, gpu: &Gpu, solver: &Solver, slice: GridSlice) -> PendingSlice {
        let grid = &solver.params().grid;
        let dims = grid.node_dims();
        let slice = slice.clamped(dims);
        if slice.quantity.water() {
            let (width, height) = slice.extent(dims);
            let position = grid.grid_origin()[slice.axis as usize] + slice.index as f64 * grid.cell_size;
            let made = water_plane(solver.water_diagnostics(gpu).transpose(), slice, (width, height), position);
            return PendingSlice {
                read: None,
                made: std::cell::RefCell::new(Some(made)),
                slice,
                width,
                height,
                position,
            };
        }
        let axis = slice.axis;
        let (width, height) = slice.extent(dims);
        let nodes = width as u64 * height as u64;
        let copy = wgpu::BufferUsages::COPY_SRC;
        plane_buffer(gpu, &mut self.out, "render.grid_view.slice", 16 * nodes, copy);
        plane_buffer(gpu, &mut self.sums, "render.grid_view.sums", 8 * nodes, wgpu::BufferUsages::COPY_DST);
        plane_buffer(gpu, &mut self.marks, "render.grid_view.touched", 4 * nodes, wgpu::BufferUsages::COPY_DST);
        // The binned paths update the touched blocks only (grid_update_blocks, pb_grid_blocks).
        let touched_only = solver.path() != SolverPath::Naive;
        let mut uniforms = GpuGridViewParams {
            node_dims: dims.to_array(),
            axis,
            slice_index: slice.index,
            quantity: slice.quantity.code(),
            pool_blocks: solver.grid_storage().pool_blocks(),
            particle_count: 0,
            grid_origin: grid.grid_origin().as_vec3().to_array(),
            cell_size: grid.cell_size as f32,
            touched_only: touched_only as u32,
            _pad: [0; 3],
        };
        let groups = [(width, GROUP), (height, GROUP)].map(|(n, g)| n.div_ceil(g));
        let (first, pages) = (&solver.pages()[0], solver.pages());
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        encoder.clear_buffer(self.sums.as_ref().expect("made above"), 0, None);
        encoder.clear_buffer(self.marks.as_ref().expect("made above"), 0, None);
        if slice.quantity.splatted() || touched_only {
            // One submission per page: each has its own particle count (in the uniform) and bins.
            for page in pages {
                uniforms.particle_count = page.particle_count;
                gpu.queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&uniforms));
                let group = self.group(gpu, first, page);
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_bind_group(0, &group, &[]);
                if touched_only {
                    pass.set_pipeline(&self.touched);
                    pass.dispatch_workgroups(groups[0], groups[1], 1);
                }
                if slice.quantity.splatted() {
                    pass.set_pipeline(&self.splat);
                    pass.dispatch_workgroups(page.particle_count.div_ceil(64).max(1), 1, 1);
                }
                drop(pass);
                let done = std::mem::replace(&mut encoder, gpu.device.create_command_encoder(&Default::default()));
                gpu.queue.submit([done.finish()]);
            }
        } else {
            gpu.queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&uniforms));
        }
        // The grid's buffers are replaced when its pool grows, so the groups are made anew.
        let group = self.group(gpu, first, first);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(RenderShader::GridView.label()),
                timestamp_writes: None,
            });
            pass.set_pipeline(if slice.quantity.splatted() { &self.resolve } else { &self.pipeline });
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], 1);
        }
        // The copy goes into a staging buffer of its own, so a later read's passes (which
        // overwrite `out`) cannot change a plane still on its way.
        let read = gpu.record_read(&mut encoder, &[self.out.as_ref().expect("made above")]);
        gpu.queue.submit([encoder.finish()]);
        read.start();
        let position = grid.grid_origin()[axis as usize] + slice.index as f64 * grid.cell_size;
        PendingSlice { read: Some(read), made: Default::default(), slice, width, height, position }
    }

    /// The bind group over the grid of `grid` (the first page, which holds it) and the particle
    /// streams and bins of `page`.
    fn group(
        &self,
        gpu: &Gpu,
        grid: &crate::sim::page::ParticlePage,
        page: &crate::sim::page::ParticlePage,
    ) -> wgpu::BindGroup {
        let made = |b: &Option<wgpu::Buffer>| b.clone().expect("read_slice makes the plane's buffers first");
        let (out, sums, marks) = (made(&self.out), made(&self.sums), made(&self.marks));
        let buffers = [
            (0, &self.params),
            (1, &grid.grid_velocity),
            (2, &grid.block_slots),
            (3, &out),
            (4, &grid.colliders[1]),
            (5, &page.particles.position),
            (6, &page.particles.plastic),
            (7, &page.particles.stress),
            (8, &sums),
            (9, &page.block_bins),
            (10, &marks),
        ];
        buffer_bind_group(&gpu.device, RenderShader::GridView.label(), &self.layout, &buffers)
    }
}

/// The plane `slice` of the water step's cells (`diagnostics`, `None` before its first step:
/// every node empty) on the node lattice of `width × height`: node m along an axis shows water
/// cell m − (`GRID_PADDING` − 1), the cell whose lowest corner it is (the water's cells are
/// centred half a cell past the nodes). Nodes past the water's cells are NaN (empty); no arrows.
fn water_plane(
    diagnostics: Result<Option<WaterDiagnostics>, GpuError>,
    slice: GridSlice,
    (width, height): (u32, u32),
    position: f64,
) -> Result<SliceImage, GpuError> {
    let diagnostics = diagnostics?;
    let n = (width * height) as usize;
    let mut values = vec![f32::NAN; n];
    if let Some(d) = &diagnostics {
        let dims = UVec3::from_array(d.dims);
        for v in 0..height {
            for u in 0..width {
                let node = slice.node(u, v);
                // Node m along an axis is the lowest corner of water cell m − (GRID_PADDING − 1).
                let shift = UVec3::splat(GRID_PADDING - 1);
                if node.cmplt(shift).any() || (node - shift).cmpge(dims).any() {
                    continue;
                }
                let g = node - shift;
                let c = (g.x + dims.x * (g.y + dims.y * g.z)) as usize;
                let cell = d.cells[c];
                values[(u + width * v) as usize] = match slice.quantity {
                    GridQuantity::WaterCellKind => d.kinds[c] as f32,
                    GridQuantity::DivergenceBefore => cell[0],
                    GridQuantity::DivergenceAfter => cell[1],
                    GridQuantity::Pressure => cell[2],
                    _ => cell[3],
                };
            }
        }
    }
    let (flow, mass) = (vec![[0.0; 2]; n], vec![0.0; n]);
    Ok(SliceImage { slice, width, height, values, flow, mass, position })
}
