//! Timed actions for tests (`--script`, hidden from `--help`): resizing the window to tiny sizes,
//! a simulated 0×0 resize, minimising and restoring, screenshots, and a few of the requests the
//! panels send (load a scene or model, reload it, change the grid, drop a ball, reset, pause, hold, play or
//! scrub the colliders' animation, toggle the side panel), and losing the GPU device.
//! `drop=PATH` sends what a file dropped on the window sends.
//!
//! Syntax: `SECONDS:ACTION` items separated by `;`, seconds counted from the first drawn frame:
//! `0.5:size=120x90; 1:resize-event=0x0; 1.5:minimize; 2:restore; 2.5:size=640x480; 3:screenshot=a.png`.
//! Actions run in time order even while the window is minimised (no frames are drawn then).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::app::events::{AppEvent, GridViewSettings, SceneSource, ViewRay};
use powder::render::grid_view::GridQuantity;

/// One parsed item.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptStep {
    /// When, after the first drawn frame.
    pub at: Duration,
    /// What.
    pub event: AppEvent,
}

/// Parses a script; the error names the item and what is accepted.
pub fn parse(text: &str) -> Result<Vec<ScriptStep>, String> {
    let mut steps = Vec::new();
    for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let fail = |why: &str| {
            format!(
                "--script item {item:?}: {why}; expected SECONDS:ACTION with ACTION one of size=WxH, \
                 resize-event=WxH, minimize, restore, screenshot=PATH, load=SCENE, drop=FILE, reload, grid=N, ball=PRESET@X,Y, reset, \
                 pause, panel, anim-hold, anim-play, anim-time=SECONDS, lose-device, grid-view[=QUANTITY], quit"
            )
        };
        let (time, action) = item.split_once(':').ok_or_else(|| fail("no ':'"))?;
        let seconds: f64 = time.trim().parse().map_err(|_| fail("the time is not a number"))?;
        if !(0.0..=3600.0).contains(&seconds) {
            return Err(fail("the time must be within [0, 3600] seconds"));
        }
        let (name, arg) = match action.split_once('=') {
            Some((n, a)) => (n.trim(), Some(a.trim())),
            None => (action.trim(), None),
        };
        let size = |arg: Option<&str>| -> Result<(u32, u32), String> {
            let (w, h) = arg.and_then(|a| a.split_once('x')).ok_or_else(|| fail("the size must be WxH"))?;
            let n = |s: &str| s.trim().parse::<u32>().ok().filter(|v| *v <= 16384);
            n(w).zip(n(h)).ok_or_else(|| fail("the size must be two whole numbers up to 16384"))
        };
        let event = match name {
            "size" => size(arg).map(|(w, h)| AppEvent::RequestWindowSize(w, h))?,
            "resize-event" => size(arg).map(|(w, h)| AppEvent::SimulateResize(w, h))?,
            "minimize" => AppEvent::SetMinimized(true),
            "restore" => AppEvent::SetMinimized(false),
            "screenshot" => AppEvent::Screenshot(Some(PathBuf::from(arg.ok_or_else(|| fail("needs =PATH"))?))),
            "load" | "drop" => {
                AppEvent::LoadScene(SceneSource::File(PathBuf::from(arg.ok_or_else(|| fail("needs =PATH"))?)))
            }
            "reload" => AppEvent::ReloadScene,
            "anim-hold" => AppEvent::SetAnimationPlaying(false),
            "anim-play" => AppEvent::SetAnimationPlaying(true),
            "anim-time" => {
                let t = arg.and_then(|a| a.parse::<f64>().ok()).filter(|t| t.is_finite() && *t >= 0.0);
                AppEvent::SetAnimationTime(t.ok_or_else(|| fail("anim-time needs =SECONDS, a number >= 0"))?)
            }
            "grid" => {
                let n = arg.and_then(|a| a.parse().ok()).ok_or_else(|| fail("grid needs =N, a whole number"))?;
                AppEvent::SetGridResolution(n)
            }
            // What a right click sends with the tool set to drop: a ball of PRESET onto whatever
            // lies below (X, Y), as a click straight down from the top of the world would.
            "ball" => {
                let (id, at) = arg.and_then(|a| a.split_once('@')).ok_or_else(|| fail("ball needs =PRESET@X,Y"))?;
                let preset = powder::sim::presets::material_presets().into_iter().find(|p| p.id == id.trim());
                let preset = preset.ok_or_else(|| fail("ball needs a material preset's id"))?;
                let xy: Vec<f32> = at.split(',').filter_map(|v| v.trim().parse().ok()).collect();
                let [x, y] = xy[..] else { return Err(fail("ball needs =PRESET@X,Y, two numbers")) };
                let down = glam::Vec3::NEG_Z;
                let ray = ViewRay { origin: glam::Vec3::new(x, y, 1.0e4), direction: down, forward: down };
                AppEvent::DropBlob { ray, preset: preset.id }
            }
            "reset" => AppEvent::Reset,
            "keep" => AppEvent::SetTimelineBudget(arg.and_then(|a| a.parse().ok()).ok_or_else(|| fail("needs =MIB"))?),
            "go-to" => AppEvent::GoToFrame(arg.and_then(|a| a.parse().ok()).ok_or_else(|| fail("needs =FRAME"))?),
            "lose-device" => AppEvent::SimulateDeviceLoss,
            "pause" => AppEvent::TogglePause,
            "panel" => AppEvent::ToggleUi,
            // What F12 and Shift+F12 send: captures of the window as shown.
            "capture" => AppEvent::Screenshot(None),
            "capture-window" => AppEvent::CaptureWindow,
            // What F9 sends: start or stop recording.
            "record" => AppEvent::ToggleRecording,
            "grid-view" => {
                let mut settings = GridViewSettings { on: true, ..Default::default() };
                if let Some(name) = arg {
                    let all = GridQuantity::ALL.into_iter().chain(GridQuantity::WATER);
                    settings.slice.quantity = all
                        .into_iter()
                        .find(|q| q.name() == name)
                        .ok_or_else(|| fail("no grid quantity of that name"))?;
                }
                AppEvent::SetGridView(settings)
            }
            "quit" => AppEvent::Quit,
            _ => return Err(fail("unknown action")),
        };
        steps.push(ScriptStep { at: Duration::from_secs_f64(seconds), event });
    }
    steps.sort_by_key(|s| s.at);
    Ok(steps)
}

/// A script being played.
#[derive(Default)]
pub struct Script {
    steps: Vec<ScriptStep>,
    next: usize,
    start: Option<Instant>,
}

impl Script {
    /// Plays `steps` once the clock is started.
    pub fn new(steps: Vec<ScriptStep>) -> Self {
        Self { steps, ..Self::default() }
    }

    /// Starts the clock (at the first drawn frame); later calls do nothing.
    pub fn start(&mut self) {
        self.start.get_or_insert_with(Instant::now);
    }

    /// The steps that are due, in order.
    pub fn due(&mut self) -> Vec<AppEvent> {
        let Some(start) = self.start else { return Vec::new() };
        let mut out = Vec::new();
        while let Some(step) = self.steps.get(self.next).filter(|s| start.elapsed() >= s.at) {
            out.push(step.event.clone());
            self.next += 1;
        }
        out
    }

    /// When the next step is due, if any.
    pub fn next_at(&self) -> Option<Instant> {
        Some(self.start? + self.steps.get(self.next)?.at)
    }

    /// Whether every step has run.
    pub fn done(&self) -> bool {
        self.next >= self.steps.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_parse_in_time_order_and_bad_items_are_named() {
        let steps = parse("1:resize-event=0x0; 0.5:size=120x90;2:restore").expect("parses");
        assert_eq!(steps[0].event, AppEvent::RequestWindowSize(120, 90));
        assert_eq!(steps[1].event, AppEvent::SimulateResize(0, 0));
        assert_eq!(steps[2].at, Duration::from_secs(2));
        let err = parse("1:size=12").unwrap_err();
        assert!(err.contains("\"1:size=12\"") && err.contains("WxH"), "{err}");
        assert!(parse("x:minimize").is_err() && parse("1:explode").is_err());
        let steps = parse("0:anim-hold; 0.1:anim-time=0.75; 0.2:reload; 0.3:drop=a.glb").expect("parses");
        assert_eq!(steps[1].event, AppEvent::SetAnimationTime(0.75));
        assert_eq!(steps[3].event, AppEvent::LoadScene(SceneSource::File(PathBuf::from("a.glb"))));
        assert!(parse("1:anim-time=-1").is_err() && parse("1:anim-time").is_err());
        assert_eq!(parse("2:panel").expect("parses")[0].event, AppEvent::ToggleUi);
        let AppEvent::SetGridView(view) = parse("1:grid-view=pressure").expect("parses")[0].event.clone() else {
            panic!("a grid view")
        };
        assert_eq!((view.on, view.slice.quantity), (true, GridQuantity::Pressure));
        assert!(parse("1:grid-view=temperature").unwrap_err().contains("no grid quantity"));
    }
}
