//! A scene's colliders at any time: where each one is, how fast its surface moves, and the
//! per-node fields the solver's grid update reads (`field.rs`).
//!
//! Velocities come from positions: over a frame `[t0, t1]` every vertex (or rigid pose) moves
//! from its place at `t0` to its place at `t1`, and the surface velocity is that displacement over
//! `t1 − t0`. The snow is then pushed by exactly as much as the collider moved in the frame.
//!
//! A set is made of plain collider descriptions ([`PlacedCollider`]); `ColliderSet::from_scene`
//! (in `crate::scene`, which stands on this module) makes one from a scene's colliders and the
//! models it loaded.

use std::sync::Arc;

use glam::{DMat4, DQuat, DVec3, Mat4, Vec3};

use super::config::{ColliderConfig, ColliderShape};
use super::field::{ColliderField, ColliderFrames};
use super::sdf::{MeshSdf, mesh_sdf};
use super::shapes::{AnalyticShape, RigidPose, analytic_sdf};
use crate::grid::{Boundary, GridSpec};
use crate::mesh::{GltfModel, TriangleMesh};

/// Cells on each side of a mesh's surface within which its distance is exact (`mesh_sdf`). Three
/// cover the quadratic stencil (1.5 cells) of a particle touching the surface, with margin for a
/// surface that moves up to a cell per frame.
pub const BAND_CELLS: f32 = 3.0;

/// One collider, ready to sample.
#[derive(Clone)]
pub struct PlacedCollider {
    /// Its description: shape, placement, motion and surface.
    pub config: ColliderConfig,
    /// The model a `gltf` shape names, loaded (`None` for analytic shapes).
    pub model: Option<Arc<GltfModel>>,
    /// Index in `model`'s animations of the clip that `config.animation` plays, if any.
    pub clip: Option<usize>,
}

impl PlacedCollider {
    /// Moved by keyframes or a glTF clip.
    fn animated(&self) -> bool {
        self.config.keyframes.is_some() || self.clip.is_some()
    }

    /// The placement at scene time `t`: keyframed motion after the static transform.
    fn matrix_at(&self, t: f64) -> DMat4 {
        let placed = self.config.transform.matrix();
        match &self.config.keyframes {
            Some(k) => k.matrix_at(t) * placed,
            None => placed,
        }
    }

    /// The glTF mesh at scene time `t`, in the world (`None` for analytic shapes).
    fn mesh_at(&self, t: f64) -> Option<TriangleMesh> {
        let model = self.model.as_ref()?;
        let clip_time = match (self.clip, &self.config.animation) {
            (Some(c), Some(playback)) => playback.clip_time(t, model.animations()[c].duration as f64) as f32,
            _ => 0.0,
        };
        Some(model.mesh_at(self.clip, clip_time).transformed(&self.matrix_at(t).as_mat4()))
    }

    /// The analytic shape's rigid pose at `t0` and at `t1`, both carrying the velocity that
    /// takes the first to the second over `t1 − t0` (zero if the span is empty); `None` for a
    /// glTF shape.
    fn analytic(&self, t0: f64, t1: f64) -> Option<(AnalyticShape, RigidPose, RigidPose)> {
        let scale = self.config.transform.scale;
        let shape = match self.config.shape {
            ColliderShape::Plane => AnalyticShape::HalfSpace,
            ColliderShape::Box { size } => AnalyticShape::Box { half_extents: (0.5 * size * scale).as_vec3() },
            ColliderShape::Sphere { radius } => AnalyticShape::Ball { radius: (radius * scale.x) as f32 },
            ColliderShape::Gltf { .. } => return None,
        };
        let rigid = |m: DMat4| -> (DQuat, DVec3) {
            let (_, rotation, translation) = m.to_scale_rotation_translation();
            (rotation, translation)
        };
        let (r0, p0) = rigid(self.matrix_at(t0));
        let (r1, p1) = rigid(self.matrix_at(t1));
        let span = t1 - t0;
        let (linear, angular) = if span > 0.0 {
            let (axis, angle) = (r1 * r0.inverse()).to_axis_angle();
            // to_axis_angle gives an angle in [0, 2π); the short way round is what moved.
            let angle = if angle > std::f64::consts::PI { angle - 2.0 * std::f64::consts::PI } else { angle };
            ((p1 - p0) / span, axis * angle / span)
        } else {
            (DVec3::ZERO, DVec3::ZERO)
        };
        let pose = |rotation: DQuat, translation: DVec3| RigidPose {
            translation: translation.as_vec3(),
            rotation: rotation.as_quat(),
            linear_velocity: linear.as_vec3(),
            angular_velocity: angular.as_vec3(),
        };
        Some((shape, pose(r0, p0), pose(r1, p1)))
    }

    /// The collider sampled on `grid` at `t0` and at `t1`, both with the surface velocity of the
    /// frame `[t0, t1]`. A static collider (or an empty span) is sampled once and the field shared.
    /// A moving mesh whose vertices at `t0` are where `last_end` was built takes that field as its
    /// start, with this frame's velocities ([`MeshSdf::with_velocity`]), rather than building it
    /// again; `builds` counts the mesh fields built.
    fn sample_frame(&self, grid: &GridSpec, t0: f64, t1: f64, last_end: Option<EndField>, builds: &mut u64) -> Sample {
        let moving = t1 > t0 && self.animated();
        if let Some((shape, start, end)) = self.analytic(t0, t1) {
            let end = moving.then(|| analytic_sdf(shape, &end, grid));
            return Sample { start: analytic_sdf(shape, &start, grid), end, end_positions: None, unused: None };
        }
        let start = self.mesh_at(t0).unwrap_or_default();
        if !moving {
            *builds += 1;
            let start = mesh_sdf(&start, None, grid, BAND_CELLS);
            // An empty frame (paused, scrubbed) leaves the last end field for the next one.
            return Sample { start, end: None, end_positions: None, unused: last_end };
        }
        let end = self.mesh_at(t1).unwrap_or_default();
        let span = (t1 - t0) as f32;
        // The same model gives every pose the same vertices (GltfModel::mesh_at).
        let velocity: Vec<Vec3> = start.positions.iter().zip(&end.positions).map(|(a, b)| (*b - *a) / span).collect();
        let start_sdf = match last_end {
            Some(last) if last.positions == start.positions => last.sdf.with_velocity(&start, &velocity),
            _ => {
                *builds += 1;
                mesh_sdf(&start, Some(&velocity), grid, BAND_CELLS)
            }
        };
        *builds += 1;
        let end_sdf = mesh_sdf(&end, Some(&velocity), grid, BAND_CELLS);
        Sample { start: start_sdf, end: Some(end_sdf), end_positions: Some(end.positions), unused: None }
    }
}

/// One collider's fields over a frame ([`PlacedCollider::sample_frame`]).
struct Sample {
    /// At the frame's start.
    start: MeshSdf,
    /// At its end, if the collider moves in it.
    end: Option<MeshSdf>,
    /// A moving mesh's vertices at the frame's end.
    end_positions: Option<Vec<Vec3>>,
    /// The last end field, handed back where this frame did not use it.
    unused: Option<EndField>,
}

/// A moving mesh collider's field at the end of the last frame, and the vertex positions it was
/// built from: its field at the start of the next frame too, if the mesh is still there.
struct EndField {
    positions: Vec<Vec3>,
    sdf: MeshSdf,
}

/// The colliders of a scene on one grid.
pub struct ColliderSet {
    placed: Vec<PlacedCollider>,
    surfaces: Vec<Boundary>,
    grid: GridSpec,
    /// The field of the static colliders, sampled once per grid.
    static_field: Option<ColliderField>,
    /// Per collider, a moving mesh's field at the end of the last frame.
    last_end: Vec<Option<EndField>>,
    /// Mesh fields built so far.
    builds: u64,
}

impl ColliderSet {
    /// The colliders `placed`, sampled on `grid`.
    pub fn new(placed: Vec<PlacedCollider>, grid: GridSpec) -> Self {
        let surfaces =
            placed.iter().map(|p| Boundary { kind: p.config.boundary, friction: p.config.friction }).collect();
        let last_end = placed.iter().map(|_| None).collect();
        Self { placed, surfaces, grid, static_field: None, last_end, builds: 0 }
    }

    /// No colliders at all.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// Whether any collider moves.
    pub fn is_animated(&self) -> bool {
        self.placed.iter().any(PlacedCollider::animated)
    }

    /// Moves the set onto a new grid (the fields are resampled on the next frame).
    pub fn set_grid(&mut self, grid: GridSpec) {
        if grid != self.grid {
            self.grid = grid;
            self.static_field = None;
            self.last_end.iter_mut().for_each(|end| *end = None);
        }
    }

    /// Mesh fields built so far (a moving mesh's field at a frame's start is taken from the last
    /// frame's end where the mesh is still there).
    pub fn mesh_builds(&self) -> u64 {
        self.builds
    }

    /// The solver's collider state for the frame from scene time `t0` to `t1`, or `None` if there
    /// are no colliders. Static colliders are sampled once; moving ones at both ends of every
    /// frame, a mesh's start taken from the last frame's end where its vertices are still there.
    pub fn frames(&mut self, t0: f64, t1: f64) -> Option<ColliderFrames> {
        if self.placed.is_empty() {
            return None;
        }
        let nodes = self.grid.node_count() as usize;
        if self.static_field.is_none() {
            let mut field = ColliderField::empty(nodes);
            for (i, p) in self.placed.iter().enumerate().filter(|(_, p)| !p.animated()) {
                let s = p.sample_frame(&self.grid, 0.0, 0.0, None, &mut self.builds).start;
                field.add(i as u32, &s.distance, &s.normal, &s.velocity);
            }
            self.static_field = Some(field);
        }
        let base = self.static_field.clone().unwrap_or_else(|| ColliderField::empty(nodes));
        let (mut from, mut to) = (base.clone(), base);
        for (i, p) in self.placed.iter().enumerate().filter(|(_, p)| p.animated()) {
            let sample = p.sample_frame(&self.grid, t0, t1, self.last_end[i].take(), &mut self.builds);
            let (a, b) = (&sample.start, sample.end.as_ref().unwrap_or(&sample.start));
            from.add(i as u32, &a.distance, &a.normal, &a.velocity);
            to.add(i as u32, &b.distance, &b.normal, &b.velocity);
            self.last_end[i] = match (sample.end, sample.end_positions) {
                (Some(sdf), Some(positions)) => Some(EndField { positions, sdf }),
                _ => sample.unused,
            };
        }
        Some(ColliderFrames { from, to, surfaces: self.surfaces.clone() })
    }

    /// Every collider as a triangle mesh at scene time `t`, for drawing. Planes become a square
    /// covering the domain; boxes and balls are tessellated.
    pub fn meshes_at(&self, t: f64) -> Vec<TriangleMesh> {
        let (lo, hi) = (self.grid.domain_min.as_vec3(), self.grid.domain_max().as_vec3());
        let extent = (hi - lo).length();
        self.placed
            .iter()
            .map(|p| {
                if let Some(mesh) = p.mesh_at(t) {
                    return mesh;
                }
                let Some((shape, pose, _)) = p.analytic(t, t) else {
                    return TriangleMesh::default();
                };
                let local = match shape {
                    AnalyticShape::HalfSpace => {
                        // A square in the plane, centred where the domain's centre projects onto it.
                        let centre = pose.rotation.inverse() * (0.5 * (lo + hi) - pose.translation);
                        super::display::square(Vec3::new(centre.x, centre.y, 0.0), extent)
                    }
                    AnalyticShape::Box { half_extents } => super::display::cuboid(half_extents),
                    AnalyticShape::Ball { radius } => super::display::ball(radius, 3),
                };
                local.transformed(&Mat4::from_rotation_translation(pose.rotation, pose.translation))
            })
            .collect()
    }

    /// The duration of the longest glTF clip in use, seconds (for the app's time scrubber).
    pub fn clip_duration(&self) -> Option<f64> {
        let durations = self.placed.iter().filter_map(|p| {
            let (model, clip, playback) = (p.model.as_ref()?, p.clip?, p.config.animation.as_ref()?);
            Some(model.animations()[clip].duration as f64 / playback.speed.abs().max(1e-9))
        });
        durations.fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))))
    }
}
