//! A window that only clears itself and presents, with nothing of powder in it: the baseline for
//! the app's memory soak (docs/app.md, "Memory"). If this window's resident memory grows as the
//! app's does, the growth is the Vulkan driver's presentation, not powder's.
//!
//! `cargo run --release --example present_probe -- [SECONDS] [fifo|immediate|mailbox]` prints the
//! resident set size every second and exits after SECONDS (default 30).

use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

struct Probe {
    seconds: f64,
    mode: wgpu::PresentMode,
    state: Option<(Arc<Window>, wgpu::Surface<'static>, wgpu::Device, wgpu::Queue)>,
    start: Instant,
    next_print: f64,
    frames: u64,
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: 0 kB");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0)
}

impl ApplicationHandler for Probe {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        let attributes = Window::default_attributes().with_inner_size(winit::dpi::PhysicalSize::new(320, 240));
        let window = Arc::new(event_loop.create_window(attributes).expect("window"));
        let instance = powder::gpu::vulkan_instance(wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
            event_loop.owned_display_handle(),
        )));
        let surface = instance.create_surface(window.clone()).expect("surface");
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .expect("adapter");
        let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).expect("device");
        let caps = surface.get_capabilities(&adapter);
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format: caps.formats[0],
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: self.mode,
            desired_maximum_frame_latency: 2,
            alpha_mode: wgpu::CompositeAlphaMode::Auto,
            view_formats: vec![],
        };
        surface.configure(&device, &config);
        println!("adapter: {}, present mode {:?}", adapter.get_info().name, self.mode);
        window.request_redraw();
        self.state = Some((window, surface, device, queue));
        self.start = Instant::now();
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some((window, surface, device, queue)) = &self.state else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::RedrawRequested => {
                if let wgpu::CurrentSurfaceTexture::Success(frame) = surface.get_current_texture() {
                    let view = frame.texture.create_view(&Default::default());
                    let mut encoder = device.create_command_encoder(&Default::default());
                    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: None,
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: &view,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(wgpu::Color::BLUE),
                                store: wgpu::StoreOp::Store,
                            },
                        })],
                        depth_stencil_attachment: None,
                        timestamp_writes: None,
                        occlusion_query_set: None,
                        multiview_mask: None,
                    });
                    queue.submit([encoder.finish()]);
                    queue.present(frame);
                    self.frames += 1;
                }
                let t = self.start.elapsed().as_secs_f64();
                if t >= self.next_print {
                    println!("t={t:.0}s frames={} rss_kib={}", self.frames, rss_kib());
                    self.next_print += 1.0;
                }
                if t > self.seconds {
                    event_loop.exit();
                }
                window.request_redraw();
            }
            _ => {}
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds = args.next().and_then(|s| s.parse().ok()).unwrap_or(30.0);
    let mode = match args.next().as_deref() {
        Some("immediate") => wgpu::PresentMode::Immediate,
        Some("mailbox") => wgpu::PresentMode::Mailbox,
        _ => wgpu::PresentMode::Fifo,
    };
    let event_loop = EventLoop::new().expect("event loop");
    let mut probe = Probe { seconds, mode, state: None, start: Instant::now(), next_print: 0.0, frames: 0 };
    event_loop.run_app(&mut probe).expect("event loop");
}
