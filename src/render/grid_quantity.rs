//! What the grid view shows ([`GridQuantity`]): the solver's node quantities, and under the water
//! integrator its cells' quantities.

/// Which node quantity the view shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GridQuantity {
    /// The node's mass in kg: the particles' masses splatted with the P2G weights.
    #[default]
    Mass,
    /// The node's speed |v| in m/s after the grid update (gravity, colliders, walls applied).
    Speed,
    /// The signed distance to the nearest collider in m (negative inside) at the end of the
    /// simulation's current frame; [`crate::collider::field::FAR`] where no collider is near.
    ColliderDistance,
    /// The particles' plastic volume ratio Jp, mass-weighted with the P2G weights: Σ w m Jp / Σ w m.
    PlasticJacobian,
    /// The particles' Kirchhoff stress magnitude |τ| (Frobenius norm, Pa), mass-weighted likewise.
    Stress,
    /// Water (the `flip` integrator), per cell of its grid: the kind its last projection solved it
    /// as, 0 air, 1 liquid, 2 solid.
    WaterCellKind,
    /// Water: the divergence before the last projection, 1/s.
    DivergenceBefore,
    /// Water: the divergence after it, 1/s.
    DivergenceAfter,
    /// Water: the pressure it solved for, Pa.
    Pressure,
    /// Water: the pressure solve's residual b − A p, Pa.
    SolveResidual,
}

impl GridQuantity {
    /// Every quantity, in the order the panel lists them.
    pub const ALL: [GridQuantity; 5] = [
        GridQuantity::Mass,
        GridQuantity::Speed,
        GridQuantity::ColliderDistance,
        GridQuantity::PlasticJacobian,
        GridQuantity::Stress,
    ];

    /// Its name in scripts (`--script "1:grid-view=pressure"`).
    pub fn name(self) -> &'static str {
        match self {
            GridQuantity::Mass => "mass",
            GridQuantity::Speed => "speed",
            GridQuantity::ColliderDistance => "collider_distance",
            GridQuantity::PlasticJacobian => "plastic_jacobian",
            GridQuantity::Stress => "stress",
            GridQuantity::WaterCellKind => "water_cell_kind",
            GridQuantity::DivergenceBefore => "divergence_before",
            GridQuantity::DivergenceAfter => "divergence_after",
            GridQuantity::Pressure => "pressure",
            GridQuantity::SolveResidual => "solve_residual",
        }
    }

    /// The water step's quantities, which the grid view offers under the `flip` integrator.
    pub const WATER: [GridQuantity; 5] = [
        GridQuantity::WaterCellKind,
        GridQuantity::DivergenceBefore,
        GridQuantity::DivergenceAfter,
        GridQuantity::Pressure,
        GridQuantity::SolveResidual,
    ];

    /// Whether it is one of the water step's cell quantities ([`GridQuantity::WATER`]).
    pub fn water(self) -> bool {
        Self::WATER.contains(&self)
    }

    /// Whether it is splatted from the particles rather than read from the grid.
    pub fn splatted(self) -> bool {
        matches!(self, GridQuantity::PlasticJacobian | GridQuantity::Stress)
    }

    /// `quantity` in the shader.
    pub(crate) fn code(self) -> u32 {
        match self {
            GridQuantity::Mass => 0,
            GridQuantity::Speed => 1,
            GridQuantity::ColliderDistance => 2,
            GridQuantity::PlasticJacobian => 3,
            GridQuantity::Stress => 4,
            // Read from the water step's cells on the host, never by the node pass.
            GridQuantity::WaterCellKind
            | GridQuantity::DivergenceBefore
            | GridQuantity::DivergenceAfter
            | GridQuantity::Pressure
            | GridQuantity::SolveResidual => u32::MAX,
        }
    }

    /// The name and unit for labels and legends.
    pub fn label(self) -> (&'static str, &'static str) {
        match self {
            GridQuantity::Mass => ("node mass", "kg"),
            GridQuantity::Speed => ("node speed |v|", "m/s"),
            GridQuantity::ColliderDistance => ("collider distance", "m"),
            GridQuantity::PlasticJacobian => ("plastic Jp (mass-weighted)", "1"),
            GridQuantity::Stress => ("stress |τ| (mass-weighted)", "Pa"),
            GridQuantity::WaterCellKind => ("water cell kind: 0 air, 1 liquid, 2 solid", "1"),
            GridQuantity::DivergenceBefore => ("divergence before the projection", "1/s"),
            GridQuantity::DivergenceAfter => ("divergence after the projection", "1/s"),
            GridQuantity::Pressure => ("pressure", "Pa"),
            GridQuantity::SolveResidual => ("pressure solve residual b − Ap", "Pa"),
        }
    }
}
