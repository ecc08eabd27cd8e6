//! The window's GPU side: device and surface, the 3D view texture the scene renderer draws into
//! (shown by egui as an image in the central area), and each frame's submission and present.
//!
//! The view texture is stored as `Rgba8Unorm` and drawn through an `Rgba8UnormSrgb` view, so the
//! renderer writes sRGB-encoded bytes and egui, which expects gamma-space textures, shows them as
//! they are.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use thiserror::Error;
use winit::event_loop::ActiveEventLoop;
use winit::window::{Window, WindowAttributes};

use powder::gpu::{Gpu, GpuError};
use powder::render::view_blit::ViewBlit;
use powder::render::{FrameInputs, Renderer};

use crate::app::window::capture::{CaptureRequest, encode_copy, save as save_capture};
use crate::app::window::ui_layer::UiLayer;

/// The format the scene renderer draws in (view texture and screenshots).
pub const VIEW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The view texture's storage format; egui samples it through a view of this format.
const VIEW_STORAGE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Failures while opening the window or its GPU side.
#[derive(Debug, Error)]
pub enum GfxError {
    /// The window system refused the window.
    #[error("cannot open a window: {0} (is DISPLAY or WAYLAND_DISPLAY set?)")]
    Window(String),
    /// No surface for the window.
    #[error(
        "cannot create a Vulkan surface for the window ({0}); is a Vulkan driver installed? Without a \
         GPU driver run scripts/setup.sh (it installs Mesa's software driver, lavapipe)"
    )]
    Surface(String),
    /// No adapter that can present to the window.
    #[error(
        "no Vulkan GPU adapter can draw to this window ({0}). Without a GPU driver install Mesa's \
         software driver: run scripts/setup.sh (apt-get install mesa-vulkan-drivers libvulkan1)"
    )]
    NoAdapter(String),
    /// The adapter lacks a limit powder needs.
    #[error("the GPU adapter '{adapter}' is too limited: powder needs {limit} >= {needed}, it offers {offered}")]
    Limit {
        /// Adapter name.
        adapter: String,
        /// wgpu's name of the limit.
        limit: &'static str,
        /// What powder needs.
        needed: u64,
        /// What the adapter offers.
        offered: u64,
    },
    /// The device could not be created.
    #[error(transparent)]
    Gpu(#[from] GpuError),
}

/// The 3D view: a texture the scene renderer draws into and egui shows.
struct ViewTarget {
    size: (u32, u32),
    render_view: wgpu::TextureView,
}

/// Device, surface, egui renderer and scene renderer of the window.
pub struct Graphics {
    /// The window.
    pub window: Arc<Window>,
    /// Device and queue.
    pub gpu: Gpu,
    /// The first uncaptured GPU error, if any.
    gpu_error: Arc<Mutex<Option<String>>>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// False while the window has no area (minimised): nothing is configured or drawn.
    drawable: bool,
    egui_renderer: egui_wgpu::Renderer,
    /// egui's panels, kept while they look the same.
    ui_layer: UiLayer,
    /// The scene renderer (draws in [`VIEW_FORMAT`]).
    pub scene_renderer: Renderer,
    view: Option<ViewTarget>,
    /// The surface's textures can be copied out (captures of the window).
    can_capture: bool,
    /// A capture to take of the next frame drawn.
    capture: Option<CaptureRequest>,
    /// What became of the last capture: the file written, or why not.
    captured: Option<Result<PathBuf, String>>,
    /// A recorded frame to capture of the next frame drawn: kept apart from `capture` so that
    /// an F12 during a recording neither takes nor loses the recording's frame.
    record: Option<CaptureRequest>,
    /// What became of the last recorded frame's capture.
    recorded: Option<Result<PathBuf, String>>,
}

/// egui's paint callback for the 3D view: draws the view texture with [`ViewBlit`] (kept in the
/// egui renderer's callback resources) over the callback's rectangle. It has no `prepare`: the
/// frame draws callbacks without egui's `update_buffers` (see `ui_layer.rs`), so one would not run.
pub struct ViewPaint;

impl egui_wgpu::CallbackTrait for ViewPaint {
    fn paint(
        &self,
        _info: egui::PaintCallbackInfo,
        pass: &mut wgpu::RenderPass<'static>,
        resources: &egui_wgpu::CallbackResources,
    ) {
        if let Some(blit) = resources.get::<ViewBlit>() {
            blit.draw(pass);
        }
    }
}

/// What became of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presented {
    /// Shown.
    Yes,
    /// Skipped (surface outdated, lost, occluded or timed out); the surface was reconfigured where
    /// that helps, and the next frame tries again.
    Skipped,
}

impl Graphics {
    /// Opens the window and sets up the GPU for it: on the adapter `gpu` names (`--gpu`), or the
    /// best one that can draw to the window.
    pub fn new(
        event_loop: &ActiveEventLoop,
        attributes: WindowAttributes,
        gpu: Option<&powder::gpu::GpuChoice>,
    ) -> Result<Self, GfxError> {
        let window = Arc::new(event_loop.create_window(attributes).map_err(|e| GfxError::Window(e.to_string()))?);
        let instance = powder::gpu::vulkan_instance(wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
            event_loop.owned_display_handle(),
        )));
        let surface = instance.create_surface(window.clone()).map_err(|e| GfxError::Surface(e.to_string()))?;
        let adapter = match gpu {
            Some(choice) => {
                let adapter = powder::gpu::select_adapter(powder::gpu::adapters(&instance), choice)?;
                if !adapter.is_surface_supported(&surface) {
                    return Err(GfxError::NoAdapter(format!("'{}' cannot draw to it", adapter.get_info().name)));
                }
                adapter
            }
            None => pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface: Some(&surface),
                ..Default::default()
            }))
            .map_err(|e| GfxError::NoAdapter(e.to_string()))?,
        };
        check_limits(&adapter)?;
        let caps = surface.get_capabilities(&adapter);
        // egui blends in gamma space and expects a non-sRGB target; take one where offered.
        let format = caps.formats.iter().copied().find(|f| !f.is_srgb()).or_else(|| caps.formats.first().copied());
        let Some(format) = format else {
            return Err(GfxError::NoAdapter(format!("'{}' offers no surface format", adapter.get_info().name)));
        };
        let sample_count = Renderer::recommended_sample_count(&adapter.get_info());
        let gpu = Gpu::from_adapter(instance, adapter)?;
        // A validation error is a bug; it is reported as one clear message and the app stops,
        // instead of wgpu's default of panicking inside the event loop. Installed before any
        // pipeline is made, so a broken renderer shader is caught too.
        let gpu_error = Arc::new(Mutex::new(None));
        report_errors(&gpu, &gpu_error);
        let size = window.inner_size();
        // Copied out for captures of the window where the surface allows it.
        let can_capture = caps.usages.contains(wgpu::TextureUsages::COPY_SRC);
        let copy = if can_capture { wgpu::TextureUsages::COPY_SRC } else { wgpu::TextureUsages::empty() };
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | copy,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: wgpu::CompositeAlphaMode::Auto,
            view_formats: vec![],
        };
        let mut egui_renderer = egui_wgpu::Renderer::new(&gpu.device, format, egui_wgpu::RendererOptions::default());
        egui_renderer.callback_resources.insert(ViewBlit::new(&gpu.device, format, None));
        let scene_renderer = Renderer::new(&gpu.device, VIEW_FORMAT, sample_count);
        let ui_layer = UiLayer::new(&gpu.device, format);
        let mut gfx = Self {
            window,
            gpu,
            gpu_error,
            surface,
            config,
            drawable: false,
            egui_renderer,
            ui_layer,
            scene_renderer,
            view: None,
            can_capture,
            capture: None,
            captured: None,
            record: None,
            recorded: None,
        };
        gfx.resize(size.width, size.height);
        Ok(gfx)
    }

    /// Follows a new window size; a zero size stops drawing until the next non-zero one.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.drawable = width > 0 && height > 0;
        if self.drawable {
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(&self.gpu.device, &self.config);
        }
    }

    /// Reports `other`'s uncaptured errors (the simulation's own device) as the window's.
    pub fn watch_errors(&self, other: &Gpu) {
        report_errors(other, &self.gpu_error);
    }

    /// The first uncaptured GPU (validation) error, if one happened.
    pub fn gpu_error(&self) -> Option<String> {
        self.gpu_error.lock().ok()?.clone()
    }

    /// Whether the window has an area to draw into.
    pub fn drawable(&self) -> bool {
        self.drawable
    }

    /// Makes the 3D view texture `width` × `height` pixels (recreated on a change of size) and
    /// returns the egui shape that shows it over `rect` ([`ViewPaint`]).
    pub fn view_shape(&mut self, width: u32, height: u32, rect: egui::Rect) -> egui::Shape {
        let size = (width.max(1), height.max(1));
        if self.view.as_ref().is_none_or(|view| view.size != size) {
            let device = &self.gpu.device;
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("app.view"),
                size: wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: VIEW_STORAGE_FORMAT,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[VIEW_FORMAT],
            });
            let render_view =
                texture.create_view(&wgpu::TextureViewDescriptor { format: Some(VIEW_FORMAT), ..Default::default() });
            // Read through the storage format: the sRGB-encoded bytes, as the window shows them.
            let shown = texture.create_view(&Default::default());
            if let Some(blit) = self.egui_renderer.callback_resources.get_mut::<ViewBlit>() {
                blit.set_view(device, &shown);
            }
            self.scene_renderer.resize(device, size.0, size.1);
            self.view = Some(ViewTarget { size, render_view });
        }
        egui_wgpu::Callback::new_paint_callback(rect, ViewPaint).into()
    }

    /// Draws the scene into the view texture (if `scene` is given) and egui over the window, and
    /// presents. egui's texture changes are applied even when the frame is skipped.
    pub fn draw(&mut self, scene: Option<&FrameInputs>, egui_out: EguiFrame) -> Presented {
        let EguiFrame { primitives, mut textures, pixels_per_point } = egui_out;
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        if !textures.set.is_empty() {
            self.ui_layer.invalidate();
        }
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                self.egui_renderer.update_texture(device, queue, id, delta);
            }
        }
        let presented = self.draw_inner(scene, primitives, pixels_per_point);
        for id in textures.free.drain() {
            self.egui_renderer.free_texture(&id);
        }
        presented
    }

    fn draw_inner(
        &mut self,
        scene: Option<&FrameInputs>,
        primitives: Vec<egui::ClippedPrimitive>,
        pixels_per_point: f32,
    ) -> Presented {
        if !self.drawable {
            return Presented::Skipped;
        }
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) | wgpu::CurrentSurfaceTexture::Suboptimal(frame) => frame,
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Presented::Skipped;
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.recreate_surface();
                return Presented::Skipped;
            }
            other => {
                log::debug!("frame skipped: {other:?}");
                return Presented::Skipped;
            }
        };
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.frame") });
        if let (Some(inputs), Some(view)) = (scene, &self.view) {
            self.scene_renderer.render(device, queue, &mut encoder, &view.render_view, inputs);
        }
        let size = [self.config.width, self.config.height];
        let screen = egui_wgpu::ScreenDescriptor { size_in_pixels: size, pixels_per_point };
        // The panels are redrawn only when they changed; the 3D view (a paint callback) every frame.
        let callbacks = self.ui_layer.update(device, queue, &mut encoder, &mut self.egui_renderer, primitives, &screen);
        let target = frame.texture.create_view(&Default::default());
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("app.egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &target,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color { r: 0.1, g: 0.1, b: 0.12, a: 1.0 }),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            // Callbacks only: egui's renderer draws them without uploaded buffers. Nothing of the
            // panels lies under the view (its panel has no frame), so the layer goes on top.
            self.egui_renderer.render(&mut pass, &callbacks, &screen);
            self.ui_layer.composite(&mut pass);
        }
        let requests = [self.capture.take(), self.record.take()];
        let copies = requests.each_ref().map(|request| {
            request.as_ref().filter(|_| self.can_capture).map(|_| encode_copy(device, &mut encoder, &frame.texture))
        });
        let submission = queue.submit([encoder.finish()]);
        let (size, format, gpu) = ((frame.texture.width(), frame.texture.height()), self.config.format, &self.gpu);
        let finish = |request: Option<CaptureRequest>, copy: Option<wgpu::Buffer>| {
            let request = request?;
            Some(match copy {
                Some(buffer) => {
                    save_capture(gpu, &buffer, size, format, &request, &submission).map(|()| request.path.clone())
                }
                None => Err("this window's surface cannot be copied: no capture (F12 with the panel hidden saves \
                     the 3D view alone)"
                    .to_string()),
            })
        };
        let ([capture, record], [capture_copy, record_copy]) = (requests, copies);
        let (captured, recorded) = (finish(capture, capture_copy), finish(record, record_copy));
        self.captured = captured.or(self.captured.take());
        self.recorded = recorded.or(self.recorded.take());
        queue.present(frame);
        Presented::Yes
    }

    /// Captures the next frame drawn ([`CaptureRequest`]); [`Graphics::take_captured`] says how
    /// it went.
    pub fn capture_next(&mut self, request: CaptureRequest) {
        self.capture = Some(request);
    }

    /// The file the last capture wrote, or why it was not written, once.
    pub fn take_captured(&mut self) -> Option<Result<PathBuf, String>> {
        self.captured.take()
    }

    /// Whether the window's frames can be copied out: captures and recorded frames hold what is
    /// on screen only where they can.
    pub fn can_capture(&self) -> bool {
        self.can_capture
    }

    /// Captures the next frame drawn as a recorded frame; [`Graphics::take_recorded`] says how it
    /// went.
    pub fn record_next(&mut self, request: CaptureRequest) {
        self.record = Some(request);
    }

    /// The recorded frame's file written, or why not, once; `None` while no frame was drawn since
    /// [`Graphics::record_next`] (the request is then withdrawn: a frame not drawn is not
    /// recorded, and a later one gets its own number).
    pub fn take_recorded(&mut self) -> Option<Result<PathBuf, String>> {
        self.record = None;
        self.recorded.take()
    }

    fn recreate_surface(&mut self) {
        match self.gpu.instance.create_surface(self.window.clone()) {
            Ok(surface) => {
                self.surface = surface;
                self.surface.configure(&self.gpu.device, &self.config);
            }
            Err(e) => log::warn!("the window surface was lost and could not be recreated yet: {e}"),
        }
    }
}

/// Sends `gpu`'s uncaptured errors to `sink` (the first is kept) instead of wgpu's default of
/// panicking inside the event loop.
fn report_errors(gpu: &Gpu, sink: &Arc<Mutex<Option<String>>>) {
    let sink = sink.clone();
    gpu.device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        log::error!("GPU error: {e}");
        if let Ok(mut slot) = sink.lock() {
            slot.get_or_insert(e.to_string());
        }
    }));
}

/// What egui produced for one frame.
pub struct EguiFrame {
    /// Tessellated shapes.
    pub primitives: Vec<egui::ClippedPrimitive>,
    /// Font and image texture changes.
    pub textures: egui::TexturesDelta,
    /// Physical pixels per egui point.
    pub pixels_per_point: f32,
}

/// Fails with the first of WebGPU's default limits that `adapter` does not reach (the device is
/// then created with the adapter's own). The simulation needs more storage buffers per shader
/// stage than WebGPU's default of 8; [`Gpu::from_adapter`] checks that one.
fn check_limits(adapter: &wgpu::Adapter) -> Result<(), GfxError> {
    let offered = adapter.limits();
    let mut missing = None;
    wgpu::Limits::default().check_limits_with_fail_fn(&offered, false, |limit, needed, offered| {
        missing.get_or_insert((limit, needed, offered));
    });
    match missing {
        None => Ok(()),
        Some((limit, needed, offered)) => {
            Err(GfxError::Limit { adapter: adapter.get_info().name, limit, needed, offered })
        }
    }
}
