//! The one table of the ranges of tunable scene values: each field's allowed minimum, maximum and
//! unit, and why. Scene file validation (`validate.rs`), `--set` (which validates through it) and
//! the app's sliders all read these, so what the panel lets a user set is what a scene file may
//! hold, and a value outside is refused with the same range in every place.

use std::ops::RangeInclusive;

use super::limit::Limit;

/// A tunable scene value's allowed range and unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tunable {
    /// Its path in the scene file (`material.youngs_modulus`).
    pub field: &'static str,
    /// The smallest allowed value.
    pub min: f64,
    /// The largest allowed value (excluded when `max_open`).
    pub max: f64,
    /// `max` itself is not allowed.
    pub max_open: bool,
    /// The unit a control shows ("" for a pure number).
    pub unit: &'static str,
    /// A control spans the range logarithmically (it covers orders of magnitude).
    pub log: bool,
}

impl Tunable {
    /// The range as validation checks it.
    pub(crate) const fn limit(&self) -> Limit {
        Limit::new(self.min, true, self.max, !self.max_open)
    }

    /// Whether `v` is allowed.
    pub fn contains(&self, v: f64) -> bool {
        self.limit().contains(v)
    }

    /// The values a control may set: the range, an open end replaced by the value just inside it.
    pub fn control_range(&self) -> RangeInclusive<f64> {
        // The float just below a positive open end (`f64::next_down` needs a newer Rust than the
        // crate's minimum).
        self.min..=if self.max_open && self.max > 0.0 { f64::from_bits(self.max.to_bits() - 1) } else { self.max }
    }
}

/// Cells along the longest domain edge: at least 4 (a grid of 4 cells still holds a particle's
/// stencil inside its padding), at most 1024 (2³⁰ nodes, the limit of 32-bit node indices).
pub const GRID_RESOLUTION: Tunable =
    Tunable { field: "grid.resolution", min: 4.0, max: 1024.0, max_open: false, unit: "cells", log: true };
/// Young's modulus, Pa: from 1 Pa (far softer than any snow; fresh snow is ~10⁴–10⁵ Pa), where
/// stress still is a normal f32, to 1 GPa (ice is ~9 GPa).
pub const YOUNGS_MODULUS: Tunable =
    Tunable { field: "material.youngs_modulus", min: 1.0, max: 1e9, max_open: false, unit: "Pa", log: true };
/// Poisson's ratio: 0.5 is incompressible, where the bulk modulus is infinite.
pub const POISSON_RATIO: Tunable =
    Tunable { field: "material.poisson_ratio", min: 0.0, max: 0.5, max_open: true, unit: "", log: false };
/// Hardening ξ: e^(ξ·(1 − Jp)) stays a finite f32 over the Jp the clamps allow.
pub const HARDENING: Tunable =
    Tunable { field: "material.hardening", min: 0.0, max: 100.0, max_open: false, unit: "", log: false };
/// θc: the clamp `1 − θc` must differ from 1 and from 0 by far more than f32 rounding (2⁻²⁴).
pub const CRITICAL_COMPRESSION: Tunable = Tunable {
    field: "material.critical_compression",
    min: 1e-5,
    max: 1.0 - 1e-5,
    max_open: false,
    unit: "",
    log: true,
};
/// θs: the clamp `1 + θs` must differ from 1 by far more than f32 rounding.
pub const CRITICAL_STRETCH: Tunable =
    Tunable { field: "material.critical_stretch", min: 1e-5, max: 1e6, max_open: false, unit: "", log: true };
/// Tensile strength, Pa: 0 (no cracking) up to 1 GPa, the top of the Young's modulus range (a
/// strength above the stiffness is never reached).
pub const TENSILE_STRENGTH: Tunable =
    Tunable { field: "material.tensile_strength", min: 0.0, max: 1e9, max_open: false, unit: "Pa", log: true };
/// Sand's friction angle, degrees: frictionless to 60°, past the steepest natural slopes of
/// granular material (about 45°).
pub const FRICTION_ANGLE: Tunable =
    Tunable { field: "material.friction_angle", min: 0.0, max: 60.0, max_open: false, unit: "°", log: false };
/// Sand's cohesion, Pa: dry (none) to 100 kPa, a stiff clay's, far past moist sand's few kPa.
pub const COHESION: Tunable =
    Tunable { field: "material.cohesion", min: 0.0, max: 1e5, max_open: false, unit: "Pa", log: false };
/// A liquid's bulk modulus, Pa: from a sound speed of 0.3 m/s in water, slower than anything
/// flows (softer is a gas), to water's real 2.2 GPa.
pub const BULK_MODULUS: Tunable =
    Tunable { field: "material.bulk_modulus", min: 1e2, max: 2.2e9, max_open: false, unit: "Pa", log: true };
/// A visco-plastic fluid's yield stress, Pa: from none (a Newtonian fluid) to a stiff paste.
pub const YIELD_STRESS: Tunable =
    Tunable { field: "material.yield_stress", min: 0.0, max: 1e6, max_open: false, unit: "Pa", log: false };
/// A visco-plastic fluid's viscosity, Pa·s: from water's 1e-3 (a tenth of it) to a thick tar.
pub const VISCOSITY: Tunable =
    Tunable { field: "material.viscosity", min: 1e-4, max: 1e6, max_open: false, unit: "Pa·s", log: true };
/// Density, kg/m³: from about that of air (the lightest snow is ~10× denser) to 100× ice.
pub const DENSITY: Tunable =
    Tunable { field: "material.density", min: 1.0, max: 1e5, max_open: false, unit: "kg/m³", log: true };

/// The view section's render settings, as the Render panel's sliders offer them: multiples of the
/// impostor radius (a particle spacing) from a fifth, where impostors turn to dots, to 3, where
/// neighbours' spheres cover each other.
pub const PARTICLE_SCALE: Tunable =
    Tunable { field: "view.render.particle_scale", min: 0.2, max: 3.0, max_open: false, unit: "×", log: false };
/// The view's exposure: from a tenth (snow reads grey) to 8× (snow in shade reads white).
pub const EXPOSURE: Tunable =
    Tunable { field: "view.render.exposure", min: 0.1, max: 8.0, max_open: false, unit: "×", log: true };
/// The volume's opacity per unit of fill: a tenth (a haze) to 20× (opaque at the thinnest fill).
pub const DENSITY_SCALE: Tunable =
    Tunable { field: "view.render.density_scale", min: 0.1, max: 20.0, max_open: false, unit: "×", log: true };
/// The speed colour field's top, m/s: the speeds a snowball falls and is thrown at.
pub const SPEED_SCALE: Tunable =
    Tunable { field: "view.render.speed_scale", min: 0.5, max: 50.0, max_open: false, unit: "m/s", log: true };
/// The 3D view's pixels per window pixel: a quarter (software adapters) to full.
pub const RESOLUTION_SCALE: Tunable =
    Tunable { field: "view.render.resolution_scale", min: 0.25, max: 1.0, max_open: false, unit: "×", log: false };

/// The view section's render settings, in scene file order.
pub const RENDER_TUNABLES: [Tunable; 5] = [PARTICLE_SCALE, EXPOSURE, DENSITY_SCALE, SPEED_SCALE, RESOLUTION_SCALE];

/// Every tunable value, in scene file order.
pub const TUNABLES: [Tunable; 13] = [
    GRID_RESOLUTION,
    FRICTION_ANGLE,
    COHESION,
    BULK_MODULUS,
    YIELD_STRESS,
    VISCOSITY,
    YOUNGS_MODULUS,
    POISSON_RATIO,
    HARDENING,
    CRITICAL_COMPRESSION,
    CRITICAL_STRETCH,
    TENSILE_STRENGTH,
    DENSITY,
];
