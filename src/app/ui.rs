//! The side panel: Scene (`scene_panel.rs`), Stats (`stats_panel.rs`), Simulation, Material,
//! Render and Tool sections. Every control reads the current state and, when the user changes
//! it, pushes an [`AppEvent`]; nothing here touches the simulation.
//!
//! Numbers typed into a slider's text box are clamped to the slider's range, which each row shows.

use powder::sim::integrator::Integrator;
use powder::sim::pbmpm::PbmpmSettings;
use std::ops::RangeInclusive;

use egui::{Color32, RichText, Slider, Ui};

use powder::render::RenderSettings;

use super::driver::Driver;
use super::events::{AppEvent, StepMode};
use super::messages::{Level, Messages};
use super::presets::{material_presets, preset_label};
use super::scene_panel::{self, ScenePanelState};
use super::stats_panel;
use super::timing::{FrameClock, FrameTimes};
use super::tips;
use super::toolbar;
use super::view_panel;

/// What the panel shows, borrowed from the app for one frame.
pub struct PanelModel<'a> {
    /// Scene, solver and stepping.
    pub driver: &'a Driver,
    /// Current render settings.
    pub render: &'a RenderSettings,
    /// Frame rate.
    pub clock: &'a FrameClock,
    /// The intervals between presented frames.
    pub frame_times: &'a FrameTimes,
    /// Recent messages.
    pub messages: &'a Messages,
    /// The adapter, in words.
    pub gpu_name: &'a str,
    /// Where the last screenshot went.
    pub last_screenshot: Option<&'a std::path::Path>,
    /// Milliseconds the last frame's drawing and present took.
    pub draw_ms: f64,
    /// The edits that can be undone and redone.
    pub history: &'a super::undo::History,
    /// The 3D view's recorder.
    pub recorder: &'a super::recording::Recorder,
    /// The grid view's settings.
    pub grid_view: &'a super::grid_view_panel::GridViewSettings,
}

/// Text being typed and values being edited across frames.
#[derive(Default)]
pub struct PanelState {
    scene: ScenePanelState,
    resolution: Option<u32>,
    /// The preset last chosen, named with "(edited)" once the material differs from it.
    preset: Option<(&'static str, String)>,
    /// The section to scroll to (a button at the top was clicked).
    jump: Option<Section>,
    /// The Stats section's numbers as last refreshed.
    stats: Option<stats_panel::StatsText>,
}

impl PanelState {
    /// Takes the Stats numbers again on the next frame (the simulation was changed).
    pub fn refresh_stats(&mut self) {
        self.stats = None;
    }
}

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

/// A number in few characters: 1.4e5, 0.025, 12.
pub fn short(v: f64) -> String {
    if v != 0.0 && !(1e-2..1e4).contains(&v.abs()) {
        let s = format!("{v:.2e}");
        s.replace(".00e", "e").replace("0e", "e")
    } else {
        format!("{}", (v * 1e4).round() / 1e4)
    }
}

/// The panel's sections, in order; the buttons at the top scroll to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Scene,
    Stats,
    Simulation,
    Timeline,
    Material,
    Render,
    Tool,
}

impl Section {
    const ALL: [Section; 7] = [
        Section::Scene,
        Section::Stats,
        Section::Simulation,
        Section::Timeline,
        Section::Material,
        Section::Render,
        Section::Tool,
    ];

    fn title(self) -> &'static str {
        match self {
            Section::Scene => "Scene",
            Section::Stats => "Stats",
            Section::Simulation => "Simulation",
            Section::Timeline => "Timeline",
            Section::Material => "Material",
            Section::Render => "Render",
            Section::Tool => "Tool",
        }
    }
}

/// Draws the whole side panel.
pub fn side_panel(ui: &mut Ui, model: &PanelModel, state: &mut PanelState, events: &mut Vec<AppEvent>) {
    ui.spacing_mut().slider_width = 160.0;
    ui.heading("powder");
    ui.label(hint(
        "Space pause · S step · R reset · F frame snow · Home frame domain · F12 screenshot · F9 record · \
         Ctrl+Z undo · Ctrl+Shift+Z / Ctrl+Y redo · Ctrl+S save · H panel",
    ));
    toolbar::toolbar(ui, model, events);
    // Every section stays one click away however tall the open ones above it are.
    ui.horizontal_wrapped(|ui| {
        for section in Section::ALL {
            if ui.small_button(section.title()).clicked() {
                state.jump = Some(section);
            }
        }
    });
    ui.separator();
    let jump = state.jump.take();
    egui::ScrollArea::vertical().show(ui, |ui| {
        for section in Section::ALL {
            let header = egui::CollapsingHeader::new(section.title()).default_open(true);
            let header = if jump == Some(section) { header.open(Some(true)) } else { header };
            let shown = header.show(ui, |ui| match section {
                Section::Scene => scene_panel::scene(ui, model, &mut state.scene, events),
                Section::Stats => stats_panel::stats(ui, model, &mut state.stats, events),
                Section::Simulation => simulation(ui, model, state, events),
                Section::Timeline => super::timeline::panel(ui, model, events),
                Section::Material => material(ui, model, &mut state.preset, events),
                Section::Render => {
                    view_panel::render(ui, model.render, events);
                    super::grid_view_panel::controls(ui, model.grid_view, model.driver.solver(), events);
                }
                Section::Tool => view_panel::tool(ui, model, events),
            });
            if jump == Some(section) {
                shown.header_response.scroll_to_me(Some(egui::Align::TOP));
            }
        }
        messages(ui, model.messages);
    });
}

fn simulation(ui: &mut Ui, model: &PanelModel, state: &mut PanelState, events: &mut Vec<AppEvent>) {
    let d = model.driver;
    ui.horizontal(|ui| {
        if ui.button(if d.stepper().paused() { "Play" } else { "Pause" }).clicked() {
            events.push(AppEvent::TogglePause);
        }
        if ui.button("Step").clicked() {
            events.push(AppEvent::Step);
        }
        if ui.button("Reset").clicked() {
            events.push(AppEvent::Reset);
        }
    });
    let (mode, substeps, auto_dt, fixed_dt, budget) = d.stepper().settings();
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
    let path = d.solver().path();
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
    integrator_controls(ui, d.solver().integrator(), events);
    {
        if mode == StepMode::FixedSubsteps {
            let mut n = substeps as f64;
            if slider(ui, "substeps/frame", "", &mut n, 1.0..=1000.0, true, tips::SUBSTEPS) {
                events.push(AppEvent::SetSubsteps(n.round() as u32));
            }
        }
        if d.stepper().own_device() {
            ui.label(hint("the simulation runs on a device of its own (software driver): drawing never waits for it"));
        } else {
            let mut ms = budget;
            if slider(ui, "sim budget per UI frame", "ms", &mut ms, 1.0..=500.0, true, tips::BUDGET) {
                events.push(AppEvent::SetRealTimeBudget(ms));
            }
        }
        // From the Stats numbers, so the text changes only when they refresh (`ui_layer.rs`).
        let stable = state.stats.as_ref().map_or(d.stepper().stable_dt(), |s| s.stable_dt);
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
        let g = d.gravity();
        let mut gz = g.z;
        if slider(ui, "gravity z", "m/s²", &mut gz, -30.0..=30.0, false, tips::GRAVITY) {
            events.push(AppEvent::SetGravity(glam::DVec3::new(g.x, g.y, gz)));
        }
        let current = d.scene().grid.resolution;
        let pending = state.resolution.get_or_insert(current);
        ui.horizontal(|ui| {
            ui.label("grid resolution").on_hover_text(tips::GRID_RESOLUTION);
            ui.label(hint("8 … 1024 cells on the longest edge"));
        });
        ui.horizontal(|ui| {
            ui.add(egui::DragValue::new(pending).range(8..=1024)).on_hover_text(tips::GRID_RESOLUTION);
            if ui.add_enabled(*pending != current, egui::Button::new("Apply")).clicked() {
                events.push(AppEvent::SetGridResolution(*pending));
            }
        });
    }
    let grid = d.solver().params().grid;
    ui.label(format!("grid {}×{}×{} cells, h = {} m", grid.cells.x, grid.cells.y, grid.cells.z, short(grid.cell_size)));
}

fn material(ui: &mut Ui, model: &PanelModel, chosen: &mut Option<(&'static str, String)>, events: &mut Vec<AppEvent>) {
    let d = model.driver;
    let mut m = d.scene().material;
    // A preset chosen for another scene says nothing about this one.
    if chosen.as_ref().is_some_and(|(_, scene)| scene != d.scene_name()) {
        *chosen = None;
    }
    let label = preset_label(&m, chosen.as_ref().map(|(n, _)| *n), d.loaded_material());
    egui::ComboBox::from_label("preset").selected_text(label).show_ui(ui, |ui| {
        for preset in material_presets() {
            if ui.selectable_label(preset.material == m, preset.name).on_hover_text(preset.note).clicked() {
                *chosen = Some((preset.name, d.scene_name().to_string()));
                events.push(AppEvent::SetMaterial(preset.material));
            }
        }
    });
    let mut changed = false;
    {
        changed |= slider(ui, "Young's modulus E", "Pa", &mut m.youngs_modulus, 1e3..=1e7, true, tips::YOUNGS_MODULUS);
        changed |= slider(ui, "Poisson's ratio ν", "", &mut m.poisson_ratio, 0.0..=0.45, false, tips::POISSON_RATIO);
        changed |= slider(ui, "hardening ξ", "", &mut m.hardening, 0.0..=30.0, false, tips::HARDENING);
        changed |= slider(
            ui,
            "critical compression θc",
            "",
            &mut m.critical_compression,
            1e-3..=0.3,
            true,
            tips::CRITICAL_COMPRESSION,
        );
        changed |=
            slider(ui, "critical stretch θs", "", &mut m.critical_stretch, 1e-4..=0.1, true, tips::CRITICAL_STRETCH);
        // Linear: 0 (the paper's model, no cracking) must be reachable.
        changed |= slider(
            ui,
            "tensile strength σF (0: no cracks)",
            "Pa",
            &mut m.tensile_strength,
            0.0..=2e4,
            false,
            tips::TENSILE_STRENGTH,
        );
        changed |=
            slider(ui, "density ρ (applies on reset)", "kg/m³", &mut m.density, 50.0..=1000.0, false, tips::DENSITY);
    }
    if changed {
        events.push(AppEvent::SetMaterial(m));
    }
    if ui.button("Reset to the scene's material").clicked() {
        *chosen = None;
        events.push(AppEvent::ResetMaterial);
    }
}

fn messages(ui: &mut Ui, messages: &Messages) {
    if messages.items().is_empty() {
        return;
    }
    ui.separator();
    for m in messages.items().iter().rev() {
        let color = match m.level {
            Level::Info => ui.visuals().text_color(),
            Level::Error => Color32::from_rgb(255, 110, 90),
        };
        ui.label(RichText::new(&m.text).color(color).small());
    }
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
             iterations; docs/pbmpm.md)",
        );
    if name != integrator.name() {
        events.push(AppEvent::SetIntegrator(Integrator::from_name(name).expect("a listed name")));
    }
    if let Integrator::Pbmpm(settings) = integrator {
        let mut iterations = settings.iterations as f64;
        if slider(ui, "iterations/step", "", &mut iterations, 1.0..=64.0, true, tips::ITERATIONS) {
            let settings = PbmpmSettings { iterations: iterations.round() as u32, ..settings };
            events.push(AppEvent::SetIntegrator(Integrator::Pbmpm(settings)));
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
