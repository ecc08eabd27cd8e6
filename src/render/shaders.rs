//! The WGSL sources of the render passes and how they are put together.
//!
//! As for the MPM passes (`src/sim/shaders.rs`, which composes the passes of `src/sim/passes.rs`), a module is the concatenation of library files and
//! the pass's own file. Every pass starts with `render/types.wgsl` (shared structs, the frame
//! uniform, tone mapping); the draw passes add `render/lighting.wgsl` (the scene bindings of group 1:
//! particles and the density volume, the sky and the sun). `tests/render_shaders.rs` validates every
//! composed module with naga, without a GPU.

pub use crate::sim::shaders::PARTICLE;

/// The shared structs, the frame uniform and colour helpers (after [`PARTICLE`] in every module).
pub const TYPES: (&str, &str) = ("render/types.wgsl", include_str!("../../shaders/render/types.wgsl"));
/// Scene bindings (group 1) and lighting, used by the draw passes.
pub const LIGHTING: (&str, &str) = ("render/lighting.wgsl", include_str!("../../shaders/render/lighting.wgsl"));

/// The colour fields' scales and ramps (after [`TYPES`]; the draw passes after [`LIGHTING`]).
pub const COLORS: (&str, &str) = ("render/colors.wgsl", include_str!("../../shaders/render/colors.wgsl"));

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
    /// The app's 3D view texture copied into its rectangle of the window (no libraries).
    ViewBlit,
    /// Compute: the snow's surface extracted from the density volume; then its lit triangles.
    Surface,
    /// Compute: the field the surface is drawn from, raised so every particle lies inside it.
    SurfaceCover,
    /// Compute: one plane of the solver's grid nodes, one value per node (the grid view).
    GridView,
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
    pub const ALL: [RenderShader; 9] = [
        RenderShader::Environment,
        RenderShader::Particles,
        RenderShader::VolumeSplat,
        RenderShader::VolumeRaymarch,
        RenderShader::Mesh,
        RenderShader::ViewBlit,
        RenderShader::Surface,
        RenderShader::SurfaceCover,
        RenderShader::GridView,
    ];

    /// The stage's name: file stem and label suffix.
    pub fn name(self) -> &'static str {
        match self {
            RenderShader::Environment => "environment",
            RenderShader::Particles => "particles",
            RenderShader::VolumeSplat => "volume_splat",
            RenderShader::VolumeRaymarch => "volume_raymarch",
            RenderShader::Mesh => "mesh",
            RenderShader::ViewBlit => "view_blit",
            RenderShader::Surface => "surface",
            RenderShader::SurfaceCover => "surface_cover",
            RenderShader::GridView => "grid_view",
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
            RenderShader::ViewBlit => "render.view_blit",
            RenderShader::Surface => "render.surface",
            RenderShader::SurfaceCover => "render.surface_cover",
            RenderShader::GridView => "render.grid_view",
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
            RenderShader::ViewBlit => include_str!("../../shaders/render/view_blit.wgsl"),
            RenderShader::Surface => include_str!("../../shaders/render/surface.wgsl"),
            RenderShader::SurfaceCover => include_str!("../../shaders/render/surface_cover.wgsl"),
            RenderShader::GridView => include_str!("../../shaders/render/grid_view.wgsl"),
        }
    }

    /// The library files this stage includes, in order.
    pub fn libraries(self) -> &'static [(&'static str, &'static str)] {
        match self {
            RenderShader::VolumeSplat => &[PARTICLE, TYPES, COLORS],
            RenderShader::ViewBlit | RenderShader::GridView => &[],
            _ => &[PARTICLE, TYPES, LIGHTING, COLORS],
        }
    }

    /// The complete module from the embedded sources. `depth` only matters for
    /// [`RenderShader::VolumeRaymarch`], which declares its scene-depth texture through the alias
    /// `SceneDepth` defined here.
    pub fn composed_source(self, depth: DepthKind) -> String {
        self.composed_from(depth, &RenderSources::embedded())
    }

    /// The complete module from `sources` (embedded, or re-read from disk for hot reload).
    pub fn composed_from(self, depth: DepthKind, sources: &RenderSources) -> String {
        let mut text = String::new();
        for (path, _) in self.libraries() {
            text.push_str(sources.text(path));
            text.push('\n');
        }
        if self == RenderShader::VolumeRaymarch {
            text.push_str(match depth {
                DepthKind::Single => "alias SceneDepth = texture_depth_2d;\n",
                DepthKind::Multisampled => "alias SceneDepth = texture_depth_multisampled_2d;\n",
            });
        }
        text.push_str(sources.text(&self.path()));
        text
    }

    /// The stage's file, relative to `shaders/`.
    pub fn path(self) -> String {
        format!("render/{}.wgsl", self.name())
    }
}

/// The text of every file the render modules are made of, by path relative to `shaders/`.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSources {
    files: std::collections::BTreeMap<String, String>,
}

/// A render shader that failed to read, parse or validate, with naga's message.
#[derive(Debug, thiserror::Error)]
#[error("render shader {stage} failed to build:\n{message}")]
pub struct RenderShaderError {
    /// The stage (or file) at fault.
    pub stage: String,
    /// What went wrong, with source locations.
    pub message: String,
}

impl RenderSources {
    /// The copies compiled into the binary.
    pub fn embedded() -> Self {
        let libraries = [PARTICLE, TYPES, LIGHTING, COLORS].map(|(p, t)| (p.to_string(), t.to_string()));
        let stages = RenderShader::ALL.map(|s| (s.path(), s.source().to_string()));
        Self { files: libraries.into_iter().chain(stages).collect() }
    }

    /// Every file re-read from `dir` (the `shaders/` folder). An unreadable file is an error.
    pub fn read_from(dir: &std::path::Path) -> Result<Self, RenderShaderError> {
        let mut files = Self::embedded().files;
        for (path, text) in files.iter_mut() {
            let full = dir.join(path);
            *text = std::fs::read_to_string(&full)
                .map_err(|e| RenderShaderError { stage: path.clone(), message: format!("{}: {e}", full.display()) })?;
        }
        Ok(Self { files })
    }

    /// The text of `path` (relative to `shaders/`).
    pub fn text(&self, path: &str) -> &str {
        self.files.get(path).map_or("", String::as_str)
    }

    /// Parses and validates every stage's composed module (both depth kinds of the raymarch)
    /// with naga, as the device would, so a broken edit is reported instead of reaching the driver.
    pub fn validate(&self) -> Result<(), RenderShaderError> {
        use wgpu::naga;
        for stage in RenderShader::ALL {
            for depth in [DepthKind::Single, DepthKind::Multisampled] {
                let source = stage.composed_from(depth, self);
                let fail = |message| RenderShaderError { stage: stage.name().to_string(), message };
                let module = naga::front::wgsl::parse_str(&source).map_err(|e| fail(e.emit_to_string(&source)))?;
                naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
                    .validate(&module)
                    .map_err(|e| fail(e.emit_to_string(&source)))?;
            }
        }
        Ok(())
    }
}
