//! The side panel: the key help, the toolbar, and the Scene, Stats, Simulation, Timeline,
//! Material, Render and Tool sections (one file each), and the messages. Every control reads the
//! model and, when the user changes it, pushes an [`AppEvent`]; nothing here touches the
//! simulation.
//!
//! Numbers typed into a slider's text box are clamped to the slider's range, which each row shows.

use egui::{Color32, RichText, Ui};

use crate::app::events::AppEvent;
use crate::app::model::frame::Model;
use crate::app::panels::scene::{self, ScenePanelState};
use crate::app::panels::widgets::hint;
use crate::app::panels::{grid_view, material, render, simulation, stats, timeline, toolbar};
use crate::app::run::messages::{Level, Messages};
use crate::app::run::presets::material_names;

/// Text being typed and values being edited across frames.
#[derive(Default)]
pub struct PanelState {
    scene: ScenePanelState,
    /// The grid resolution being typed ([`simulation::pending_resolution_for`]).
    resolution: Option<(u32, u32)>,
    /// The Material section's preset and the material it edits.
    material: material::MaterialPanelState,
    /// The section to scroll to (a button at the top was clicked).
    jump: Option<Section>,
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
pub fn side_panel(ui: &mut Ui, model: &Model, state: &mut PanelState, events: &mut Vec<AppEvent>) {
    ui.spacing_mut().slider_width = 160.0;
    ui.heading("powder");
    ui.label(hint(
        "Space pause · S step · R reset · F frame snow · Home frame domain · F12 screenshot · Shift+F12 window · F9 record · \
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
                Section::Scene => scene::scene(ui, model, &mut state.scene, events),
                Section::Stats => stats::stats(ui, model, events),
                Section::Simulation => simulation::simulation(ui, model, &mut state.resolution, events),
                Section::Timeline => timeline::panel(ui, model, events),
                Section::Material => material::material(ui, model, &mut state.material, events),
                Section::Render => {
                    render::render(ui, &model.window.render, &material_names(model.scene), events);
                    let water = model.integrator.water().is_some();
                    grid_view::controls(ui, &model.window.grid_view, &model.grid, water, events);
                }
                Section::Tool => render::tool(ui, model, events),
            });
            if jump == Some(section) {
                shown.header_response.scroll_to_me(Some(egui::Align::TOP));
            }
        }
        messages(ui, model.messages);
    });
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
