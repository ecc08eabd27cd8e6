//! Snow in the water step's projection on the GPU (`shaders/water/snow.wgsl`, the twin's
//! [`SnowOnFaces`](crate::sim::water::cpu::mixture::SnowOnFaces)): the snow's group of bindings
//! (group 1 of the water's module) over an MPM solver's particle streams, and its buffers.

use crate::sim::pressure::gpu::layout::{ComputeModule, buffer_init};

/// The snow's particles as the water step reads them: an MPM solver's `particle_position`,
/// `particle_velocity`, `particle_affine`, `particle_deformation` and `particle_plastic` streams
/// ([`crate::sim::particles::STREAMS`]), and how many particles they hold.
#[derive(Clone, Copy)]
pub struct SnowStreams<'a> {
    /// The five streams, in that order.
    pub streams: [&'a wgpu::Buffer; 5],
    /// Particles in them.
    pub count: u32,
}

/// The snow's group and the buffers it owns (none but stand-ins while no snow is attached).
pub(super) struct SnowGroup {
    pub(super) group: wgpu::BindGroup,
    _own: Vec<wgpu::Buffer>,
}

impl SnowGroup {
    /// The group for `snow` on a grid of `faces` faces and `cells` cells, whose pressure operator
    /// builds from `solve_open`; with no snow, four-byte stand-ins (the passes reading them are not
    /// recorded).
    pub(super) fn new(
        device: &wgpu::Device,
        module: &ComputeModule,
        faces: u32,
        cells: u32,
        snow: Option<SnowStreams>,
        solve_open: &wgpu::Buffer,
    ) -> Self {
        let zeros = |n: u32| vec![0u8; 4 * (n as usize).max(1)];
        let sizes = match snow {
            Some(_) => [3 * faces, 2 * cells, 4 * faces, faces],
            None => [1, 1, 4, 1],
        };
        let names = ["water.snow_sums", "water.snow_cells", "water.snow_mix", "water.snow_change"];
        let own: Vec<wgpu::Buffer> = names.iter().zip(sizes).map(|(n, s)| buffer_init(device, n, &zeros(s))).collect();
        let stand_ins: Vec<wgpu::Buffer> =
            (0..5).map(|i| buffer_init(device, &format!("water.snow_stream{i}"), &zeros(12))).collect();
        let streams: [&wgpu::Buffer; 5] = match &snow {
            Some(s) => s.streams,
            None => std::array::from_fn(|i| &stand_ins[i]),
        };
        let mut bound: Vec<&wgpu::Buffer> = streams.to_vec();
        bound.extend(own.iter());
        bound.push(solve_open);
        let group = module.bind(device, 1, &bound);
        let mut kept = own;
        kept.extend(stand_ins);
        Self { group, _own: kept }
    }
}
