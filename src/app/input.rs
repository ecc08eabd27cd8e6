//! Mouse and keyboard: camera moves on the 3D view (applied at once, they are not simulation
//! state), tool gestures and key commands (sent as events).
//!
//! Left drag orbits, middle drag or Shift + left drag pans, the wheel zooms; right drag grabs snow
//! (Ctrl + right drag repels). Keys act only while no text field has the keyboard.

use egui::{Key, PointerButton, Rect, Response, Ui};
use glam::Vec2;

use powder::render::Camera;

use super::events::{AppEvent, ViewRay};

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
    let forward = (camera.target - camera.eye()).normalize_or(glam::Vec3::X);
    ViewRay { origin, direction, forward }
}

/// Camera moves and tool gestures on the 3D view whose response is `response`.
/// `tool_held` says whether a grab is in progress, `repel_default` whether right drag repels.
pub fn view(
    ui: &Ui,
    response: &Response,
    camera: &mut Camera,
    tool_held: bool,
    repel_default: bool,
    events: &mut Vec<AppEvent>,
) {
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
    if pressed && response.hovered() {
        events.push(AppEvent::ToolStart { ray: view_ray(camera, rect, pointer), repel: repel_default || ctrl });
    } else if tool_held && released {
        events.push(AppEvent::ToolEnd);
    } else if tool_held && moved {
        events.push(AppEvent::ToolMove(view_ray(camera, rect, pointer)));
    }
}

/// Key commands, unless a text field has the keyboard.
pub fn keys(ui: &Ui, events: &mut Vec<AppEvent>) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    let bindings = [
        (Key::Space, AppEvent::TogglePause),
        (Key::S, AppEvent::Step),
        (Key::R, AppEvent::Reset),
        (Key::F, AppEvent::FrameSnow),
        (Key::Home, AppEvent::FrameDomain),
        (Key::H, AppEvent::ToggleUi),
        (Key::F5, AppEvent::ReloadShaders),
        (Key::F12, AppEvent::Screenshot(None)),
        (Key::Escape, AppEvent::Quit),
    ];
    ui.input(|i| {
        for (key, event) in bindings {
            if i.key_pressed(key) {
                events.push(event);
            }
        }
    });
}
