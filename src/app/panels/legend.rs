//! Colour legends: what the particles' colour field means, in physical units, drawn under the
//! Render section's colour choice. The colours come from `powder::render::particles::color_ramps`,
//! the host copy of the shader's ramps.

use egui::{Color32, Rgba, Sense, Ui, vec2};

use powder::render::particles::color_ramps;
use powder::render::{ColorField, RenderSettings};

/// Width of a legend's colour bar in points; its height.
const BAR: (f32, f32) = (220.0, 12.0);

/// A linear albedo as an egui colour (egui encodes to sRGB).
pub fn color(albedo: glam::Vec3) -> Color32 {
    Rgba::from_rgb(albedo.x, albedo.y, albedo.z).into()
}

/// A horizontal bar of `color_at(t)` for t in 0..1, with labels under its left end, middle and
/// right end.
fn bar(ui: &mut Ui, color_at: impl Fn(f32) -> glam::Vec3, labels: [String; 3]) {
    ramp(ui, vec2(BAR.0, BAR.1), color_at);
    ui.horizontal(|ui| {
        ui.set_width(BAR.0);
        let [left, middle, right] = labels;
        ui.small(left);
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.small(right);
            ui.add_space(BAR.0 * 0.5 - 40.0);
            ui.small(middle);
        });
    });
}

/// A horizontal strip of `size` points painted `color_at(t)` for t from 0 (left) to 1 (right).
pub fn ramp(ui: &mut Ui, size: egui::Vec2, color_at: impl Fn(f32) -> glam::Vec3) {
    let (rect, _) = ui.allocate_exact_size(size, Sense::hover());
    let steps = 64;
    for k in 0..steps {
        let t0 = k as f32 / steps as f32;
        let t1 = (k + 1) as f32 / steps as f32;
        let slice = egui::Rect::from_x_y_ranges(
            rect.left() + t0 * rect.width()..=rect.left() + t1 * rect.width(),
            rect.y_range(),
        );
        ui.painter().rect_filled(slice, 0.0, color(color_at(0.5 * (t0 + t1))));
    }
}

/// The legend of the particles' colour field in `settings` (nothing for plain snow); `materials`
/// names the material of each material id (each emitter's).
pub fn color_legend(ui: &mut Ui, settings: &RenderSettings, materials: &[String]) {
    match settings.color_field {
        ColorField::Snow => {}
        ColorField::Speed => {
            let top = settings.speed_scale;
            ui.small("speed |v|, m/s");
            bar(ui, color_ramps::speed, ["0".into(), format!("{:.3}", 0.5 * top), format!("≥ {top:.3}")]);
        }
        ColorField::PlasticJacobian => {
            // The ramp is linear in 2 log₂ Jp over −1..1: Jp from 1/√2 to √2.
            ui.small("plastic volume ratio Jp (dimensionless)");
            let jp = |t: f32| 2f32.powf(t - 0.5);
            bar(
                ui,
                |t| color_ramps::plastic(jp(t)),
                ["≤ 0.707 compressed".into(), "1".into(), "≥ 1.414 stretched".into()],
            );
        }
        ColorField::Material => {
            ui.small("material (of the emitter that made the particle; colours repeat after 8)");
            for (id, name) in materials.iter().enumerate() {
                ui.horizontal(|ui| {
                    let (rect, _) = ui.allocate_exact_size(vec2(BAR.1, BAR.1), Sense::hover());
                    ui.painter().rect_filled(rect, 2.0, color(color_ramps::material(id as u32)));
                    ui.small(format!("emitter {id}: {name}"));
                });
            }
        }
    }
}
