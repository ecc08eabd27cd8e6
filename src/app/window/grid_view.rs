//! The grid view in the app: a plane through the simulation grid (mass, speed, collider distance,
//! Jp or stress per node, optionally with arrows of the velocity in the plane), shown
//! in the 3D view's top right corner with a legend in physical units, and its controls under the
//! Render section.
//!
//! The plane is computed on the simulation's device by `powder::render::grid_view` (only while no
//! batch of substeps is in flight, so it is the grid of a finished batch) and its copy (a few
//! kilobytes) comes back without waiting: the copy and its mapping are started on one frame, and
//! the device is polled, never waited for, on the following frames until the plane is there. It
//! is read again a few times a second while the simulation advances, and whenever its settings or
//! the simulation's state change.

use egui::{Color32, ColorImage, TextureHandle, TextureOptions, Ui, vec2};

use powder::collider::field::FAR;
use powder::gpu::Gpu;
use powder::render::camera::Camera;
use powder::render::grid_view::{GridQuantity, GridView, PendingSlice, SliceImage};
use powder::render::particles::color_ramps;
use powder::sim::Solver;
use powder::sim::params::GridSpec;

use crate::app::events::GridViewSettings;
use crate::app::panels::legend::{color, ramp};
use crate::app::run::messages::Messages;

/// How often a shown plane is read again while the simulation runs.
const REFRESH: std::time::Duration = std::time::Duration::from_millis(250);
/// The longer side of the shown plane, in points.
const SIDE: f32 = 260.0;
/// Colour of nodes without snow (zero mass or speed), so empty nodes stand out from slow ones.
const EMPTY: Color32 = Color32::from_rgb(24, 24, 28);

/// The view's pipeline, its settings and the last plane read.
#[derive(Default)]
pub struct GridViewPanel {
    /// What to show.
    pub settings: GridViewSettings,
    view: Option<GridView>,
    shown: Option<Shown>,
    read_at: Option<std::time::Instant>,
    /// The simulation's clock (simulated seconds, substeps) when the plane was last read: it is
    /// read again only once the simulation advanced past it (or something else changed).
    read_state: Option<(f64, u64)>,
    /// The plane on its way to the host, started at the last read.
    pending: Option<PendingSlice>,
}

/// The last plane read, its texture and its colour scale's ends.
struct Shown {
    image: SliceImage,
    texture: TextureHandle,
    scale: (f32, f32),
}

impl GridViewPanel {
    /// Takes new settings; the plane is read again at the next chance.
    pub fn set(&mut self, settings: GridViewSettings) {
        self.settings = settings;
        self.invalidate();
    }

    /// The simulation changed otherwise than by stepping (a reset, a new scene or grid, a frame
    /// gone back to): the plane is read again at the next chance, and one on its way is dropped
    /// (it shows what is no longer there).
    pub fn invalidate(&mut self) {
        (self.read_at, self.read_state, self.pending) = (None, None, None);
    }

    /// Takes the plane on its way once it is back (polling the device without waiting), then
    /// starts a new read when one is due, the simulation advanced since the last read (its clock
    /// `state`: simulated seconds and substeps) and has no batch in flight (`busy`): a paused or
    /// waiting simulation costs no readbacks.
    pub fn update(
        &mut self,
        gpu: &Gpu,
        solver: &Solver,
        (busy, state): (bool, (f64, u64)),
        ctx: &egui::Context,
        messages: &mut Messages,
    ) {
        if !self.settings.on {
            (self.shown, self.pending) = (None, None);
            return;
        }
        if let Some(pending) = &self.pending {
            if !pending.ready() {
                gpu.poll(None, None);
            }
            // One read at a time: a new one starts once this one is back.
            let Some(read) = pending.take() else { return };
            self.pending = None;
            self.show(read, ctx, messages);
        }
        if busy || self.read_state == Some(state) || self.read_at.is_some_and(|t| t.elapsed() < REFRESH) {
            return;
        }
        (self.read_at, self.read_state) = (Some(std::time::Instant::now()), Some(state));
        let view = self.view.get_or_insert_with(|| GridView::new(&gpu.device));
        self.pending = Some(view.start_read(gpu, solver, self.settings.slice));
    }

    /// Shows a plane read back, or turns the view off with a message where the read failed.
    fn show(&mut self, read: Result<SliceImage, powder::gpu::GpuError>, ctx: &egui::Context, messages: &mut Messages) {
        match read {
            Ok(image) => {
                let (scale, empty) = scale(&image);
                let pixels = colored(&image, scale, empty);
                match &mut self.shown {
                    // The texture is updated in place rather than made anew at every refresh.
                    Some(shown) => {
                        shown.texture.set(pixels, TextureOptions::NEAREST);
                        (shown.image, shown.scale) = (image, scale);
                    }
                    None => {
                        let texture = ctx.load_texture("grid view", pixels, TextureOptions::NEAREST);
                        self.shown = Some(Shown { image, texture, scale });
                    }
                }
            }
            Err(e) => {
                messages.error(format!("grid view: {e}"));
                self.settings.on = false;
            }
        }
    }

    /// Draws the last plane read and its legend in the top right corner of `view` (the 3D view's
    /// rectangle), and the plane's outline where it lies in the scene seen by `camera` on `grid`.
    pub fn overlay(&self, ui: &mut Ui, view: egui::Rect, camera: &Camera, grid: &GridSpec) {
        let Some(Shown { image, texture, scale: ends }) = self.shown.as_ref().filter(|_| self.settings.on) else {
            return;
        };
        outline(ui.painter(), view, camera, image.slice.corners(grid));
        let scale = SIDE / image.width.max(image.height) as f32;
        let size = vec2(image.width as f32 * scale, image.height as f32 * scale);
        let area =
            egui::Rect::from_min_size(view.right_top() + vec2(-size.x - 12.0, 12.0), vec2(size.x, size.y + 86.0));
        ui.scope_builder(egui::UiBuilder::new().max_rect(area), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                let drawn = ui.add(egui::Image::new((texture.id(), size))).rect;
                let longest = self.settings.arrows.then(|| arrows(ui.painter(), image, drawn));
                legend(ui, image, *ends, size.x);
                if let Some(longest) = longest {
                    ui.small(format!("arrows: velocity in the plane, longest {longest:.3} m/s"));
                }
            });
        });
    }
}

/// The plane's outline in the scene: its four corners joined, with a mark at its node (0, 0), the
/// image's lower left corner. Corners behind the eye leave the outline out.
fn outline(painter: &egui::Painter, view: egui::Rect, camera: &Camera, corners: [glam::DVec3; 4]) {
    let points: Option<Vec<egui::Pos2>> =
        corners.iter().map(|c| crate::app::window::input::project(camera, view, c.as_vec3())).collect();
    let Some(points) = points else { return };
    let painter = painter.with_clip_rect(view);
    let stroke = egui::Stroke::new(1.5, OUTLINE);
    painter.add(egui::Shape::closed_line(points.clone(), stroke));
    painter.circle_filled(points[0], 3.0, OUTLINE);
}

/// The plane's outline colour in the scene.
const OUTLINE: Color32 = Color32::from_rgb(255, 196, 40);

/// The colour scale of a plane: its ends, and whether a node's value means "nothing here" (no
/// mass, no speed, no collider near, no particle's stencil). Mass and speed start at 0; the
/// distance, Jp and stress span the plane's values.
fn scale(image: &SliceImage) -> ((f32, f32), impl Fn(f32) -> bool) {
    let quantity = image.slice.quantity;
    // NaN counts as empty too; the water's cells are empty only past its grid (NaN).
    let shown = move |v: f32| match quantity {
        GridQuantity::ColliderDistance => v.abs() < 0.5 * FAR,
        q if q.water() => v.is_finite(),
        _ => v > 0.0,
    };
    let values = image.values.iter().copied().filter(|&v| shown(v));
    let (low, top) = values.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (low, top) = if low <= top { (low, top) } else { (0.0, 0.0) };
    let from_zero = matches!(image.slice.quantity, GridQuantity::Mass | GridQuantity::Speed);
    (if from_zero { (0.0, top) } else { (low, top) }, move |v: f32| !shown(v))
}

/// The plane's colour: `color_ramps::speed` from the scale's low to its high end, `empty` nodes
/// dark; v upward.
fn colored(image: &SliceImage, (low, top): (f32, f32), empty: impl Fn(f32) -> bool) -> ColorImage {
    let span = (top - low).max(f32::MIN_POSITIVE);
    let (w, h) = (image.width as usize, image.height as usize);
    let mut pixels = Vec::with_capacity(w * h);
    for row in 0..h {
        let v = h - 1 - row;
        for u in 0..w {
            let value = image.values[u + w * v];
            pixels.push(if empty(value) { EMPTY } else { color(color_ramps::speed((value - low) / span)) });
        }
    }
    ColorImage::new([w, h], pixels)
}

/// Screen points between arrows, at least: one arrow per this many points of the plane.
const ARROW_SPACING: f32 = 14.0;

/// Nodes lighter than this part of the plane's heaviest node get no arrow: at the snow's edge a
/// node holds a few fixed-point units of mass, and its velocity (momentum over that mass) is
/// noise, often clamped to the speed limit.
const ARROW_MASS: f32 = 0.01;

/// Draws the in-plane velocity of every few nodes of `image` (shown in `rect`, v upward) as an
/// arrow from the node's centre, the fastest arrow as long as the spacing between arrows; only
/// nodes holding at least [`ARROW_MASS`] of the heaviest node's mass count. Returns the fastest
/// in-plane speed among them (m/s).
fn arrows(painter: &egui::Painter, image: &SliceImage, rect: egui::Rect) -> f32 {
    let speed = |f: [f32; 2]| (f[0] * f[0] + f[1] * f[1]).sqrt();
    let heaviest = image.mass.iter().copied().filter(|m| m.is_finite()).fold(0.0f32, f32::max);
    let counted = |k: usize| image.mass[k] >= ARROW_MASS * heaviest && image.mass[k] > 0.0;
    let longest = (0..image.flow.len())
        .filter(|&k| counted(k))
        .map(|k| speed(image.flow[k]))
        .filter(|s| s.is_finite())
        .fold(0.0f32, f32::max);
    if longest <= 0.0 {
        return 0.0;
    }
    let node = rect.width() / image.width as f32;
    let every = (ARROW_SPACING / node).ceil().max(1.0) as u32;
    let length = every as f32 * node * 0.9 / longest;
    let stroke = egui::Stroke::new(1.5, Color32::WHITE);
    for v in (every / 2..image.height).step_by(every as usize) {
        for u in (every / 2..image.width).step_by(every as usize) {
            let k = (u + image.width * v) as usize;
            let f = image.flow[k];
            if !counted(k) || speed(f).is_nan() || speed(f) < 0.02 * longest {
                continue;
            }
            let centre = rect.left_bottom() + vec2((u as f32 + 0.5) * node, -(v as f32 + 0.5) * node);
            painter.arrow(centre, vec2(f[0], -f[1]) * length, stroke);
        }
    }
    longest
}

/// The colour bar over the plane's scale `(low, top)` (0 to the largest value; the collider
/// distance's smallest to largest), labelled in the quantity's unit, and where the plane lies.
fn legend(ui: &mut Ui, image: &SliceImage, (low, top): (f32, f32), width: f32) {
    let (name, unit) = image.slice.quantity.label();
    ramp(ui, vec2(width, 10.0), color_ramps::speed);
    ui.horizontal(|ui| {
        ui.set_width(width);
        ui.small(if low == 0.0 { "0".to_string() } else { format!("{low:.3e}") });
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| ui.small(format!("{top:.3e} {unit}")));
    });
    let axis = ["x", "y", "z"][image.slice.axis as usize];
    ui.small(format!("{name}, {unit}; plane {axis} = {:.3} m", image.position));
}
