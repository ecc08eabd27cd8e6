//! The constants that the surface stage (`surface.wgsl`, [`super::surface`]) and its CPU twin
//! ([`super::surface_cpu`]) both need, in a file of their own so that neither imports the other
//! for them.

/// Fill fraction of the surface (half of snow at rest density). Mirrors `SURFACE_ISO` in
/// `surface.wgsl`, whose comment says why.
pub const SURFACE_ISO: f32 = 0.5;
/// The field every particle's position reaches after `surface_cover`. Mirrors `COVER_FILL` in
/// `surface_cover.wgsl`, whose comment says why.
pub const COVER_FILL: f32 = 0.55;
/// Fraction of an edge a crossing keeps from either end. Mirrors `SURFACE_EDGE_MARGIN`.
pub const SURFACE_EDGE_MARGIN: f32 = 0.02;
