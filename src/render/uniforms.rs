//! The per-frame uniform block every render pass reads (group 0, binding 0), built on the host.
//!
//! [`GpuFrame`] is mirrored by `Frame` in `shaders/render/types.wgsl`; keep the two in sync.
//! `tests/render_shaders.rs` parses that file with naga and checks every member offset and the
//! struct size against this definition.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, UVec3, Vec3};

use super::frame::{ColorField, FrameInputs};

/// Largest number of voxels of the density volume along one axis.
pub const MAX_VOLUME_DIM: u32 = 128;
/// Voxel edge of the density volume in impostor radii at scale 1 (= half the particle spacing):
/// four radii are two particle spacings, one grid cell at 8 particles per cell, so a voxel holds
/// about eight particles and the splatted density is smooth.
pub const VOXEL_EDGE_IN_RADII: f32 = 4.0;
/// The particle scale below which impostors leave gaps between neighbours ([`GpuFrame::gap_radius`]).
pub const GAP_SCALE: f32 = 0.8;

/// The uniform block of one frame. Mirrors `Frame` in `shaders/render/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuFrame {
    /// World to clip, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// Clip to world.
    pub inv_view_proj: [[f32; 4]; 4],
    /// Camera position, metres.
    pub eye: [f32; 3],
    /// Exposure multiplier applied before tone mapping.
    pub exposure: f32,
    /// Unit vector toward the sun.
    pub sun_direction: [f32; 3],
    /// Impostor radius, metres (particle radius × particle scale).
    pub particle_radius: f32,
    /// Lower corner of the domain, metres.
    pub domain_min: [f32; 3],
    /// Speed at the top of the speed colour ramp, m/s.
    pub speed_scale: f32,
    /// Upper corner of the domain, metres.
    pub domain_max: [f32; 3],
    /// Multiplier of the splatted density in the volume view.
    pub density_scale: f32,
    /// Voxels of the density volume per axis.
    pub volume_dims: [u32; 3],
    /// Voxel edge, metres.
    pub volume_voxel: f32,
    /// Output size in pixels.
    pub viewport: [f32; 2],
    /// `2 tan(fov_y / 2) / height`: the size of one pixel at unit distance from the eye.
    pub pixel_angle: f32,
    /// [`ColorField`] code (`COLOR_*` in `types.wgsl`).
    pub color_field: u32,
    /// Particles to draw and splat.
    pub particle_count: u32,
    /// Edge of one ground checker tile, metres.
    pub ground_tile: f32,
    /// 1 when the density volume holds this frame's particles (shadows and the volume view).
    pub volume_valid: u32,
    /// Distance of the camera's far plane, metres: the ground plane is drawn out to it.
    pub far_distance: f32,
    /// The part of the ground the snow can shadow (min x, min y, max x, max y), metres: the domain's
    /// footprint and its projection along the sun onto the ground. Only there does the ground look
    /// its shadow up in the volume.
    pub ground_shadow_rect: [f32; 4],
    /// Impostors smaller than this radius, metres (0.8 of the particle radius, that is a particle
    /// scale below 0.8), leave gaps between neighbours to see deep into the snow through: then no
    /// particle counts as buried. Tied to the radius, not to the voxel, which is coarser than four
    /// radii where the volume's size cap applies.
    pub gap_radius: f32,
    /// Padding to the 16-byte size of a uniform block.
    pub _pad: [f32; 3],
}

impl ColorField {
    /// The value the shaders compare against (`COLOR_*` in `types.wgsl`).
    pub fn gpu_code(self) -> u32 {
        match self {
            ColorField::Snow => 0,
            ColorField::Speed => 1,
            ColorField::PlasticJacobian => 2,
            ColorField::Material => 3,
        }
    }
}

/// Voxel edge (metres) and voxel counts of the density volume over the domain: about one
/// simulation cell per voxel (see [`VOXEL_EDGE_IN_RADII`]), at most [`MAX_VOLUME_DIM`] per axis.
/// Degenerate inputs (a non-finite or empty domain, a zero radius) give a small valid volume.
pub fn volume_layout(domain_min: Vec3, domain_max: Vec3, particle_radius: f32) -> (f32, UVec3) {
    let size = domain_max - domain_min;
    if !size.is_finite() || size.min_element() <= 0.0 {
        return (1.0, UVec3::ONE);
    }
    let longest = size.max_element();
    let wanted = if particle_radius.is_finite() && particle_radius > 0.0 {
        VOXEL_EDGE_IN_RADII * particle_radius
    } else {
        longest / 64.0
    };
    let voxel = wanted.max(longest / MAX_VOLUME_DIM as f32);
    let dims = (size / voxel - 1e-3).ceil().clamp(Vec3::ONE, Vec3::splat(MAX_VOLUME_DIM as f32));
    (voxel, dims.as_uvec3())
}

/// A power of two near an eighth of the domain's longest edge: a few checker tiles per domain.
fn ground_tile(domain_min: Vec3, domain_max: Vec3) -> f32 {
    let longest = (domain_max - domain_min).max_element();
    if longest.is_finite() && longest > 0.0 { (longest / 8.0).log2().round().exp2() } else { 1.0 }
}

/// The far-plane distance of a right-handed perspective with depth 0..1 (glam's `perspective_rh`):
/// there `m22 = f / (n − f)` and `m32 = n f / (n − f)`, so `f = m32 / (1 + m22)`.
fn far_distance(projection: &Mat4) -> f32 {
    let far = projection.w_axis.z / (1.0 + projection.z_axis.z);
    if far.is_finite() && far > 0.0 { far } else { 1.0e4 }
}

/// Largest reach of a shadow across the ground, in domain extents (the longest edge): a low sun's
/// shadow is cut off there rather than making the shadowed rectangle, and its cost, unbounded.
const MAX_SHADOW_REACH: f32 = 4.0;

/// The ground the domain's contents can shadow: its footprint, grown along the sun's horizontal
/// direction (away from the sun) by the distance a shadow of the box's top travels to the ground,
/// plus a voxel's worth of margin. See [`GpuFrame::ground_shadow_rect`].
pub fn ground_shadow_rect(domain_min: Vec3, domain_max: Vec3, sun: Vec3) -> [f32; 4] {
    let size = domain_max - domain_min;
    if !size.is_finite() || size.min_element() <= 0.0 {
        return [0.0; 4];
    }
    let sun = sun.normalize_or(Vec3::Z);
    let extent = size.max_element();
    let reach = if sun.z > 1e-3 { (size.z / sun.z).min(MAX_SHADOW_REACH * extent) } else { MAX_SHADOW_REACH * extent };
    let shift = -glam::Vec2::new(sun.x, sun.y) * reach;
    let margin = 0.05 * extent;
    let lo = domain_min.truncate().min(domain_min.truncate() + shift) - margin;
    let hi = domain_max.truncate().max(domain_max.truncate() + shift) + margin;
    [lo.x, lo.y, hi.x, hi.y]
}

/// What the frame block needs besides the inputs.
pub struct FrameContext {
    /// Output size, pixels.
    pub size: (u32, u32),
    /// Unit vector toward the sun.
    pub sun_direction: Vec3,
    /// Whether the density volume is filled this frame.
    pub volume_valid: bool,
    /// Particles drawn (the input count clamped to the buffer).
    pub particle_count: u32,
}

impl GpuFrame {
    /// The uniform block for one frame.
    pub fn new(inputs: &FrameInputs, context: &FrameContext) -> Self {
        let (width, height) = (context.size.0.max(1) as f32, context.size.1.max(1) as f32);
        let camera = inputs.camera;
        let projection = camera.projection(width / height);
        let view_proj = projection * camera.view();
        let inv = view_proj.inverse();
        let settings = inputs.settings;
        let (voxel, dims) = volume_layout(inputs.domain_min, inputs.domain_max, inputs.particle_radius);
        let finite_or = |x: f32, fallback: f32| if x.is_finite() { x } else { fallback };
        Self {
            view_proj: view_proj.to_cols_array_2d(),
            inv_view_proj: if inv.is_finite() { inv } else { Mat4::IDENTITY }.to_cols_array_2d(),
            eye: camera.eye().to_array(),
            exposure: finite_or(settings.exposure, 1.0).max(0.0),
            sun_direction: context.sun_direction.normalize_or(Vec3::Z).to_array(),
            particle_radius: finite_or(inputs.particle_radius * settings.particle_scale, 0.0).max(0.0),
            domain_min: inputs.domain_min.to_array(),
            speed_scale: finite_or(settings.speed_scale, 1.0).max(1e-6),
            domain_max: inputs.domain_max.to_array(),
            density_scale: finite_or(settings.density_scale, 1.0).max(0.0),
            volume_dims: dims.to_array(),
            volume_voxel: voxel,
            viewport: [width, height],
            pixel_angle: 2.0 * (0.5 * camera.fov_y).tan() / height,
            color_field: settings.color_field.gpu_code(),
            particle_count: context.particle_count,
            ground_tile: ground_tile(inputs.domain_min, inputs.domain_max),
            volume_valid: u32::from(context.volume_valid),
            far_distance: far_distance(&projection),
            ground_shadow_rect: ground_shadow_rect(inputs.domain_min, inputs.domain_max, context.sun_direction),
            gap_radius: finite_or(GAP_SCALE * inputs.particle_radius, 0.0).max(0.0),
            _pad: [0.0; 3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_volume_follows_the_cells_and_is_capped() {
        // Default scene: 2 × 1 × 1 m, h = 1/32 m, radius h/4: one voxel per cell.
        let (voxel, dims) = volume_layout(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0), 1.0 / 128.0);
        assert!((voxel - 1.0 / 32.0).abs() < 1e-7);
        assert_eq!(dims, UVec3::new(64, 32, 32));
        let (voxel, dims) = volume_layout(Vec3::ZERO, Vec3::new(4.0, 1.0, 1.0), 1e-3);
        assert_eq!(dims, UVec3::new(128, 32, 32));
        assert!((voxel - 4.0 / 128.0).abs() < 1e-7);
        assert_eq!(volume_layout(Vec3::ZERO, Vec3::new(f32::NAN, 1.0, 1.0), 0.01).1, UVec3::ONE);
        assert_eq!(volume_layout(Vec3::ZERO, Vec3::ONE, 0.0).1, UVec3::splat(64));
    }

    #[test]
    fn the_far_plane_is_recovered_from_the_projection() {
        let camera = crate::render::camera::Camera { distance: 2.0, ..Default::default() };
        // camera.rs: far = distance · 100 + 10.
        assert!((far_distance(&camera.projection(1.5)) - 210.0).abs() < 0.05);
    }

    #[test]
    fn the_shadow_rect_holds_the_footprint_and_its_shadow() {
        // Sun 45° up toward +x: the top of a unit box shadows up to x = −1.
        let sun = Vec3::new(1.0, 0.0, 1.0).normalize();
        let [x0, y0, x1, y1] = ground_shadow_rect(Vec3::ZERO, Vec3::ONE, sun);
        assert!(x0 < -1.0 && x0 > -1.1 && x1 > 1.0 && x1 < 1.1, "{x0} {x1}");
        assert!(y0 < 0.0 && y1 > 1.0 && y0 > -0.1 && y1 < 1.1, "{y0} {y1}");
        // A grazing sun is capped.
        let [x0, ..] = ground_shadow_rect(Vec3::ZERO, Vec3::ONE, Vec3::new(1.0, 0.0, 1e-6));
        assert!(x0 >= -MAX_SHADOW_REACH - 0.1);
    }

    #[test]
    fn ground_tiles_are_powers_of_two() {
        assert_eq!(ground_tile(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0)), 0.25);
        assert_eq!(ground_tile(Vec3::ZERO, Vec3::ONE), 0.125);
    }
}
