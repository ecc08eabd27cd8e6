//! The row of commands at the top of the side panel: undo and redo, open and save, screenshot and
//! recording, each with its key, and where screenshots and recordings went.

use egui::{Color32, RichText, Ui};

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::panels::widgets::hint;

/// Draws the command rows.
pub fn toolbar(ui: &mut Ui, model: &Model, events: &mut Vec<AppEvent>) {
    ui.horizontal_wrapped(|ui| {
        let undo = model.window.next_undo;
        let button = ui.add_enabled(undo.is_some(), egui::Button::new("Undo"));
        if button.on_hover_text(format!("Ctrl+Z: undo {}", undo.unwrap_or("(nothing to undo)"))).clicked() {
            events.push(AppEvent::Undo);
        }
        let redo = model.window.next_redo;
        let button = ui.add_enabled(redo.is_some(), egui::Button::new("Redo"));
        if button
            .on_hover_text(format!("Ctrl+Shift+Z or Ctrl+Y: redo {}", redo.unwrap_or("(nothing to redo)")))
            .clicked()
        {
            events.push(AppEvent::Redo);
        }
        if ui.button("Open…").on_hover_text("Ctrl+O: open a scene file or a glTF model").clicked() {
            events.push(AppEvent::OpenDialog);
        }
        let tip = "Ctrl+S: save the scene with its edited material, simulation, render and camera settings";
        if ui.button("Save…").on_hover_text(tip).clicked() {
            events.push(AppEvent::SaveDialog);
        }
    });
    ui.horizontal_wrapped(|ui| {
        let folder = &model.window.screenshot_folder;
        let tip = format!("F12: the 3D view as shown (overlays included) as PNG into {}", folder.display());
        if ui.button("Screenshot").on_hover_text(tip).clicked() {
            events.push(AppEvent::Screenshot(None));
        }
        let tip = format!("Shift+F12: the whole window, panel included, as PNG into {}", folder.display());
        if ui.button("Window").on_hover_text(tip).clicked() {
            events.push(AppEvent::CaptureWindow);
        }
        let recording = model.window.recording;
        let label = if recording {
            RichText::new("Stop recording").color(Color32::from_rgb(255, 110, 90))
        } else {
            RichText::new("Record")
        };
        let tip = "F9: record the 3D view to numbered PNG frames (an mp4 too when ffmpeg is installed)";
        if ui.button(label).on_hover_text(tip).clicked() {
            events.push(AppEvent::ToggleRecording);
        }
    });
    if let Some(path) = model.window.last_screenshot {
        ui.label(hint(format!("screenshot: {}", path.display())));
    }
    if let Some((folder, frames)) = model.window.recorded {
        let state = if model.window.recording { "recording" } else { "recorded" };
        ui.label(hint(format!("{state} {frames} frames: {}", folder.display())));
    }
}
