//! The Simulation section: stepping, the integrator, dt, gravity and the grid.

use egui::{Color32, Ui};

use powder::scene::ranges::GRID_RESOLUTION;
use powder::sim::integrator::Integrator;
use powder::sim::pbmpm::{PbSolver, PbmpmSettings};
use powder::sim::pressure::Preconditioner;
use powder::sim::water::{Transfer, WaterSettings};

use crate::app::events::{AppEvent, StepMode};
use crate::app::model::frame::{Model, Stepping};
use crate::app::model::stats::short;
use crate::app::panels::tips;
use crate::app::panels::widgets::{hint, slider};

/// Draws the Simulation section: play, step and reset, stepping, integrator, dt, gravity and the
/// grid resolution (typed first, applied with its button).
pub fn simulation(ui: &mut Ui, model: &Model, pending_resolution: &mut Option<(u32, u32)>, events: &mut Vec<AppEvent>) {
    let st = model.stepping;
    ui.horizontal(|ui| {
        if ui.button(if st.paused { "Play" } else { "Pause" }).clicked() {
            events.push(AppEvent::TogglePause);
        }
        if ui.button("Step").clicked() {
            events.push(AppEvent::Step);
        }
        if ui.button("Reset").clicked() {
            events.push(AppEvent::Reset);
        }
    });
    let Stepping { mode, substeps, auto_dt, fixed_dt, budget_ms: budget, .. } = st;
    let mut new_mode = mode;
    egui::ComboBox::from_label("stepping")
        .selected_text(mode.label())
        .show_ui(ui, |ui| {
            for m in StepMode::ALL {
                ui.selectable_value(&mut new_mode, m, m.label());
            }
        })
        .response
        .on_hover_text(tips::STEPPING);
    if new_mode != mode {
        events.push(AppEvent::SetStepMode(new_mode));
    }
    let path = model.solver_path;
    let mut new_path = path;
    egui::ComboBox::from_label("substep path").selected_text(path.name()).show_ui(ui, |ui| {
        for p in powder::sim::sort::bins::SolverPath::ALL {
            ui.selectable_value(&mut new_path, p, p.name());
        }
    })
    .response
    .on_hover_text(
        "sorted (the default): particles binned by grid block, P2G in workgroup memory; fused: sorted, with g2p and \
         the next P2G in one pass (g2p2g); naive: one global atomic per contribution. All three give the same \
         results.",
    );
    if new_path != path {
        events.push(AppEvent::SetSolverPath(new_path));
    }
    integrator_controls(ui, model.integrator, events);
    {
        if mode == StepMode::FixedSubsteps {
            let mut n = substeps as f64;
            if slider(ui, "substeps/frame", "", &mut n, 1.0..=1000.0, true, tips::SUBSTEPS) {
                events.push(AppEvent::SetSubsteps(n.round() as u32));
            }
        }
        if st.own_device {
            ui.label(hint("the simulation runs on a device of its own (software driver): drawing never waits for it"));
        } else {
            let mut ms = budget;
            if slider(ui, "sim budget per UI frame", "ms", &mut ms, 1.0..=500.0, true, tips::BUDGET) {
                events.push(AppEvent::SetRealTimeBudget(ms));
            }
        }
        // From the Stats numbers, so the text changes only when they refresh (`ui_layer.rs`).
        let stable = model.stats.stable_dt;
        let mut auto = auto_dt;
        if ui
            .checkbox(&mut auto, format!("auto dt (stable dt now {} s)", short(stable)))
            .on_hover_text(tips::AUTO_DT)
            .changed()
        {
            events.push(AppEvent::SetAutoDt(auto));
        }
        if !auto_dt {
            let mut dt = fixed_dt;
            if slider(ui, "dt", "s", &mut dt, 1e-6..=1e-2, true, tips::DT) {
                events.push(AppEvent::SetDt(dt));
            }
            if fixed_dt > stable {
                ui.colored_label(Color32::from_rgb(255, 140, 60), "dt is above the stable bound: may blow up");
            }
        }
        let g = model.scene.gravity;
        let mut gz = g.z;
        if slider(ui, "gravity z", "m/s²", &mut gz, -30.0..=30.0, false, tips::GRAVITY) {
            events.push(AppEvent::SetGravity(glam::DVec3::new(g.x, g.y, gz)));
        }
        let current = model.scene.grid.resolution;
        let pending = pending_resolution_for(pending_resolution, current);
        ui.horizontal(|ui| {
            ui.label("grid resolution").on_hover_text(tips::GRID_RESOLUTION);
            ui.label(hint(format!("{} … {} cells on the longest edge", GRID_RESOLUTION.min, GRID_RESOLUTION.max)));
        });
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(pending).range(GRID_RESOLUTION.min as u32..=GRID_RESOLUTION.max as u32))
                .on_hover_text(tips::GRID_RESOLUTION);
            if ui.add_enabled(*pending != current, egui::Button::new("Apply")).clicked() {
                events.push(AppEvent::SetGridResolution(*pending));
            }
        });
    }
    let grid = model.grid;
    ui.label(format!("grid {}×{}×{} cells, h = {} m", grid.cells.x, grid.cells.y, grid.cells.z, short(grid.cell_size)));
}

/// The grid resolution being typed, as `(resolution it was typed against, value)`: typing starts
/// from the running grid's resolution, and a grid that changed since (a scene loaded, an edit
/// undone) replaces what was typed, so the box always starts from the state.
pub fn pending_resolution_for(pending: &mut Option<(u32, u32)>, current: u32) -> &mut u32 {
    if pending.is_none_or(|(base, _)| base != current) {
        *pending = Some((current, current));
    }
    &mut pending.as_mut().expect("set above").1
}

/// The integrator: explicit MLS-MPM (accurate, slow once snow hardens) or PB-MPM (steps limited by
/// motion only), and PB-MPM's iterations, longest step and yield relaxation time.
fn integrator_controls(ui: &mut Ui, integrator: Integrator, events: &mut Vec<AppEvent>) {
    let mut name = integrator.name();
    egui::ComboBox::from_label("integrator")
        .selected_text(name)
        .show_ui(ui, |ui| {
            for n in Integrator::NAMES {
                ui.selectable_value(&mut name, n, n);
            }
        })
        .response
        .on_hover_text(
            "explicit: MLS-MPM substeps of the stable dt, the reference (slow once snow hardens); pbmpm: \
             position-based MPM, steps limited only by how far the snow moves (real time, softer with few \
             iterations; docs/pbmpm.md); flip: the liquid as incompressible water by FLIP/APIC with a pressure \
             projection, the other materials by explicit MPM beside it (docs/water.md)",
        );
    if name != integrator.name() {
        events.push(AppEvent::SetIntegrator(Integrator::from_name(name).expect("a listed name")));
    }
    if let Integrator::Flip(settings) = integrator {
        water_controls(ui, settings, events);
    }
    if let Integrator::Pbmpm(settings) = integrator {
        let mut solver = settings.solver;
        egui::ComboBox::from_label("solve")
            .selected_text(solver_name(solver))
            .show_ui(ui, |ui| {
                for s in [PbSolver::Constraints, PbSolver::Newton] {
                    ui.selectable_value(&mut solver, s, solver_name(s));
                }
            })
            .response
            .on_hover_text(tips::SOLVER);
        if solver != settings.solver {
            events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(PbmpmSettings { solver, ..settings })));
        }
        let mut iterations = settings.iterations as f64;
        if slider(ui, "iterations/step", "", &mut iterations, 1.0..=64.0, true, tips::ITERATIONS) {
            let settings = PbmpmSettings { iterations: iterations.round() as u32, ..settings };
            events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(settings)));
        }
        if settings.solver == PbSolver::Newton {
            let mut newton = settings.newton_steps as f64;
            let (lo, hi) = powder::sim::pbmpm::NEWTON_STEPS_RANGE;
            if slider(ui, "Newton steps (sand, mud)", "", &mut newton, lo as f64..=hi as f64, false, tips::NEWTON_STEPS)
            {
                let settings = PbmpmSettings { newton_steps: newton.round() as u32, ..settings };
                events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(settings)));
            }
        }
        let mut step_ms = settings.dt * 1e3;
        if slider(ui, "longest step", "ms", &mut step_ms, 0.5..=20.0, true, tips::LONGEST_STEP) {
            events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(PbmpmSettings { dt: step_ms * 1e-3, ..settings })));
        }
        // Linear: 0 (the explicit integrator's instant yield) must be reachable.
        let mut yield_ms = settings.yield_time * 1e3;
        let max_ms = powder::sim::pbmpm::YIELD_TIME_MAX * 1e3;
        if slider(ui, "yield time", "ms", &mut yield_ms, 0.0..=max_ms, false, tips::YIELD_TIME) {
            let settings = PbmpmSettings { yield_time: yield_ms * 1e-3, ..settings };
            events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(settings)));
        }
    }
}

/// Water's transfer, its FLIP share, and the pressure solve's preconditioner, tolerance and
/// iteration cap, and the volume correction.
fn water_controls(ui: &mut Ui, settings: WaterSettings, events: &mut Vec<AppEvent>) {
    let send = |events: &mut Vec<AppEvent>, s: WaterSettings| events.push(AppEvent::SetIntegrator(Integrator::Flip(s)));
    let mut apic = settings.transfer == Transfer::Apic;
    ui.horizontal(|ui| {
        ui.label("transfer");
        ui.radio_value(&mut apic, true, "APIC").on_hover_text(tips::TRANSFER);
        ui.radio_value(&mut apic, false, "PIC/FLIP").on_hover_text(tips::TRANSFER);
    });
    if apic != (settings.transfer == Transfer::Apic) {
        let transfer = if apic { Transfer::Apic } else { Transfer::PicFlip { ratio: 0.95 } };
        send(events, WaterSettings { transfer, ..settings });
    }
    if let Transfer::PicFlip { ratio } = settings.transfer {
        let mut r = ratio;
        if slider(ui, "FLIP share", "", &mut r, 0.0..=1.0, false, tips::FLIP_RATIO) {
            send(events, WaterSettings { transfer: Transfer::PicFlip { ratio: r }, ..settings });
        }
    }
    let mut kind = settings.pressure.preconditioner;
    egui::ComboBox::from_label("preconditioner")
        .selected_text(kind.name())
        .show_ui(ui, |ui| {
            for p in Preconditioner::ALL {
                ui.selectable_value(&mut kind, p, p.name());
            }
        })
        .response
        .on_hover_text(tips::PRECONDITIONER);
    let mut pressure = settings.pressure;
    pressure.preconditioner = kind;
    let (lo, hi) = powder::sim::pressure::TOLERANCE_RANGE;
    slider(ui, "tolerance", "", &mut pressure.tolerance, lo.max(1e-8)..=hi.min(0.1), true, tips::TOLERANCE);
    let mut cap = pressure.max_iterations as f64;
    let (lo, hi) = powder::sim::pressure::MAX_ITERATIONS_RANGE;
    if slider(ui, "iteration cap", "", &mut cap, lo as f64..=hi as f64, true, tips::ITERATION_CAP) {
        pressure.max_iterations = cap.round() as u32;
    }
    let mut volume = settings.volume_correction;
    ui.checkbox(&mut volume, "volume correction").on_hover_text(tips::VOLUME_CORRECTION);
    if pressure != settings.pressure || volume != settings.volume_correction {
        send(events, WaterSettings { pressure, volume_correction: volume, ..settings });
    }
}

/// How the panel names a PB-MPM solve (as the scene format does).
fn solver_name(solver: PbSolver) -> &'static str {
    match solver {
        PbSolver::Constraints => "constraints",
        PbSolver::Newton => "newton",
    }
}

#[cfg(test)]
mod tests {
    use super::pending_resolution_for;

    /// After a scene with another grid loads, the box shows the new grid's resolution, not the
    /// one typed (or shown) for the scene before.
    #[test]
    fn the_resolution_box_follows_the_running_grid() {
        let mut pending = None;
        assert_eq!(*pending_resolution_for(&mut pending, 32), 32);
        *pending_resolution_for(&mut pending, 32) = 48; // typed, not applied
        assert_eq!(*pending_resolution_for(&mut pending, 32), 48, "typing survives frames");
        assert_eq!(*pending_resolution_for(&mut pending, 64), 64, "a new grid replaces it");
    }
}
