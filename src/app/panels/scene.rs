//! The Scene section: what is running, the scene files of the scenes folder and the built-in
//! scenes (click to load), a path to open (a scene file or a bare glTF model; dropping a file on
//! the window does the same), the colliders, and the animation controls when they move.

use std::path::{Path, PathBuf};

use egui::{RichText, Slider, Ui};

use crate::app::events::{AppEvent, SceneSource};
use crate::app::model::frame::Model;
use crate::app::model::stats::short;
use crate::app::panels::widgets::hint;
use crate::app::run::messages::Level;
use crate::app::run::presets::BUILTIN_SCENES;
use crate::app::run::scene_files::{scene_files, scene_folders};

/// What the Scene section keeps across frames.
#[derive(Default)]
pub struct ScenePanelState {
    /// The path being typed.
    path: String,
    /// The scene files found, scanned when the section is first drawn and on "Rescan".
    files: Option<Vec<PathBuf>>,
}

/// Draws the Scene section.
pub fn scene(ui: &mut Ui, model: &Model, state: &mut ScenePanelState, events: &mut Vec<AppEvent>) {
    ui.label(RichText::new(model.scene_name).strong());
    if !model.scene.name.is_empty() {
        ui.label(RichText::new(&model.scene.name).weak());
    }
    let watched = model.watched_files.len();
    if watched > 0 {
        let files = if watched == 1 { "its file changes".to_string() } else { format!("its {watched} files change") };
        ui.label(hint(format!("reloads when {files} on disk")))
            .on_hover_text(model.watched_files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join("\n"));
    }
    colliders(ui, model, events);
    ui.separator();
    open_path(ui, state, events);
    last_error(ui, model);
    let source = model.source;
    scene_list(ui, state, source, events);
    let loaded = match source {
        SceneSource::Builtin(name) => Some(*name),
        SceneSource::File(_) => None,
    };
    egui::ComboBox::from_label("built-in").selected_text(loaded.unwrap_or("load…")).show_ui(ui, |ui| {
        for (name, _) in BUILTIN_SCENES {
            if ui.selectable_label(loaded == Some(name), name).clicked() {
                events.push(AppEvent::LoadScene(SceneSource::Builtin(name)));
            }
        }
    });
}

/// The colliders and, when they move, play/hold and the time scrubber.
fn colliders(ui: &mut Ui, model: &Model, events: &mut Vec<AppEvent>) {
    let c = model.colliders;
    if c.count == 0 {
        return;
    }
    let names: Vec<&str> = model.scene.colliders.iter().map(|c| c.name.as_str()).filter(|n| !n.is_empty()).collect();
    let mut text = format!("{} collider{}", c.count, if c.count == 1 { "" } else { "s" });
    if !names.is_empty() {
        text += &format!(": {}", names.join(", "));
    }
    ui.label(text);
    if !c.animated {
        return;
    }
    ui.horizontal(|ui| {
        let label = if c.playing { "Hold animation" } else { "Play animation" };
        if ui.button(label).on_hover_text("the colliders stop or move; the snow simulates either way").clicked() {
            events.push(AppEvent::SetAnimationPlaying(!c.playing));
        }
        if ui.button("Rewind").on_hover_text("animation time back to 0").clicked() {
            events.push(AppEvent::SetAnimationTime(0.0));
        }
    });
    let range = c.range;
    ui.horizontal(|ui| {
        ui.label("animation time");
        ui.label(hint(format!("0 … {} s", short(range))));
    });
    let mut t = c.time;
    // The slider is clamped to the range; a looping clip runs past its end, shown as the end.
    let response =
        ui.add(Slider::new(&mut t, 0.0..=range).suffix(" s").max_decimals(2).clamping(egui::SliderClamping::Never));
    if response.changed() {
        events.push(AppEvent::SetAnimationTime(t.max(0.0)));
    }
}

/// The path field and its Open button (Enter in the field opens too).
fn open_path(ui: &mut Ui, state: &mut ScenePanelState, events: &mut Vec<AppEvent>) {
    ui.horizontal(|ui| {
        let field =
            egui::TextEdit::singleline(&mut state.path).hint_text("scene.json or model.glb").desired_width(170.0);
        let response = ui.add(field);
        let entered = response.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("Open").clicked() || entered) && !state.path.trim().is_empty() {
            events.push(AppEvent::LoadScene(SceneSource::File(PathBuf::from(state.path.trim()))));
        }
    });
    ui.label(hint("or drop a .json, .glb or .gltf file on the window (Open… above shows a file dialog)"));
}

/// The newest message, here as well as at the bottom of the panel, when it is an error: a scene
/// that did not open says why next to where it was asked for.
fn last_error(ui: &mut Ui, model: &Model) {
    if let Some(m) = model.messages.items().last().filter(|m| m.level == Level::Error) {
        ui.label(RichText::new(&m.text).color(egui::Color32::from_rgb(255, 110, 90)).small());
    }
}

/// The scene files of the scenes folders, one button each.
/// The loaded one is highlighted and marked.
fn scene_list(ui: &mut Ui, state: &mut ScenePanelState, source: &SceneSource, events: &mut Vec<AppEvent>) {
    let loaded = match source {
        SceneSource::File(path) => Some(canonical(path)),
        SceneSource::Builtin(_) => None,
    };
    let files = state.files.get_or_insert_with(|| scene_files(&scene_folders()));
    let mut rescan = false;
    egui::CollapsingHeader::new(format!("scene files ({})", files.len())).default_open(true).show(ui, |ui| {
        egui::ScrollArea::vertical().id_salt("scene_files").max_height(140.0).show(ui, |ui| {
            for path in files.iter() {
                let is_loaded = loaded.as_ref() == Some(&canonical(path));
                let label = if is_loaded { format!("{}  (loaded)", file_label(path)) } else { file_label(path) };
                if ui.selectable_label(is_loaded, label).on_hover_text(path.display().to_string()).clicked() {
                    events.push(AppEvent::LoadScene(SceneSource::File(path.clone())));
                }
            }
        });
        if files.is_empty() {
            ui.label(hint("no scenes/ folder found here or beside the binary"));
        }
        rescan = ui.small_button("Rescan").clicked();
    });
    if rescan {
        state.files = None;
    }
}

/// `path` with links and `..` resolved, to tell whether two names are the same file.
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// A scene file's name without its folder and extension.
fn file_label(path: &Path) -> String {
    path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned())
}
