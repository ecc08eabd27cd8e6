//! Drawing the simulation with wgpu: lit sphere impostors for particles, a raymarched density
//! volume, collider meshes, a sky gradient, the ground plane and the domain bounds. The same
//! [`Renderer`] draws into the window's surface and into an offscreen texture ([`offscreen`]) for
//! PNG output.
//!
//! One module per stage, named as its WGSL file under `shaders/render/` and its GPU labels
//! (`render.<name>`): [`volume_splat`] (particles → density volume, compute), [`particles`]
//! (culling and shading compute, then the impostor draw), [`environment`] (ground, sky, bounds),
//! [`mesh`] (collider meshes, set with [`Renderer::set_meshes`]) and [`volume_raymarch`].
//! [`uniforms`] holds the per-frame block shared with WGSL, [`shaders`] the composition of the WGSL
//! sources, [`bindings`] the shared bind group layouts, [`targets`] the MSAA and depth textures.
//! `docs/rendering.md` describes the passes and their cost on lavapipe.

pub mod bindings;
pub mod camera;
pub mod environment;
pub mod frame;
pub mod framing;
pub mod grid_quantity;
pub mod grid_view;
pub mod mesh;
pub mod offscreen;
pub mod particles;
mod renderer;
pub mod shaders;
pub mod surface;
pub mod surface_cpu;
pub mod surface_params;
pub mod targets;
pub mod uniforms;
pub mod view_blit;
pub mod volume_raymarch;
pub mod volume_splat;

pub use camera::Camera;
pub use frame::{ColorField, FrameInputs, RenderMode, RenderSettings};
pub use offscreen::{OffscreenTarget, RenderError};
pub use renderer::{DEFAULT_SUN_DIRECTION, Renderer, VOLUME_REUSE_VOXELS};
