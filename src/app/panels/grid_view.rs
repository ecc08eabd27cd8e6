//! The grid view's controls under the Render section: on or off, the quantity, the plane's normal
//! and its node along it, and the velocity arrows. The plane itself is drawn over the 3D view
//! (`window/grid_view.rs`).

use egui::Ui;

use powder::render::grid_view::GridQuantity;
use powder::sim::params::GridSpec;

use crate::app::events::{AppEvent, GridViewSettings};

/// The checkbox's hover text.
const TIP: &str = "grid view: one plane of the simulation grid's nodes, coloured by node mass (kg), node speed \
     (m/s) after the last substep, the signed distance to the nearest collider (m, negative inside), or the \
     particles' plastic Jp or stress |τ| (Pa) splatted with the P2G weights and averaged by mass, drawn in the view's top right corner with its scale. Dark nodes hold no snow (or, for the distance, have no collider near).";

/// Draws the grid view's controls: on/off, quantity, axis and the plane's node along it (with its
/// position in metres) on `grid`.
pub fn controls(ui: &mut Ui, current: &GridViewSettings, grid: &GridSpec, events: &mut Vec<AppEvent>) {
    let mut s = *current;
    ui.checkbox(&mut s.on, "grid view (a plane through the grid)").on_hover_text(TIP);
    if s.on {
        let quantities = GridQuantity::ALL.map(|q| (q, q.label()));
        egui::ComboBox::from_label("grid quantity")
            .selected_text(format!("{} ({})", s.slice.quantity.label().0, s.slice.quantity.label().1))
            .show_ui(ui, |ui| {
                for (q, (name, unit)) in quantities {
                    ui.selectable_value(&mut s.slice.quantity, q, format!("{name} ({unit})"));
                }
            });
        ui.horizontal(|ui| {
            ui.label("plane normal");
            for (axis, name) in ["x", "y", "z"].into_iter().enumerate() {
                ui.selectable_value(&mut s.slice.axis, axis as u32, name);
            }
        });
        let nodes = grid.node_dims()[s.slice.axis as usize];
        s.slice.index = s.slice.index.min(nodes - 1);
        let position = grid.grid_origin()[s.slice.axis as usize] + s.slice.index as f64 * grid.cell_size;
        ui.add(egui::Slider::new(&mut s.slice.index, 0..=nodes - 1).text(format!("node ({position:.3} m)")));
        ui.checkbox(&mut s.arrows, "velocity arrows").on_hover_text(
            "draws the grid velocity's part in the plane as arrows over it (every few nodes), the fastest as \
             long as the space between arrows; its speed is written under the legend",
        );
    }
    if s != *current {
        events.push(AppEvent::SetGridView(s));
    }
}
