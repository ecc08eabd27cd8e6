//! The WGSL sources of the render passes and how they are put together.
//!
//! As for the MPM passes (`src/sim/shaders.rs`), a module is the concatenation of library files and
//! the pass's own file. Every pass starts with `render/types.wgsl` (shared structs, the frame
//! uniform, tone mapping); the draw passes add `render/lighting.wgsl` (the scene bindings of group 1:
//! particles and the density volume, the sky and the sun). `tests/render_shaders.rs` validates every
//! composed module with naga, without a GPU.

pub use crate::sim::shaders::PARTICLE;

/// The shared structs, the frame uniform and colour helpers (after [`PARTICLE`] in every module).
pub const TYPES: (&str, &str) = ("render/types.wgsl", include_str!("../../shaders/render/types.wgsl"));
/// Scene bindings (group 1) and lighting, used by the draw passes.
pub const LIGHTING: (&str, &str) = ("render/lighting.wgsl", include_str!("../../shaders/render/lighting.wgsl"));

/// One render stage. The same name is the WGSL file, the Rust module that records it and the GPU
/// debug label (`render.<name>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderShader {
    /// Sky gradient, ground plane and domain bounds.
    Environment,
    /// Lit sphere impostors.
    Particles,
    /// Compute: particles into the fixed-point density grid, then into the volume texture.
    VolumeSplat,
    /// Full-screen raymarch of the density volume.
    VolumeRaymarch,
    /// Collider meshes, flat-shaded.
    Mesh,
}

/// How the volume raymarch reads the scene depth: a plain or a multisampled depth texture,
/// chosen by the renderer's sample count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthKind {
    /// `texture_depth_2d` (one sample per pixel).
    Single,
    /// `texture_depth_multisampled_2d` (MSAA; sample 0 is read).
    Multisampled,
}

impl RenderShader {
    /// Every stage.
    pub const ALL: [RenderShader; 5] = [
        RenderShader::Environment,
        RenderShader::Particles,
        RenderShader::VolumeSplat,
        RenderShader::VolumeRaymarch,
        RenderShader::Mesh,
    ];

    /// The stage's name: file stem and label suffix.
    pub fn name(self) -> &'static str {
        match self {
            RenderShader::Environment => "environment",
            RenderShader::Particles => "particles",
            RenderShader::VolumeSplat => "volume_splat",
            RenderShader::VolumeRaymarch => "volume_raymarch",
            RenderShader::Mesh => "mesh",
        }
    }

    /// The GPU debug label.
    pub fn label(self) -> &'static str {
        match self {
            RenderShader::Environment => "render.environment",
            RenderShader::Particles => "render.particles",
            RenderShader::VolumeSplat => "render.volume_splat",
            RenderShader::VolumeRaymarch => "render.volume_raymarch",
            RenderShader::Mesh => "render.mesh",
        }
    }

    /// The stage's own WGSL source.
    pub fn source(self) -> &'static str {
        match self {
            RenderShader::Environment => include_str!("../../shaders/render/environment.wgsl"),
            RenderShader::Particles => include_str!("../../shaders/render/particles.wgsl"),
            RenderShader::VolumeSplat => include_str!("../../shaders/render/volume_splat.wgsl"),
            RenderShader::VolumeRaymarch => include_str!("../../shaders/render/volume_raymarch.wgsl"),
            RenderShader::Mesh => include_str!("../../shaders/render/mesh.wgsl"),
        }
    }

    /// The library files this stage includes, in order.
    pub fn libraries(self) -> &'static [(&'static str, &'static str)] {
        match self {
            RenderShader::VolumeSplat => &[PARTICLE, TYPES],
            _ => &[PARTICLE, TYPES, LIGHTING],
        }
    }

    /// The complete module. `depth` only matters for [`RenderShader::VolumeRaymarch`], which
    /// declares its scene-depth texture through the alias `SceneDepth` defined here.
    pub fn composed_source(self, depth: DepthKind) -> String {
        let mut text = String::new();
        for (_, library) in self.libraries() {
            text.push_str(library);
            text.push('\n');
        }
        if self == RenderShader::VolumeRaymarch {
            text.push_str(match depth {
                DepthKind::Single => "alias SceneDepth = texture_depth_2d;\n",
                DepthKind::Multisampled => "alias SceneDepth = texture_depth_multisampled_2d;\n",
            });
        }
        text.push_str(self.source());
        text
    }
}
