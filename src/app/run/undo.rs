//! Undo and redo of panel edits, on the event level: before the loop applies an edit event it
//! asks [`inverse`] for the event that puts back the value it replaces, and [`History`] keeps the
//! pair. Undo applies the inverse, redo the edit again; neither is recorded itself.
//!
//! Consecutive edits of the same control within [`MERGE_WINDOW`] (a slider being dragged sends
//! one per frame) make one step, which undoes to the value before the drag began.

use std::mem::discriminant;
use std::time::{Duration, Instant};

use glam::DVec3;

use powder::render::RenderSettings;
use powder::sim::integrator::Integrator;
use powder::sim::material::SnowMaterial;
use powder::sim::sort::bins::SolverPath;

use crate::app::events::{AppEvent, StepMode, ToolSettings};

/// Edits of the same control closer together than this are one undo step: long enough to join a
/// slider drag's per-frame events, short enough that two deliberate edits stay two.
pub const MERGE_WINDOW: Duration = Duration::from_millis(600);

/// How many edits are kept.
const KEPT: usize = 200;

/// An edit and the event that undoes it.
#[derive(Clone, Debug, PartialEq)]
struct Step {
    forward: AppEvent,
    backward: AppEvent,
    at: Instant,
}

/// The edits that can be undone and redone.
#[derive(Default)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
    /// The state before the last edit was recorded (the undo list's length, its top step, the
    /// redo list), until the next event: [`History::refused`] puts it back.
    before_last: Option<(usize, Option<Step>, Vec<Step>)>,
}

/// Every value a panel edit changes, read from the state before the edit applies: what undo puts
/// back. The driver gives its part ([`crate::app::run::driver::Driver::edited`]).
#[derive(Clone, Debug, PartialEq)]
pub struct EditedValues {
    /// The scene's material.
    pub material: SnowMaterial,
    /// Each emitter's own material, if it has one.
    pub emitter_materials: Vec<Option<SnowMaterial>>,
    /// Gravity, m/s².
    pub gravity: DVec3,
    /// Stepping mode, substeps, auto dt, fixed dt, budget (ms).
    pub stepping: (StepMode, u32, bool, f64, f64),
    /// The substep path.
    pub path: SolverPath,
    /// The integrator.
    pub integrator: Integrator,
    /// Grid cells along the longest edge.
    pub resolution: u32,
    /// The view's render settings.
    pub render: RenderSettings,
    /// The mouse tool's settings.
    pub tool: ToolSettings,
}

/// The event that restores what `event` is about to change, from the values `before` it applies;
/// `None` for events that are not edits (loading, stepping one frame, the tool's gestures …).
pub fn inverse(event: &AppEvent, before: &EditedValues) -> Option<AppEvent> {
    let (mode, substeps, auto_dt, fixed_dt, budget) = before.stepping;
    Some(match event {
        AppEvent::SetMaterial(_) | AppEvent::ResetMaterial => AppEvent::SetMaterial(before.material),
        AppEvent::SetEmitterMaterial(i, _) => {
            AppEvent::SetEmitterMaterial(*i, before.emitter_materials.get(*i).copied().flatten())
        }
        AppEvent::SetGravity(_) => AppEvent::SetGravity(before.gravity),
        AppEvent::SetStepMode(_) => AppEvent::SetStepMode(mode),
        AppEvent::SetSubsteps(_) => AppEvent::SetSubsteps(substeps),
        AppEvent::SetSolverPath(_) => AppEvent::SetSolverPath(before.path),
        AppEvent::SetIntegrator(_) => AppEvent::SetIntegrator(before.integrator),
        AppEvent::SetDt(_) => AppEvent::SetDt(fixed_dt),
        AppEvent::SetAutoDt(_) => AppEvent::SetAutoDt(auto_dt),
        AppEvent::SetRealTimeBudget(_) => AppEvent::SetRealTimeBudget(budget),
        AppEvent::SetGridResolution(_) => AppEvent::SetGridResolution(before.resolution),
        AppEvent::SetRender(_) => AppEvent::SetRender(before.render),
        AppEvent::SetTool(_) => AppEvent::SetTool(before.tool),
        _ => return None,
    })
}

/// A few words for what an edit changes (the Undo and Redo buttons' hover text).
pub fn describe(event: &AppEvent) -> &'static str {
    match event {
        AppEvent::SetMaterial(_) | AppEvent::ResetMaterial => "material",
        AppEvent::SetEmitterMaterial(..) => "emitter material",
        AppEvent::SetGravity(_) => "gravity",
        AppEvent::SetStepMode(_) => "stepping mode",
        AppEvent::SetSubsteps(_) => "substeps per frame",
        AppEvent::SetSolverPath(_) => "substep path",
        AppEvent::SetIntegrator(_) => "integrator",
        AppEvent::SetDt(_) => "dt",
        AppEvent::SetAutoDt(_) => "auto dt",
        AppEvent::SetRealTimeBudget(_) => "simulation budget",
        AppEvent::SetGridResolution(_) => "grid resolution",
        AppEvent::SetRender(_) => "render settings",
        AppEvent::SetTool(_) => "tool settings",
        _ => "edit",
    }
}

impl History {
    /// What the loop should apply for `event` at `now`: for [`AppEvent::Undo`] and
    /// [`AppEvent::Redo`] the recorded event (or nothing when there is none), for an edit the
    /// edit itself after recording it with its inverse (`inverse` of it, from the state before
    /// it applies), for anything else the event unchanged. A new scene forgets the history: its
    /// values are not the old scene's.
    pub fn route(
        &mut self,
        event: AppEvent,
        now: Instant,
        inverse: impl FnOnce(&AppEvent) -> Option<AppEvent>,
    ) -> Option<AppEvent> {
        self.before_last = None;
        match event {
            AppEvent::Undo => {
                let step = self.undo.pop()?;
                let backward = step.backward.clone();
                self.redo.push(step);
                Some(backward)
            }
            AppEvent::Redo => {
                let step = self.redo.pop()?;
                let forward = step.forward.clone();
                self.undo.push(step);
                Some(forward)
            }
            AppEvent::LoadScene(_) | AppEvent::ReloadScene => {
                self.undo.clear();
                self.redo.clear();
                Some(event)
            }
            _ => {
                let Some(backward) = inverse(&event) else { return Some(event) };
                if backward == event {
                    return Some(event); // changes nothing: no step to undo
                }
                self.before_last = Some((self.undo.len(), self.undo.last().cloned(), std::mem::take(&mut self.redo)));
                match self.undo.last_mut() {
                    Some(last)
                        if discriminant(&last.forward) == discriminant(&event)
                            && now.saturating_duration_since(last.at) < MERGE_WINDOW =>
                    {
                        (last.forward, last.at) = (event.clone(), now);
                    }
                    _ => {
                        self.undo.push(Step { forward: event.clone(), backward, at: now });
                        if self.undo.len() > KEPT {
                            self.undo.remove(0);
                            // The oldest step is gone: a refusal now only drops the new one.
                            self.before_last = self.before_last.take().map(|(len, top, redo)| (len - 1, top, redo));
                        }
                    }
                }
                Some(event)
            }
        }
    }

    /// The edit just routed was refused (out of range, a grid that does not fit): nothing changed,
    /// so it is forgotten and the history is as it was before it.
    pub fn refused(&mut self) {
        let Some((len, top, redo)) = self.before_last.take() else { return };
        self.undo.truncate(len);
        if let (Some(top), Some(last)) = (top, self.undo.last_mut()) {
            *last = top;
        }
        self.redo = redo;
    }

    /// Routes `event` ([`History::route`], inverses from `before`) and hands what is to be applied
    /// to `apply`, which returns its result and whether the edit was refused (then it changed
    /// nothing and is forgotten). `Err` names the command that had nothing to do ("undo",
    /// "redo"). The app loop applies every event through this.
    pub fn apply<R>(
        &mut self,
        event: AppEvent,
        now: Instant,
        before: &EditedValues,
        apply: impl FnOnce(AppEvent) -> (R, bool),
    ) -> Result<R, &'static str> {
        let what = if event == AppEvent::Undo { "undo" } else { "redo" };
        let routed = self.route(event, now, |e| inverse(e, before)).ok_or(what)?;
        let (result, refused) = apply(routed);
        if refused {
            self.refused();
        }
        Ok(result)
    }

    /// What the next undo would change, if anything can be undone.
    pub fn next_undo(&self) -> Option<&'static str> {
        self.undo.last().map(|s| describe(&s.forward))
    }

    /// What the next redo would change, if anything can be redone.
    pub fn next_redo(&self) -> Option<&'static str> {
        self.redo.last().map(|s| describe(&s.forward))
    }
}

#[cfg(test)]
#[path = "undo_tests.rs"]
mod tests;
