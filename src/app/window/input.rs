//! Mouse and keyboard: camera moves on the 3D view (applied at once, they are not simulation
//! state), tool gestures and key commands (sent as events).
//!
//! Left drag orbits, middle drag or Shift + left drag pans, the wheel zooms; right drag grabs snow
//! (Ctrl + right drag repels). Keys act only while no text field has the keyboard.

use egui::{Key, PointerButton, Rect, Response, Ui};
use glam::{Vec2, Vec3};

use powder::render::Camera;

use crate::app::events::{AppEvent, ViewRay};
use crate::app::run::tool::Tool;

/// Radians of orbit per point of drag.
const ORBIT_PER_POINT: f32 = 0.008;
/// Zoom exponent per point of wheel scroll.
const ZOOM_PER_POINT: f32 = 0.002;

/// The world ray through `pointer` (egui points) on a view occupying `rect`.
pub fn view_ray(camera: &Camera, rect: Rect, pointer: egui::Pos2) -> ViewRay {
    let ndc = Vec2::new(
        (pointer.x - rect.min.x) / rect.width().max(1.0) * 2.0 - 1.0,
        1.0 - (pointer.y - rect.min.y) / rect.height().max(1.0) * 2.0,
    );
    let (origin, direction) = camera.ray(ndc, rect.aspect_ratio().max(1e-3));
    let forward = (camera.target - camera.eye()).normalize_or(Vec3::X);
    ViewRay { origin, direction, forward }
}

/// Where `point` (world) lands in the view occupying `rect`, in egui points; `None` behind the eye
/// ([`Camera::project_to_pixels`]).
pub fn project(camera: &Camera, rect: Rect, point: Vec3) -> Option<egui::Pos2> {
    let at = camera.project_to_pixels(point, Vec2::new(rect.width(), rect.height()))?;
    Some(rect.min + egui::vec2(at.x, at.y))
}

/// The held tool's sphere as the circle it covers on screen: centre and radius in points.
pub fn tool_circle(camera: &Camera, rect: Rect, center: Vec3, radius: f32) -> Option<(egui::Pos2, f32)> {
    let at = project(camera, rect, center)?;
    // A point one radius away across the view (perpendicular to the line of sight).
    let forward = (center - camera.eye()).normalize_or(Vec3::X);
    let across = forward.cross(Vec3::Z).normalize_or(Vec3::X);
    let edge = project(camera, rect, center + across * radius)?;
    Some((at, at.distance(edge)))
}

/// Camera moves and tool gestures on the 3D view whose response is `response`, and the held
/// tool drawn as a circle where it acts (green: grab, orange: repel).
pub fn view(ui: &Ui, response: &Response, camera: &mut Camera, tool: &Tool, events: &mut Vec<AppEvent>) {
    let (tool_held, repel_default) = (tool.is_held(), tool.settings.repel);
    if let Some((center, radius, repel)) = tool.sphere()
        && let Some((at, r)) = tool_circle(camera, response.rect, center, radius)
    {
        let color = if repel { egui::Color32::from_rgb(255, 150, 60) } else { egui::Color32::from_rgb(110, 230, 140) };
        let painter = ui.painter().with_clip_rect(response.rect);
        painter.circle_stroke(at, r, egui::Stroke::new(2.0, color));
        painter.circle_filled(at, 2.5, color);
    }
    let rect = response.rect;
    let (shift, ctrl) = ui.input(|i| (i.modifiers.shift, i.modifiers.command || i.modifiers.ctrl));
    let delta = response.drag_delta();
    let panning = response.dragged_by(PointerButton::Middle) || (response.dragged_by(PointerButton::Primary) && shift);
    if panning {
        // Pan so the point under the cursor follows it: a point of view height spans
        // 2·tan(fov/2)·distance / height metres at the target's depth.
        let per_point = 2.0 * (0.5 * camera.fov_y).tan() / rect.height().max(1.0);
        camera.pan(-delta.x * per_point, delta.y * per_point);
    } else if response.dragged_by(PointerButton::Primary) {
        camera.orbit(-delta.x * ORBIT_PER_POINT, delta.y * ORBIT_PER_POINT);
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            camera.zoom((-scroll * ZOOM_PER_POINT).exp());
        }
    }
    let (pressed, released, moved, pointer) = ui.input(|i| {
        (
            i.pointer.button_pressed(PointerButton::Secondary),
            i.pointer.button_released(PointerButton::Secondary),
            i.pointer.delta() != egui::Vec2::ZERO,
            i.pointer.latest_pos(),
        )
    });
    let Some(pointer) = pointer else { return };
    if pressed
        && response.hovered()
        && let Some(preset) = tool.settings.drop
    {
        events.push(AppEvent::DropBlob { ray: view_ray(camera, rect, pointer), preset });
    } else if pressed && response.hovered() {
        events.push(AppEvent::ToolStart { ray: view_ray(camera, rect, pointer), repel: repel_default || ctrl });
    } else if tool_held && released {
        events.push(AppEvent::ToolEnd);
    } else if tool_held && moved {
        events.push(AppEvent::ToolMove(view_ray(camera, rect, pointer)));
    }
}

/// The command of a key pressed with `modifiers`: Ctrl chords for the file and history commands
/// (Ctrl + any other key does nothing), plain keys for the rest.
pub fn key_command(key: Key, modifiers: egui::Modifiers) -> Option<AppEvent> {
    if modifiers.command || modifiers.ctrl {
        return match key {
            Key::Z if modifiers.shift => Some(AppEvent::Redo),
            Key::Z => Some(AppEvent::Undo),
            Key::Y => Some(AppEvent::Redo),
            Key::S => Some(AppEvent::SaveDialog),
            Key::O => Some(AppEvent::OpenDialog),
            _ => None,
        };
    }
    Some(match key {
        Key::Space => AppEvent::TogglePause,
        Key::S => AppEvent::Step,
        Key::R => AppEvent::Reset,
        Key::F => AppEvent::FrameSnow,
        Key::Home => AppEvent::FrameDomain,
        Key::H => AppEvent::ToggleUi,
        Key::F5 => AppEvent::ReloadShaders,
        Key::F12 if modifiers.shift => AppEvent::CaptureWindow,
        Key::F12 => AppEvent::Screenshot(None),
        Key::F9 => AppEvent::ToggleRecording,
        Key::Escape => AppEvent::Quit,
        _ => return None,
    })
}

/// Whether a key press goes to the widget that has the keyboard rather than to a command: Ctrl
/// chords only while a text field has it (there Ctrl+Z undoes typing; right after dragging a
/// slider, which keeps the focus, Ctrl+Z undoes the drag); plain keys while a text field has it,
/// and Space and Enter while any widget has it (they press a focused button). Any other key
/// works after any other widget: a combo box keeps the focus after its choice, and Esc, F12 or R
/// must still work then.
pub fn key_taken(key: Key, chord: bool, text_focused: bool, widget_focused: bool) -> bool {
    if chord || text_focused {
        return text_focused;
    }
    widget_focused && matches!(key, Key::Space | Key::Enter)
}

/// Key commands ([`key_command`]) for the keys no widget takes ([`key_taken`]).
pub fn keys(ui: &Ui, events: &mut Vec<AppEvent>) {
    let ctx = ui.ctx();
    let (text_focused, widget_focused) = (ctx.text_edit_focused(), ctx.egui_wants_keyboard_input());
    // Each key press with the modifiers it came with: on a slow frame Ctrl may be pressed and
    // released within one frame, so the frame's final modifier state would turn Ctrl+S into S.
    let pressed: Vec<(Key, egui::Modifiers)> = ui.input(|i| {
        i.events
            .iter()
            .filter_map(|e| match e {
                egui::Event::Key { key, pressed: true, repeat: false, modifiers, .. } => Some((*key, *modifiers)),
                _ => None,
            })
            .collect()
    });
    for (key, modifiers) in pressed {
        let chord = modifiers.command || modifiers.ctrl;
        if key_taken(key, chord, text_focused, widget_focused) {
            continue;
        }
        events.extend(key_command(key, modifiers));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_chords_are_file_and_history_commands_and_never_the_plain_key() {
        let ctrl = egui::Modifiers::CTRL;
        let ctrl_shift = egui::Modifiers { shift: true, ..ctrl };
        assert_eq!(key_command(Key::S, ctrl), Some(AppEvent::SaveDialog));
        assert_eq!(key_command(Key::S, egui::Modifiers::NONE), Some(AppEvent::Step));
        assert_eq!(key_command(Key::Z, ctrl), Some(AppEvent::Undo));
        assert_eq!(key_command(Key::Z, ctrl_shift), Some(AppEvent::Redo));
        assert_eq!(key_command(Key::Y, ctrl), Some(AppEvent::Redo));
        assert_eq!(key_command(Key::O, egui::Modifiers::COMMAND), Some(AppEvent::OpenDialog));
        assert_eq!(key_command(Key::R, ctrl), None, "Ctrl+R must not reset");
        assert_eq!(key_command(Key::F9, egui::Modifiers::NONE), Some(AppEvent::ToggleRecording));
        assert_eq!(key_command(Key::F12, egui::Modifiers::SHIFT), Some(AppEvent::CaptureWindow));
        assert_eq!(key_command(Key::F12, egui::Modifiers::NONE), Some(AppEvent::Screenshot(None)));
    }

    /// After a combo box was used (it keeps the focus: a widget has the keyboard, no text field
    /// does) Esc still quits and R still resets; Space stays with a focused button; a text field
    /// keeps every plain key and Ctrl+Z.
    #[test]
    fn keys_work_after_any_widget_but_a_text_field() {
        assert!(!key_taken(Key::Escape, false, false, true), "Esc after a dropdown");
        assert!(!key_taken(Key::R, false, false, true));
        assert!(!key_taken(Key::F12, false, false, true));
        assert!(key_taken(Key::Space, false, false, true), "Space presses the focused button");
        assert!(key_taken(Key::Escape, false, true, true), "typing in a text field");
        assert!(key_taken(Key::Z, true, true, true), "Ctrl+Z undoes typing");
        assert!(!key_taken(Key::Z, true, false, true), "Ctrl+Z after a slider drag undoes the drag");
        assert!(!key_taken(Key::Escape, false, false, false));
    }

    /// The circle of a sphere at the camera's target is centred in the view, and its radius is
    /// the sphere's angular size: r / (distance · tan(fov/2)) of half the view's height.
    #[test]
    fn the_tool_circle_sits_where_the_sphere_projects() {
        let camera = Camera::default();
        let rect = Rect::from_min_size(egui::pos2(100.0, 0.0), egui::vec2(800.0, 600.0));
        let (at, r) = tool_circle(&camera, rect, camera.target, 0.1).expect("in front");
        assert!((at - rect.center()).length() < 1e-3, "{at:?}");
        let expected = 0.1 / (camera.distance * (0.5 * camera.fov_y).tan()) * 300.0;
        // f32 projection of points a few metres away: well within 0.1 % of the radius.
        assert!((r - expected).abs() < 1e-3 * expected, "{r} vs {expected}");
        assert!(tool_circle(&camera, rect, camera.eye() - (camera.target - camera.eye()), 0.1).is_none());
    }
}
