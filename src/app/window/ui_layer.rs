//! The UI layer: egui's panels drawn into a texture of the window's size and kept there while
//! they look the same, so that a frame whose panels did not change only lays that texture over
//! the window instead of rasterising the panels' few thousand triangles again.
//!
//! On lavapipe the side panel's text and widgets took about 10 ms of a frame, almost all of it
//! per triangle (an empty panel of the same area cost about 1 ms), while the panel changes only
//! when the user touches it or the Stats section refreshes (`stats_panel::REFRESH`).
//!
//! The layer holds what egui draws over a transparent background: premultiplied colour, with
//! egui's own blend equation making its alpha the coverage. Laying it over the 3D view with
//! premultiplied-alpha blending gives the picture egui would have drawn directly, up to the 8-bit
//! rounding of semi-transparent pixels. Only the rectangle the meshes cover is composited.

use egui::epaint::{ClippedPrimitive, Primitive};
use powder::render::view_blit::ViewBlit;

/// What the layer's texture holds.
struct Drawn {
    /// Screen size, pixels.
    size: [u32; 2],
    /// Physical pixels per egui point.
    pixels_per_point: f32,
    /// The mesh primitives drawn, in order.
    meshes: Vec<ClippedPrimitive>,
    /// Pixels they cover: x, y, width, height (empty: nothing to composite).
    bounds: [u32; 4],
}

impl Drawn {
    /// Whether drawing `meshes` at this size and scale would give the same pixels.
    fn matches(&self, size: [u32; 2], pixels_per_point: f32, meshes: &[ClippedPrimitive]) -> bool {
        self.size == size
            && self.pixels_per_point == pixels_per_point
            && self.meshes.len() == meshes.len()
            && self.meshes.iter().zip(meshes).all(|(a, b)| {
                a.clip_rect == b.clip_rect
                    && matches!((&a.primitive, &b.primitive), (Primitive::Mesh(x), Primitive::Mesh(y)) if x == y)
            })
    }
}

/// egui's meshes cached in a texture, and the pipeline that lays it over the window.
pub struct UiLayer {
    /// `view_blit` with premultiplied-alpha blending, reading the layer's texture.
    blit: ViewBlit,
    /// The window surface's format, which egui's pipeline draws in.
    format: wgpu::TextureFormat,
    /// The texture and its view.
    texture: Option<(wgpu::Texture, wgpu::TextureView)>,
    /// What the texture holds; `None` when it must be drawn.
    drawn: Option<Drawn>,
}

/// egui's primitives split into its meshes (the panels, cached in the layer) and its paint
/// callbacks (the 3D view, drawn every frame under the layer).
fn split(primitives: Vec<ClippedPrimitive>) -> (Vec<ClippedPrimitive>, Vec<ClippedPrimitive>) {
    primitives.into_iter().partition(|p| matches!(p.primitive, Primitive::Mesh(_)))
}

impl UiLayer {
    /// A layer for a window surface of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let blit = ViewBlit::new(device, format, Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING));
        Self { blit, format, texture: None, drawn: None }
    }

    /// Forgets the cached pixels (egui changed a texture they were drawn from).
    pub fn invalidate(&mut self) {
        self.drawn = None;
    }

    /// Takes a frame's egui primitives: records drawing its meshes into the layer with egui's
    /// renderer unless the layer already holds them at this size and scale, and returns its paint
    /// callbacks, which the frame draws under the layer.
    pub fn update(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut egui_wgpu::Renderer,
        primitives: Vec<ClippedPrimitive>,
        screen: &egui_wgpu::ScreenDescriptor,
    ) -> Vec<ClippedPrimitive> {
        let (meshes, callbacks) = split(primitives);
        let held =
            self.drawn.as_ref().is_some_and(|d| d.matches(screen.size_in_pixels, screen.pixels_per_point, &meshes));
        if !held {
            self.redraw(device, queue, encoder, renderer, meshes, screen);
        }
        callbacks
    }

    /// Records drawing `meshes` (mesh primitives only) into the layer with egui's renderer, after
    /// uploading them with it; the texture is made or remade at the screen's size.
    fn redraw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &mut egui_wgpu::Renderer,
        meshes: Vec<ClippedPrimitive>,
        screen: &egui_wgpu::ScreenDescriptor,
    ) {
        let size = screen.size_in_pixels;
        if self.texture.as_ref().is_none_or(|(t, _)| [t.width(), t.height()] != size) {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("app.ui_layer"),
                size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: self.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            });
            let view = texture.create_view(&Default::default());
            self.blit.set_view(device, &view);
            self.texture = Some((texture, view));
        }
        let Some((_, view)) = &self.texture else { return };
        // Paint callbacks are not in `meshes`, so no callback's `prepare` runs here.
        let commands = renderer.update_buffers(device, queue, encoder, &meshes, screen);
        debug_assert!(commands.is_empty(), "mesh primitives record no callback commands");
        let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("app.ui_layer"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        renderer.render(&mut pass.forget_lifetime(), &meshes, screen);
        let bounds = pixel_bounds(&meshes, screen);
        self.drawn = Some(Drawn { size, pixels_per_point: screen.pixels_per_point, meshes, bounds });
    }

    /// Lays the layer over the pass's target (the window, of the size it was drawn at).
    pub fn composite(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(drawn) = &self.drawn else { return };
        let [x, y, w, h] = drawn.bounds;
        if w == 0 || h == 0 {
            return;
        }
        pass.set_viewport(0.0, 0.0, drawn.size[0] as f32, drawn.size[1] as f32, 0.0, 1.0);
        pass.set_scissor_rect(x, y, w, h);
        self.blit.draw(pass);
        pass.set_scissor_rect(0, 0, drawn.size[0], drawn.size[1]);
    }
}

/// The pixel rectangle (x, y, width, height) that covers every mesh within its clip rectangle,
/// rounded outward and kept inside the screen; all zero when nothing is drawn.
fn pixel_bounds(meshes: &[ClippedPrimitive], screen: &egui_wgpu::ScreenDescriptor) -> [u32; 4] {
    let mut points = egui::Rect::NOTHING;
    for p in meshes {
        if let Primitive::Mesh(m) = &p.primitive {
            let clipped = m.calc_bounds().intersect(p.clip_rect);
            // A mesh wholly outside its clip rectangle draws nothing.
            if clipped.is_positive() {
                points = points.union(clipped);
            }
        }
    }
    if !points.is_positive() {
        return [0; 4];
    }
    let ppp = screen.pixels_per_point;
    let [sw, sh] = screen.size_in_pixels;
    let x0 = ((points.min.x * ppp).floor().max(0.0) as u32).min(sw);
    let y0 = ((points.min.y * ppp).floor().max(0.0) as u32).min(sh);
    let x1 = ((points.max.x * ppp).ceil().max(0.0) as u32).min(sw);
    let y1 = ((points.max.y * ppp).ceil().max(0.0) as u32).min(sh);
    [x0, y0, x1.saturating_sub(x0), y1.saturating_sub(y0)]
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use egui::epaint::Mesh;

    use super::*;

    fn quad(rect: egui::Rect, clip: egui::Rect) -> ClippedPrimitive {
        let mut mesh = Mesh::default();
        mesh.add_colored_rect(rect, egui::Color32::WHITE);
        ClippedPrimitive { clip_rect: clip, primitive: Primitive::Mesh(mesh) }
    }

    #[test]
    fn bounds_cover_the_clipped_meshes_in_whole_pixels() {
        let screen = egui_wgpu::ScreenDescriptor { size_in_pixels: [200, 100], pixels_per_point: 2.0 };
        let all = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(100.0, 50.0));
        let a = quad(egui::Rect::from_min_max(egui::pos2(1.2, 2.0), egui::pos2(10.0, 20.25)), all);
        // Clipped to x ≤ 30 points; the mesh would reach 60.
        let clip = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(30.0, 50.0));
        let b = quad(egui::Rect::from_min_max(egui::pos2(20.0, 5.0), egui::pos2(60.0, 8.0)), clip);
        // Points × 2: x from floor(2.4) = 2 to 60, y from 4 to ceil(40.5) = 41.
        assert_eq!(pixel_bounds(&[a.clone(), b], &screen), [2, 4, 58, 37]);
        // Beyond the screen: kept inside it.
        let c = quad(egui::Rect::from_min_max(egui::pos2(90.0, 40.0), egui::pos2(150.0, 80.0)), egui::Rect::EVERYTHING);
        assert_eq!(pixel_bounds(&[c], &screen), [180, 80, 20, 20]);
        assert_eq!(pixel_bounds(&[], &screen), [0; 4]);
        // A mesh clipped away entirely adds nothing.
        let hidden = quad(egui::Rect::from_min_max(egui::pos2(50.0, 5.0), egui::pos2(60.0, 8.0)), clip);
        assert_eq!(pixel_bounds(&[a.clone(), hidden], &screen), [2, 4, 18, 37]);
        // Meshes go to the layer, callbacks to the frame.
        let callback = ClippedPrimitive {
            clip_rect: all,
            primitive: Primitive::Callback(egui::epaint::PaintCallback { rect: all, callback: Arc::new(()) }),
        };
        let (meshes, callbacks) = split(vec![a.clone(), callback, a]);
        assert_eq!((meshes.len(), callbacks.len()), (2, 1));
        assert!(matches!(callbacks[0].primitive, Primitive::Callback(_)));
    }

    #[test]
    fn the_layer_is_kept_only_for_the_same_meshes_size_and_scale() {
        let all = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(100.0, 50.0));
        let a = quad(egui::Rect::from_min_max(egui::pos2(1.0, 2.0), egui::pos2(10.0, 20.0)), all);
        let drawn = Drawn { size: [200, 100], pixels_per_point: 2.0, meshes: vec![a.clone()], bounds: [2, 4, 18, 36] };
        assert!(drawn.matches([200, 100], 2.0, std::slice::from_ref(&a)));
        assert!(!drawn.matches([201, 100], 2.0, std::slice::from_ref(&a)), "resized");
        assert!(!drawn.matches([200, 100], 1.0, std::slice::from_ref(&a)), "rescaled");
        assert!(!drawn.matches([200, 100], 2.0, &[]), "hidden");
        assert!(!drawn.matches([200, 100], 2.0, &[a.clone(), a.clone()]), "one more mesh");
        // One vertex's colour differs (a hovered button), or the clip rectangle does.
        let mut hovered = a.clone();
        if let Primitive::Mesh(m) = &mut hovered.primitive {
            m.vertices[0].color = egui::Color32::RED;
        }
        assert!(!drawn.matches([200, 100], 2.0, &[hovered]));
        let clipped =
            ClippedPrimitive { clip_rect: egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(5.0, 5.0)), ..a };
        assert!(!drawn.matches([200, 100], 2.0, &[clipped]));
    }
}
