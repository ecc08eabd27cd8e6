//! What a frame draws and how: the render mode, the colour field, the settings the Render panel
//! changes and the inputs of one frame. In a file of their own so that the stages
//! ([`super::renderer`], [`super::uniforms`]) name them here rather than through the parent that
//! declares those stages.

use glam::Vec3;

use super::camera::Camera;
use crate::sim::particles::ParticleBuffers;

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// The snow's surface, extracted from the density volume and shaded.
    #[default]
    Surface,
    /// Sphere impostors only.
    Particles,
    /// The raymarched density volume only.
    Volume,
    /// Both.
    Both,
}

/// Which particle field colours the impostors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorField {
    /// White snow shading.
    #[default]
    Snow,
    /// Speed, blue (still) to red (`max_speed` of the colour scale).
    Speed,
    /// Plastic volume ratio Jp: compressed (Jp < 1) one colour, stretched (Jp > 1) another.
    PlasticJacobian,
    /// Material id (emitter index), a distinct colour each.
    Material,
}

impl RenderMode {
    /// Every mode, in menu order.
    pub const ALL: [RenderMode; 4] = [RenderMode::Surface, RenderMode::Particles, RenderMode::Volume, RenderMode::Both];
    /// The modes' names on the command line and in scene files, in [`RenderMode::ALL`]'s order.
    pub const NAMES: [&'static str; 4] = ["surface", "particles", "volume", "both"];

    /// The mode's name ([`RenderMode::NAMES`]).
    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&m| m == self).unwrap_or(0)]
    }

    /// The mode called `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().position(|&n| n == name).map(|k| Self::ALL[k])
    }
}

impl ColorField {
    /// Every colour field, in menu order.
    pub const ALL: [ColorField; 4] =
        [ColorField::Snow, ColorField::Speed, ColorField::PlasticJacobian, ColorField::Material];
}

/// Settings the user changes live in the Render panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderSettings {
    /// Particles, volume or both.
    pub mode: RenderMode,
    /// Colour field of the impostors.
    pub color_field: ColorField,
    /// Impostor radius as a multiple of half the particle spacing.
    pub particle_scale: f32,
    /// Exposure multiplier of the final image.
    pub exposure: f32,
    /// Multiplier of the splatted density in the volume view.
    pub density_scale: f32,
    /// Speed (m/s) shown at the top of the speed colour scale.
    pub speed_scale: f32,
    /// Pixels rendered per window pixel along each axis, in (0, 1]: the app draws its 3D view at
    /// this fraction of the window's size and lets the texture filter upscale it. Below 1 on
    /// software adapters, where fragment work is expensive. Screenshots
    /// are always rendered at full size.
    pub resolution_scale: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        Self {
            mode: RenderMode::Surface,
            color_field: ColorField::Snow,
            particle_scale: 1.0,
            exposure: 1.0,
            density_scale: 1.0,
            speed_scale: 10.0,
            resolution_scale: 1.0,
        }
    }
}

/// Everything one frame draws.
pub struct FrameInputs<'a> {
    /// The viewpoint.
    pub camera: &'a Camera,
    /// Render settings.
    pub settings: &'a RenderSettings,
    /// The solver's particle streams, page by page ([`crate::sim::Solver::particle_pages`]).
    pub particles: Vec<&'a ParticleBuffers>,
    /// Number of particles to draw: the first this many over the pages, in order.
    pub particle_count: u32,
    /// Half the particle spacing, in metres: the radius of an impostor at scale 1.
    pub particle_radius: f32,
    /// Lower corner of the simulation domain.
    pub domain_min: Vec3,
    /// Upper corner of the simulation domain.
    pub domain_max: Vec3,
    /// An estimate, in metres, of how far any particle moved since the previous frame this
    /// renderer drew, or `None` when unknown (new particles, a tool or collider pushing them). The density
    /// volume is splatted again only once these bounds, summed since its last splat, reach
    /// [`super::VOLUME_REUSE_VOXELS`] of a voxel; `None` always splats.
    pub moved: Option<f32>,
}
