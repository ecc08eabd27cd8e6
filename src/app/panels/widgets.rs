//! Small widgets the panels share: hint lines and sliders that show their allowed range.

use std::ops::RangeInclusive;

use egui::{Color32, RichText, Slider, Ui};

use powder::scene::ranges::Tunable;

use crate::app::model::stats::short;

/// The colour of range hints and help lines: light enough to read on the dark theme's panel.
pub const HINT: Color32 = Color32::from_gray(175);

/// A hint line (allowed range, key help) at a readable small size.
pub fn hint(text: impl Into<String>) -> RichText {
    RichText::new(text).size(12.0).color(HINT)
}

/// A slider under its name and allowed range, `tip` shown on hovering either; returns whether it
/// changed. A value typed into its text box or dragged is clamped to the range; a value that came
/// from elsewhere (a scene file, `--set`) and lies outside it is shown as it is, not silently
/// changed.
pub fn slider(
    ui: &mut Ui,
    name: &str,
    unit: &str,
    value: &mut f64,
    range: RangeInclusive<f64>,
    log: bool,
    tip: &str,
) -> bool {
    let (lo, hi) = (*range.start(), *range.end());
    ui.horizontal(|ui| {
        ui.label(name).on_hover_text(tip);
        ui.label(hint(format!("{} … {} {unit}", short(lo), short(hi))));
    });
    let suffix = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    let slider = Slider::new(value, range).clamping(egui::SliderClamping::Edits).logarithmic(log).suffix(suffix);
    ui.add(slider).on_hover_text(tip).changed()
}

/// A [`slider`] over a tunable scene value's allowed range, in its unit and scale (the one table
/// scene validation and `--set` use too).
pub fn tunable(ui: &mut Ui, name: &str, range: &Tunable, value: &mut f64, tip: &str) -> bool {
    slider(ui, name, range.unit, value, range.control_range(), range.log, tip)
}
