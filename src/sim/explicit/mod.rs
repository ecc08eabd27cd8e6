//! The explicit MLS-MPM integrator (Stomakhin et al. 2013, Hu et al. 2018): each substep scatters
//! mass, momentum and the elastic stress impulse to the grid, updates the grid's velocities and
//! gathers them back, at a dt the CFL condition and the snow's wave speed bound. Its passes are the
//! [`Owner::Explicit`](super::passes::Owner) rows of [`super::passes::PASSES`], its WGSL lies in
//! `shaders/mpm/explicit/`, its CPU twin in [`super::cpu`].
//!
//! [`substep`] records a substep's stages in order on each path (naive, sorted, fused); [`clock`]
//! chooses each substep's dt on the GPU from the state it steps.

use bytemuck::{Pod, Zeroable};

pub mod clock;
pub mod substep;

/// One particle as `p2g_gather` reads it. Mirrors `ScatterSource` in `shaders/mpm/types.wgsl`;
/// only the GPU reads and writes it, the host needs its size.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuScatterSource {
    /// Where the particle lies in its stencil (`Stencil::fraction`), in cells: [0.5, 1.5) per axis.
    pub fraction: [f32; 3],
    /// Mass, kg.
    pub mass: f32,
    /// Velocity, m/s.
    pub velocity: [f32; 3],
    /// 1 if every node's velocity is finite and within the speed cap and every fixed-point value
    /// within the contribution limit (`Scatter::bounded` in `scatter.wgsl`), else 0.
    pub bounded: u32,
    /// MLS-MPM affine momentum over mass, the velocity gradient (columns, each padded to four
    /// floats), 1/s.
    pub gradient: [[f32; 4]; 3],
}
