//! What the user must see, drawn over the 3D view's bottom left corner rather than at the bottom of
//! the side panel's scroll: the simulation running behind real time (with its factor), and recent
//! messages (a save's file, a refused edit, a screenshot's or recording's result, errors).

use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};

use crate::app::model::stats::RealTimeLine;
use crate::app::run::messages::{Level, Messages};

/// How long an info message stays over the view: long enough to read a path.
pub const INFO_SHOWN: Duration = Duration::from_secs(8);
/// How long an error stays over the view: longer, it says what did not happen.
pub const ERROR_SHOWN: Duration = Duration::from_secs(20);

/// The colour of an error, and of the behind-real-time warning.
const ERROR: Color32 = Color32::from_rgb(255, 110, 90);
const WARNING: Color32 = Color32::from_rgb(255, 170, 60);

/// One line over the view.
#[derive(Clone, Debug, PartialEq)]
pub struct OverlayLine {
    /// The text.
    pub text: String,
    /// Shown as a warning or an error (coloured) rather than as information.
    pub alarm: bool,
}

/// The lines over the view at `now`: the real-time line while the simulation runs behind real
/// time, then the messages still within their time ([`INFO_SHOWN`], [`ERROR_SHOWN`]), oldest
/// first.
pub fn overlay_lines(real_time: Option<&RealTimeLine>, messages: &Messages, now: Instant) -> Vec<OverlayLine> {
    let mut lines = Vec::new();
    if let Some(line) = real_time.filter(|l| l.behind) {
        lines.push(OverlayLine { text: line.text.clone(), alarm: true });
    }
    for m in messages.items() {
        let shown = if m.level == Level::Error { ERROR_SHOWN } else { INFO_SHOWN };
        if now.saturating_duration_since(m.at) < shown {
            lines.push(OverlayLine { text: m.text.clone(), alarm: m.level == Level::Error });
        }
    }
    lines
}

/// Draws `lines` in the bottom left corner of `view` (the 3D view's rectangle), on a dark frame
/// so they read over white snow.
pub fn draw(ui: &mut Ui, view: egui::Rect, lines: &[OverlayLine]) {
    if lines.is_empty() {
        return;
    }
    let width = (view.width() - 24.0).clamp(100.0, 640.0);
    egui::Area::new(egui::Id::unique("view messages"))
        .fixed_pos(view.left_bottom() + egui::vec2(12.0, -12.0))
        .pivot(egui::Align2::LEFT_BOTTOM)
        .interactable(false)
        .show(ui.ctx(), |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(width);
                for line in lines {
                    let text = RichText::new(&line.text);
                    let color = if line.text.starts_with("behind real time") { WARNING } else { ERROR };
                    ui.label(if line.alarm { text.color(color) } else { text });
                }
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The behind-real-time warning and a save's path are over the view; an old info message
    /// is gone, an error of the same age stays.
    #[test]
    fn what_the_user_must_see_is_over_the_view() {
        let mut messages = Messages::default();
        messages.info("scene saved to /tmp/scene_edited_001.json");
        messages.error("grid resolution 4 refused");
        let behind =
            RealTimeLine { text: "behind real time: 0.0089× — try grid 24³".into(), behind: true, fix: Some(24) };
        let lines = overlay_lines(Some(&behind), &messages, Instant::now());
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "behind real time: 0.0089× — try grid 24³",
                "scene saved to /tmp/scene_edited_001.json",
                "grid resolution 4 refused"
            ]
        );
        assert_eq!(lines.iter().map(|l| l.alarm).collect::<Vec<_>>(), [true, false, true]);
        let later = Instant::now() + INFO_SHOWN + Duration::from_secs(1);
        let texts: Vec<String> = overlay_lines(Some(&behind), &messages, later).into_iter().map(|l| l.text).collect();
        assert_eq!(texts, ["behind real time: 0.0089× — try grid 24³", "grid resolution 4 refused"]);
        let on_time = RealTimeLine { text: "real time: 1.02×".into(), behind: false, fix: None };
        assert!(overlay_lines(Some(&on_time), &Messages::default(), Instant::now()).is_empty());
    }
}
