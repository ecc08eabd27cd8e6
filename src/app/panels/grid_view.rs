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
     particles' plastic Jp or stress |τ| (Pa) splatted with the P2G weights and averaged by mass, drawn in the view's top right corner with its scale. Dark nodes hold no snow (or, for the distance, have no collider near). Under the flip integrator also the water's cells as its last projection left them: cell kind, divergence before and after (1/s), pressure (Pa) and the solve's residual, each cell at its lowest corner node.";

/// Draws the grid view's controls: on/off, quantity (the water step's cell quantities too where
/// `water`), axis and the plane's node along it (with its position in metres) on `grid`.
pub fn controls(ui: &mut Ui, current: &GridViewSettings, grid: &GridSpec, water: bool, events: &mut Vec<AppEvent>) {
    let mut s = *current;
    if ui.checkbox(&mut s.on, "grid view (a plane through the grid)").on_hover_text(TIP).changed() && s.on {
        s.focus = None; // placed through the snow as it opens
    }
    if s.on {
        let listed = GridQuantity::ALL.into_iter().chain(GridQuantity::WATER.into_iter().filter(|_| water));
        let quantities: Vec<_> = listed.map(|q| (q, q.label())).collect();
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
                if ui.selectable_label(s.slice.axis == axis as u32, name).clicked() {
                    s.set_axis(axis as u32);
                }
            }
        });
        let nodes = grid.node_dims()[s.slice.axis as usize];
        s.slice.index = s.slice.index.min(nodes - 1);
        let position = grid.grid_origin()[s.slice.axis as usize] + s.slice.index as f64 * grid.cell_size;
        let mut index = s.slice.index;
        if ui.add(egui::Slider::new(&mut index, 0..=nodes - 1).text(format!("node ({position:.3} m)"))).changed() {
            s.set_index(index);
        }
        ui.checkbox(&mut s.arrows, "velocity arrows").on_hover_text(
            "draws the grid velocity's part in the plane as arrows over it (every few nodes), the fastest as \
             long as the space between arrows; its speed is written under the legend",
        );
    }
    if s != *current {
        events.push(AppEvent::SetGridView(s));
    }
}

/// The grid node nearest `point` (metres) on `grid`, clamped to the grid's nodes.
pub fn node_at(grid: &GridSpec, point: glam::DVec3) -> [u32; 3] {
    let nodes = grid.node_dims();
    let at = (point - grid.grid_origin()) / grid.cell_size;
    [0, 1, 2].map(|k| at[k].round().clamp(0.0, (nodes[k] - 1) as f64) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plane opens through the node nearest the snow's centre (not node 0, outside the
    /// domain), and turning its normal keeps it through that node.
    #[test]
    fn the_plane_opens_through_the_snow_and_keeps_its_point_when_turned() {
        let grid =
            GridSpec { domain_min: glam::DVec3::ZERO, cell_size: 2.0 / 32.0, cells: glam::UVec3::new(32, 16, 16) };
        let h = grid.cell_size;
        let centre = glam::DVec3::new(0.5, 0.25, 0.75);
        let node = node_at(&grid, centre);
        for k in 0..3 {
            let position = grid.grid_origin()[k] + node[k] as f64 * h;
            // The nearest node: within half a cell of the point.
            assert!((position - centre[k]).abs() <= 0.5 * h + 1e-12, "axis {k}: {position} vs {}", centre[k]);
        }
        let mut s = GridViewSettings { on: true, ..Default::default() };
        s.place(node);
        assert_eq!(s.slice.index, node[0]);
        s.set_axis(2);
        assert_eq!((s.slice.axis, s.slice.index), (2, node[2]));
        s.set_index(node[2] + 3);
        s.set_axis(1);
        assert_eq!(s.slice.index, node[1]);
        s.set_axis(2);
        assert_eq!(s.slice.index, node[2] + 3, "the moved plane's point is kept");
        assert_eq!(node_at(&grid, glam::DVec3::splat(-5.0)), [0, 0, 0], "clamped to the grid");
    }
}
