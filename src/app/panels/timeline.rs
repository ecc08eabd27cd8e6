//! The Timeline section: keeping recent frames on or off, the memory they may take, and a slider
//! that goes back to one of them.

use egui::{RichText, Slider, Ui};

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::run::timeline::MIB;

/// The budget the section offers first when keeping is switched on, MiB.
const DEFAULT_BUDGET_MIB: u64 = 256;

/// The Timeline section: keeping on or off, the budget and what it holds, and the frame slider.
pub fn panel(ui: &mut Ui, model: &Model, events: &mut Vec<AppEvent>) {
    let kept = model.timeline;
    let current = model.timeline_frame;
    let budget_mib = kept.budget_bytes() / MIB;
    let mut on = budget_mib > 0;
    if ui.checkbox(&mut on, "Keep recent frames to go back to").changed() {
        events.push(AppEvent::SetTimelineBudget(if on { DEFAULT_BUDGET_MIB } else { 0 }));
    }
    if !on {
        return;
    }
    let mut budget = budget_mib;
    let slider = Slider::new(&mut budget, 16..=8192).logarithmic(true).suffix(" MiB").text("memory");
    if ui.add(slider).changed() {
        events.push(AppEvent::SetTimelineBudget(budget));
    }
    let used = kept.bytes() as f64 / MIB as f64;
    let range = kept.range();
    let held = match range {
        Some((a, b)) => format!("{} frames kept ({a}…{b}), {used:.1} of {budget_mib} MiB", kept.len()),
        None => format!("no frame kept yet, {budget_mib} MiB"),
    };
    ui.label(RichText::new(held).small());
    ui.label(format!("frame {}", current));
    if let Some((a, b)) = range {
        let mut frame = current.clamp(a, b);
        if ui.add(Slider::new(&mut frame, a..=b).text("go back to")).changed() && frame != current {
            events.push(AppEvent::GoToFrame(frame));
        }
    }
}
