//! Scene validation: every number within its range, emitters inside the domain and non-empty.
//!
//! Scalar rules are listed once, in [`scalar_checks`], as (field path, value, allowed range); the
//! same list answers "what is allowed here" for overrides whose value cannot even be stored
//! (NaN, infinity).

use glam::DVec3;

use super::config::TimeStep;
use super::emitter::Emitter;
use super::error::SceneError;
use super::format::{MAX_PARTICLES, SCENE_VERSION, Scene};
use super::integrator_rules::integrator_rules;
use super::limit::{
    CFL_RANGE, COORDINATE_CELLS, DOMAIN_SIZE_RANGE, DT_RANGE, FINITE, FPS_RANGE, Limit, MAX_GRAVITY, MAX_SPEED_LIMIT,
    MAX_SPEED_RANGE, PACKING_AMPLITUDE_MAX, PACKING_LENGTH_RANGE, POSITIVE, SCALE_RANGE, number,
};
use super::pour::Pour;
use super::ranges::{
    BULK_MODULUS, COHESION, CRITICAL_COMPRESSION, CRITICAL_STRETCH, DENSITY, FRICTION_ANGLE, GRID_RESOLUTION,
    HARDENING, POISSON_RATIO, TENSILE_STRENGTH, VISCOSITY, YIELD_STRESS, YOUNGS_MODULUS,
};
use crate::collider::config::{ColliderShape, Transform};
use crate::sim::material::SnowMaterial;
use crate::sim::params::{MAX_MATERIALS, MAX_SUBSTEPS_PER_FRAME};

/// One scalar rule: the field's path, its current value and its range, and why the range is what
/// it is where that depends on other fields.
pub(crate) struct Check {
    pub(crate) field: String,
    pub(crate) value: f64,
    pub(crate) limit: Limit,
    pub(crate) note: Option<String>,
}

impl Check {
    /// The range as messages state it.
    pub(crate) fn allowed(&self) -> String {
        match &self.note {
            Some(note) => format!("{} ({note})", self.limit.describe()),
            None => self.limit.describe(),
        }
    }
}

fn check(field: impl Into<String>, value: f64, limit: Limit) -> Check {
    Check { field: field.into(), value, limit, note: None }
}

/// How far from the origin scene coordinates may lie, metres, and why: [`COORDINATE_CELLS`] cells.
fn reach(scene: &Scene) -> (f64, String) {
    let h = scene.cell_size();
    let note = format!(
        "within {} cells of {} m of the origin, where f32 positions still resolve 1/128 of a cell",
        COORDINATE_CELLS,
        number(h)
    );
    (COORDINATE_CELLS * h, note)
}

/// Each component of `v` within `[-reach, reach]`, shifted up by `extent` at the top.
fn coordinates(out: &mut Vec<Check>, field: &str, v: DVec3, extent: DVec3, scene: &Scene) {
    let (reach, note) = reach(scene);
    for (a, axis) in ["x", "y", "z"].iter().enumerate() {
        let limit = Limit::new(-reach, true, reach - extent[a], true);
        out.push(Check { note: Some(note.clone()), ..check(format!("{field}.{axis}"), v[a], limit) });
    }
}

fn vector(out: &mut Vec<Check>, field: &str, v: DVec3, limit: Limit) {
    for (axis, value) in ["x", "y", "z"].iter().zip(v.to_array()) {
        out.push(check(format!("{field}.{axis}"), value, limit));
    }
}

/// The speed an emitter may have: `max_speed` if given, otherwise half the `max_speed` limit (so
/// the default `max_speed`, twice the fastest emitter, stays within its limit).
fn emitter_speed_limit(scene: &Scene) -> f64 {
    scene.max_speed.unwrap_or(MAX_SPEED_LIMIT / 2.0)
}

/// Every scalar rule of `scene`, in file order (but `domain.min` after the size and grid it is
/// measured in).
pub(crate) fn scalar_checks(scene: &Scene) -> Vec<Check> {
    let closed = |lo, hi| Limit::new(lo, true, hi, true);
    const V: f64 = SCENE_VERSION as f64;
    let mut out = vec![check("version", scene.version as f64, closed(1.0, V))];
    // The size and the grid first: the reach of domain.min is counted in cells.
    vector(&mut out, "domain.size", scene.domain.size, DOMAIN_SIZE_RANGE);
    out.push(check(GRID_RESOLUTION.field, scene.grid.resolution as f64, GRID_RESOLUTION.limit()));
    coordinates(&mut out, "domain.min", scene.domain.min, scene.domain.size, scene);
    out.push(check("time.fps", scene.time.fps, FPS_RANGE));
    if let TimeStep::Fixed(dt) = scene.time.dt {
        out.push(check("time.dt", dt, DT_RANGE));
    }
    out.push(check("time.cfl", scene.time.cfl, CFL_RANGE));
    vector(&mut out, "gravity", scene.gravity, FINITE);
    out.push(check("|gravity|", scene.gravity.length(), closed(0.0, MAX_GRAVITY)));
    out.push(check("boundary.friction", scene.boundary.friction, closed(0.0, 10.0)));
    material_checks(&mut out, "", &scene.material);
    out.extend([
        check("particles_per_cell", scene.particles_per_cell as f64, closed(1.0, 64.0)),
        check("packing.amplitude", scene.packing.amplitude, closed(0.0, PACKING_AMPLITUDE_MAX)),
        check("packing.length", scene.packing.length, PACKING_LENGTH_RANGE),
        check("packing.strength", scene.packing.strength, closed(0.0, 3.0)),
        check("packing.grain", scene.packing.grain, closed(0.0, 10.0)),
    ]);
    if let Some(v) = scene.max_speed {
        out.push(check("max_speed", v, MAX_SPEED_RANGE));
    }
    collider_checks(&mut out, scene);
    for (i, e) in scene.emitters.iter().enumerate() {
        let name = format!("emitters[{i}]");
        match *e {
            Emitter::Box { min, max, .. } => {
                vector(&mut out, &format!("{name}.min"), min, FINITE);
                vector(&mut out, &format!("{name}.max"), max, FINITE);
            }
            Emitter::Sphere { center, radius, .. } => {
                vector(&mut out, &format!("{name}.center"), center, FINITE);
                out.push(check(format!("{name}.radius"), radius, POSITIVE));
            }
            Emitter::Mesh { transform, .. } => {
                transform_checks(&mut out, &format!("{name}.transform"), &transform, None);
            }
        }
        vector(&mut out, &format!("{name}.velocity"), e.velocity(), FINITE);
        if let Some(m) = e.material() {
            material_checks(&mut out, &format!("{name}."), m);
        }
        let speed = Limit::new(0.0, true, emitter_speed_limit(scene), true);
        out.push(check(format!("|{name}.velocity|"), e.velocity().length(), speed));
        if let Some(pour) = e.pour() {
            pour_checks(&mut out, &name, e, pour);
        }
    }
    out
}

/// The latest time a pouring emitter may pour until, seconds of scene time (about eleven days: far
/// past any shot, and a bound on the batches a scene can ask for).
const MAX_POUR_TIME: f64 = 1e6;

/// A pouring emitter's rules: a window within [0, MAX_POUR_TIME] of positive length, a speed to
/// pour at, and a rate no higher than the shape's own flow (its volume times its speed over its
/// length along its velocity), which is as fast as batches can be born without overlapping.
fn pour_checks(out: &mut Vec<Check>, name: &str, e: &Emitter, pour: &Pour) {
    out.push(check(format!("{name}.pour.start"), pour.start, Limit::new(0.0, true, MAX_POUR_TIME, true)));
    out.push(check(format!("{name}.pour.end"), pour.end, Limit::new(pour.start.max(0.0), false, MAX_POUR_TIME, true)));
    let speed = e.velocity().length();
    out.push(check(format!("|{name}.velocity| (pouring)"), speed, Limit::new(0.0, false, f64::INFINITY, true)));
    if let Some(rate) = pour.rate {
        let own = e.shape_volume().map(|v| v * speed / e.length_along_velocity(None).max(f64::MIN_POSITIVE));
        out.push(check(format!("{name}.pour.rate"), rate, Limit::new(0.0, false, own.unwrap_or(f64::INFINITY), true)));
    }
}

/// A material section's rules, its fields named `{prefix}material.…`. The ranges come from the one
/// table the app's sliders use too.
fn material_checks(out: &mut Vec<Check>, prefix: &str, m: &SnowMaterial) {
    let rules = [
        (FRICTION_ANGLE, m.friction_angle),
        (COHESION, m.cohesion),
        (BULK_MODULUS, m.bulk_modulus),
        (YIELD_STRESS, m.yield_stress),
        (VISCOSITY, m.viscosity),
        (YOUNGS_MODULUS, m.youngs_modulus),
        (POISSON_RATIO, m.poisson_ratio),
        (HARDENING, m.hardening),
        (CRITICAL_COMPRESSION, m.critical_compression),
        (CRITICAL_STRETCH, m.critical_stretch),
        (DENSITY, m.density),
        (TENSILE_STRENGTH, m.tensile_strength),
    ];
    for (tunable, value) in rules {
        out.push(check(format!("{prefix}{}", tunable.field), value, tunable.limit()));
    }
}

/// A transform's rules. A mesh emitter's translation needs no reach of its own (the placed mesh
/// must lie inside the domain); a collider's (`scene` given) must be within the coordinate reach.
fn transform_checks(out: &mut Vec<Check>, name: &str, t: &Transform, scene: Option<&Scene>) {
    match scene {
        Some(scene) => coordinates(out, &format!("{name}.translation"), t.translation, DVec3::ZERO, scene),
        None => vector(out, &format!("{name}.translation"), t.translation, FINITE),
    }
    vector(out, &format!("{name}.rotation_degrees"), t.rotation_degrees, FINITE);
    vector(out, &format!("{name}.scale"), t.scale, SCALE_RANGE);
}

/// The rules of the colliders (format v2).
fn collider_checks(out: &mut Vec<Check>, scene: &Scene) {
    for (i, c) in scene.colliders.iter().enumerate() {
        let name = format!("colliders[{i}]");
        transform_checks(out, &format!("{name}.transform"), &c.transform, Some(scene));
        out.push(check(format!("{name}.friction"), c.friction, Limit::new(0.0, true, 10.0, true)));
        // A shape larger than the coordinate reach covers all of it; beyond, f32 sizes overflow.
        let (reach, note) = reach(scene);
        let size = |field: String, value: f64, most: f64| Check {
            note: Some(note.clone()),
            ..check(field, value, Limit::new(0.0, false, most, true))
        };
        match c.shape {
            ColliderShape::Box { size: s } => {
                for (a, axis) in ["x", "y", "z"].iter().enumerate() {
                    out.push(size(format!("{name}.shape.size.{axis}"), s[a], 2.0 * reach));
                }
            }
            ColliderShape::Sphere { radius } => out.push(size(format!("{name}.shape.radius"), radius, reach)),
            ColliderShape::Plane | ColliderShape::Gltf { .. } => {}
        }
        if let Some(a) = &c.animation {
            out.push(check(format!("{name}.animation.speed"), a.speed, Limit::new(-100.0, true, 100.0, true)));
            out.push(check(format!("{name}.animation.offset"), a.offset, FINITE));
        }
        if let Some(k) = &c.keyframes {
            for (j, key) in k.keys.iter().enumerate() {
                out.push(check(format!("{name}.keyframes.keys[{j}].time"), key.time, FINITE));
                let field = format!("{name}.keyframes.keys[{j}].translation");
                coordinates(out, &field, key.translation, DVec3::ZERO, scene);
                vector(out, &format!("{name}.keyframes.keys[{j}].rotation_degrees"), key.rotation_degrees, FINITE);
            }
        }
    }
}

/// Rules that link fields of the colliders: shapes and their options, and v2-only features.
fn colliders_consistent(scene: &Scene, source: &str) -> Result<(), SceneError> {
    if scene.version < 2 {
        if !scene.colliders.is_empty() {
            return Err(SceneError::invalid(source, "version", 1, "2 for a scene with colliders"));
        }
        if scene.emitters.iter().any(|e| matches!(e, Emitter::Mesh { .. })) {
            return Err(SceneError::invalid(source, "version", 1, "2 for a scene with mesh emitters"));
        }
    }
    if scene.version < 3 && scene.emitters.iter().any(|e| e.material().is_some()) {
        return Err(SceneError::invalid(source, "version", scene.version, "3 for a scene with emitter materials"));
    }
    if scene.version < 4 && scene.emitters.iter().any(|e| e.pour().is_some()) {
        return Err(SceneError::invalid(source, "version", scene.version, "4 for a scene with pouring emitters"));
    }
    // Emitters from the material table's last entry on share it.
    if let Some(rest) = scene.emitters.get(MAX_MATERIALS - 1..)
        && let Some(i) = rest.iter().position(|e| e.material() != rest[0].material())
    {
        let field = format!("emitters[{}].material", MAX_MATERIALS - 1 + i);
        return Err(SceneError::invalid(
            source,
            field,
            "a material of its own",
            format!(
                "that of emitters[{}]: emitters from the {MAX_MATERIALS}th on share one material",
                MAX_MATERIALS - 1
            ),
        ));
    }
    for (i, c) in scene.colliders.iter().enumerate() {
        let name = format!("colliders[{i}]");
        let s = c.transform.scale;
        let uniform = (s.x - s.y).abs() <= 1e-9 * s.x && (s.x - s.z).abs() <= 1e-9 * s.x;
        if matches!(c.shape, ColliderShape::Sphere { .. }) && !uniform {
            let value = format!("[{}, {}, {}]", number(s.x), number(s.y), number(s.z));
            return Err(SceneError::invalid(
                source,
                format!("{name}.transform.scale"),
                value,
                "equal x, y, z for a sphere",
            ));
        }
        if let Some(a) = &c.animation {
            let ColliderShape::Gltf { path } = &c.shape else {
                let allowed = "only on a \"gltf\" shape (use keyframes to move other shapes)";
                return Err(SceneError::invalid(source, format!("{name}.animation"), c.shape.type_name(), allowed));
            };
            if let Some(model) = scene.assets.model(path) {
                model.find_animation(&a.clip).map_err(|e| SceneError::Asset {
                    source_name: source.to_string(),
                    field: format!("{name}.animation.clip"),
                    message: e.to_string(),
                })?;
            }
        }
        if let Some(k) = &c.keyframes {
            if k.keys.is_empty() {
                return Err(SceneError::invalid(source, format!("{name}.keyframes.keys"), "[]", "at least one key"));
            }
            if let Some(j) = k.keys.windows(2).position(|w| w[1].time <= w[0].time) {
                let field = format!("{name}.keyframes.keys[{}].time", j + 1);
                let allowed = format!("> keys[{j}].time = {}", number(k.keys[j].time));
                return Err(SceneError::invalid(source, field, number(k.keys[j + 1].time), allowed));
            }
        }
    }
    Ok(())
}

/// What `field` (a path as in error messages, e.g. `emitters[0].radius`) accepts, if it has a
/// scalar rule.
pub(crate) fn allowed_for(scene: &Scene, field: &str) -> Option<String> {
    if field == "time.dt" {
        return Some(format!("\"auto\" or {}", DT_RANGE.describe()));
    }
    if field == "max_speed" {
        return Some(MAX_SPEED_RANGE.describe());
    }
    scalar_checks(scene).into_iter().find(|c| c.field == field).map(|c| c.allowed())
}

/// Checks every rule; the first broken one is the error.
pub(crate) fn validate(scene: &Scene, source: &str) -> Result<(), SceneError> {
    if let Some(view) = &scene.view {
        view.validate(source)?;
    }
    if scene.emitters.is_empty() {
        return Err(SceneError::invalid(source, "emitters", "[]", "a list of at least one emitter"));
    }
    for c in scalar_checks(scene) {
        if !c.limit.contains(c.value) {
            let allowed = if c.field == "time.dt" { format!("\"auto\" or {}", c.allowed()) } else { c.allowed() };
            return Err(SceneError::invalid(source, c.field, number(c.value), allowed));
        }
    }
    let default_speed = scene.effective_max_speed();
    if !(default_speed > 0.0 && default_speed <= MAX_SPEED_LIMIT) {
        let allowed = format!("(0, {}]", number(MAX_SPEED_LIMIT));
        return Err(SceneError::invalid(source, "max_speed", number(default_speed), allowed));
    }
    integrator_rules(scene, source)?;
    substeps_fit(scene, source)?;
    let lo = scene.domain.min;
    let hi = scene.domain.min + scene.domain.size;
    let tol = 1e-9 * scene.domain.size.max_element();
    colliders_consistent(scene, source)?;
    // Mesh emitters' placed meshes, posed once for both checks.
    let meshes: Vec<_> = (0..scene.emitters.len()).map(|i| scene.emitter_mesh(i)).collect();
    for (i, e) in scene.emitters.iter().enumerate() {
        emitter_inside(source, i, e, meshes[i].as_ref(), lo, hi, tol)?;
    }
    particle_counts(scene, &meshes, source)
}

/// A frame fits in [`MAX_SUBSTEPS_PER_FRAME`] substeps: of the fixed `time.dt`, or of the
/// adaptive step the scene starts with. `powder run` and the app never lengthen a fixed dt to fit
/// a frame, so a scene asking for more substeps is refused here rather than run differently.
fn substeps_fit(scene: &Scene, source: &str) -> Result<(), SceneError> {
    let cap = MAX_SUBSTEPS_PER_FRAME as f64;
    let (fps, frame) = (scene.time.fps, scene.frame_duration());
    match scene.time.dt {
        TimeStep::Fixed(dt) if (frame / dt).ceil() > cap => {
            let allowed = format!(
                "\"auto\" or [{}, {}] at time.fps = {}: a frame may take at most {MAX_SUBSTEPS_PER_FRAME} substeps",
                number(frame / cap),
                number(DT_RANGE.hi()),
                number(fps)
            );
            Err(SceneError::invalid(source, "time.dt", number(dt), allowed))
        }
        TimeStep::Auto => {
            let dt = scene.solver_params().dt;
            if (frame / dt).ceil() <= cap {
                return Ok(());
            }
            let lowest = 1.0 / (cap * dt);
            let why = format!(
                "with time.dt = \"auto\" the scene starts at a stable step of {} s, and a frame may take at most \
                 {MAX_SUBSTEPS_PER_FRAME} substeps",
                number(dt)
            );
            let allowed = if FPS_RANGE.contains(lowest) {
                format!("[{}, {}]: {why}", number(lowest), number(FPS_RANGE.hi()))
            } else {
                format!("none: {why}; a coarser grid.resolution or softer material allows a longer step")
            };
            Err(SceneError::invalid(source, "time.fps", number(fps), allowed))
        }
        TimeStep::Fixed(_) => Ok(()),
    }
}

/// Emitter `i` lies within `[lo, hi]` (give or take `tol`, for decimal round-off) on every axis.
fn emitter_inside(
    source: &str,
    i: usize,
    e: &Emitter,
    mesh: Option<&crate::mesh::TriangleMesh>,
    lo: DVec3,
    hi: DVec3,
    tol: f64,
) -> Result<(), SceneError> {
    let axes = ["x", "y", "z"];
    for a in 0..3 {
        let (dlo, dhi) = (number(lo[a]), number(hi[a]));
        let inside = format!("[{dlo}, {dhi}], inside the domain along {}", axes[a]);
        let (low_field, high_field, low, high) = match *e {
            Emitter::Box { min, max, .. } => {
                if max[a] <= min[a] {
                    let field = format!("emitters[{i}].max.{}", axes[a]);
                    let allowed = format!("> emitters[{i}].min.{} = {}", axes[a], number(min[a]));
                    return Err(SceneError::invalid(source, field, number(max[a]), allowed));
                }
                let f = |s: &str| format!("emitters[{i}].{s}.{}", axes[a]);
                (f("min"), f("max"), min[a], max[a])
            }
            Emitter::Sphere { center, radius, .. } => {
                let f = |sign: &str| format!("emitters[{i}].center.{} {sign} radius", axes[a]);
                (f("-"), f("+"), center[a] - radius, center[a] + radius)
            }
            Emitter::Mesh { .. } => {
                let (mlo, mhi) = e.bounds(mesh);
                let f = |s: &str| format!("emitters[{i}] (the mesh placed by its transform): {s} {}", axes[a]);
                (f("lowest"), f("highest"), mlo[a], mhi[a])
            }
        };
        if low < lo[a] - tol {
            return Err(SceneError::invalid(source, low_field, number(low), inside));
        }
        if high > hi[a] + tol {
            return Err(SceneError::invalid(source, high_field, number(high), inside));
        }
    }
    Ok(())
}

/// The total stays below [`MAX_PARTICLES`] and every emitter makes at least one particle.
///
/// Lattices of more than 1000 points need not be sampled: a box keeps every lattice point (they lie
/// at least s/4 inside its faces, farther than the jitter reaches), and a sphere with ≥ 11 points
/// per axis has r ≥ 4.5 s, so the points nearest its centre (within √3·s/2 + √3·s/4 < 1.3 s) are kept.
fn particle_counts(
    scene: &Scene,
    meshes: &[Option<crate::mesh::TriangleMesh>],
    source: &str,
) -> Result<(), SceneError> {
    let spacing = scene.particle_spacing();
    let total =
        scene.emitters.iter().zip(meshes).fold(0u64, |t, (e, m)| t.saturating_add(e.max_points(spacing, m.as_ref())));
    if total > MAX_PARTICLES {
        let source_name = source.to_string();
        return Err(SceneError::TooManyParticles { source_name, count: total, limit: MAX_PARTICLES });
    }
    for (i, e) in scene.emitters.iter().enumerate() {
        let mesh = meshes[i].as_ref();
        let lattice = e.max_points(spacing, mesh);
        // A mesh may be thin whatever its bounding box: always sample it, up to its first slab
        // that holds a particle.
        let any = (lattice > 1000 && !matches!(e, Emitter::Mesh { .. }))
            || e.sample(spacing, super::emitter::emitter_seed(scene.seed, i), mesh, true, &mut |_, _| {}).count() > 0;
        if !any {
            let source_name = source.to_string();
            return Err(SceneError::NoParticles { source_name, emitter: i, spacing });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::ranges::TUNABLES;

    #[test]
    fn every_rule_of_the_default_scene_holds_and_can_be_looked_up() {
        let scene = Scene::builtin_default();
        for c in scalar_checks(&scene) {
            assert!(c.limit.contains(c.value), "{} = {}", c.field, c.value);
        }
        let allowed = |f: &str| allowed_for(&scene, f);
        assert_eq!(allowed("emitters[0].radius").as_deref(), Some("> 0"));
        assert_eq!(allowed("material.critical_compression").as_deref(), Some("[1e-5, 0.99999]"));
        assert_eq!(allowed("max_speed").as_deref(), Some("[0.001, 1e5]"));
        assert_eq!(allowed("name"), None);
    }

    /// A block of snow: any valid scene carries every tunable field.
    const SCENE: &str = r#"{ "version": 2, "domain": { "min": [0, 0, 0], "size": [1, 1, 1] },
      "grid": { "resolution": 16 }, "emitters": [ { "shape": "box", "min": [0.3, 0.3, 0.3], "max": [0.6, 0.6, 0.6] } ] }"#;

    /// Validation checks each tunable field against the table's range, and the control range's
    /// ends are inside it while the values just beyond are not.
    #[test]
    fn validation_follows_the_table() {
        let scene = Scene::from_json(SCENE, "ranges test").expect("scene");
        let checks = scalar_checks(&scene);
        for t in TUNABLES {
            let check = checks.iter().find(|c| c.field == t.field).unwrap_or_else(|| panic!("{} unchecked", t.field));
            assert_eq!(check.limit, t.limit(), "{}", t.field);
            let (lo, hi) = (*t.control_range().start(), *t.control_range().end());
            assert!(t.contains(lo) && t.contains(hi), "{}: the control's ends are allowed", t.field);
            assert!(!t.contains(lo - 1e-9 * lo.abs().max(1.0)), "{} below the range", t.field);
            assert!(!t.contains(if t.max_open { t.max } else { hi * (1.0 + 1e-9) }), "{} above the range", t.field);
        }
        assert_eq!(GRID_RESOLUTION.min, 4.0, "the panel offers what the command line accepts");
    }
}
