//! Scene validation: every number within its range, emitters inside the domain and non-empty.
//!
//! Scalar rules are listed once, in [`scalar_checks`], as (field path, value, allowed range); the
//! same list answers "what is allowed here" for overrides whose value cannot even be stored
//! (NaN, infinity).

use glam::DVec3;

use super::emitter::Emitter;
use super::error::SceneError;
use super::limit::{DT_RANGE, FINITE, Limit, MAX_GRAVITY, MAX_SPEED_LIMIT, POSITIVE, number};
use super::{MAX_PARTICLES, SCENE_VERSION, Scene, TimeStep};

/// One scalar rule: the field's path, its current value and its range.
pub(crate) struct Check {
    pub(crate) field: String,
    pub(crate) value: f64,
    pub(crate) limit: Limit,
}

fn check(field: impl Into<String>, value: f64, limit: Limit) -> Check {
    Check { field: field.into(), value, limit }
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

/// Every scalar rule of `scene`, in file order.
pub(crate) fn scalar_checks(scene: &Scene) -> Vec<Check> {
    let closed = |lo, hi| Limit::new(lo, true, hi, true);
    let open_closed = |lo, hi| Limit::new(lo, false, hi, true);
    let open = |lo, hi| Limit::new(lo, false, hi, false);
    let m = &scene.material;
    const V: f64 = SCENE_VERSION as f64;
    let mut out = vec![check("version", scene.version as f64, closed(1.0, V))];
    vector(&mut out, "domain.min", scene.domain.min, FINITE);
    vector(&mut out, "domain.size", scene.domain.size, POSITIVE);
    out.push(check("grid.resolution", scene.grid.resolution as f64, closed(4.0, 1024.0)));
    out.push(check("time.fps", scene.time.fps, open_closed(0.0, 1000.0)));
    if let TimeStep::Fixed(dt) = scene.time.dt {
        out.push(check("time.dt", dt, DT_RANGE));
    }
    out.push(check("time.cfl", scene.time.cfl, open_closed(0.0, 1.0)));
    vector(&mut out, "gravity", scene.gravity, FINITE);
    out.push(check("|gravity|", scene.gravity.length(), closed(0.0, MAX_GRAVITY)));
    out.push(check("boundary.friction", scene.boundary.friction, closed(0.0, 10.0)));
    out.extend([
        check("material.youngs_modulus", m.youngs_modulus, open_closed(0.0, 1e9)),
        check("material.poisson_ratio", m.poisson_ratio, Limit::new(0.0, true, 0.5, false)),
        check("material.hardening", m.hardening, closed(0.0, 100.0)),
        check("material.critical_compression", m.critical_compression, open(0.0, 1.0)),
        check("material.critical_stretch", m.critical_stretch, open_closed(0.0, 1e6)),
        check("material.density", m.density, open_closed(0.0, 1e5)),
        check("particles_per_cell", scene.particles_per_cell as f64, closed(1.0, 64.0)),
    ]);
    if let Some(v) = scene.max_speed {
        out.push(check("max_speed", v, open_closed(0.0, MAX_SPEED_LIMIT)));
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
            Emitter::Mesh { transform, .. } => transform_checks(&mut out, &format!("{name}.transform"), &transform),
        }
        vector(&mut out, &format!("{name}.velocity"), e.velocity(), FINITE);
        let speed = Limit::new(0.0, true, emitter_speed_limit(scene), true);
        out.push(check(format!("|{name}.velocity|"), e.velocity().length(), speed));
    }
    out
}

fn transform_checks(out: &mut Vec<Check>, name: &str, t: &super::Transform) {
    vector(out, &format!("{name}.translation"), t.translation, FINITE);
    vector(out, &format!("{name}.rotation_degrees"), t.rotation_degrees, FINITE);
    vector(out, &format!("{name}.scale"), t.scale, POSITIVE);
}

/// The rules of the colliders (format v2).
fn collider_checks(out: &mut Vec<Check>, scene: &Scene) {
    use super::ColliderShape;
    for (i, c) in scene.colliders.iter().enumerate() {
        let name = format!("colliders[{i}]");
        transform_checks(out, &format!("{name}.transform"), &c.transform);
        out.push(check(format!("{name}.friction"), c.friction, Limit::new(0.0, true, 10.0, true)));
        match c.shape {
            ColliderShape::Box { size } => vector(out, &format!("{name}.shape.size"), size, POSITIVE),
            ColliderShape::Sphere { radius } => out.push(check(format!("{name}.shape.radius"), radius, POSITIVE)),
            ColliderShape::Plane | ColliderShape::Gltf { .. } => {}
        }
        if let Some(a) = &c.animation {
            out.push(check(format!("{name}.animation.speed"), a.speed, Limit::new(-100.0, true, 100.0, true)));
            out.push(check(format!("{name}.animation.offset"), a.offset, FINITE));
        }
        if let Some(k) = &c.keyframes {
            for (j, key) in k.keys.iter().enumerate() {
                out.push(check(format!("{name}.keyframes.keys[{j}].time"), key.time, FINITE));
                vector(out, &format!("{name}.keyframes.keys[{j}].translation"), key.translation, FINITE);
                vector(out, &format!("{name}.keyframes.keys[{j}].rotation_degrees"), key.rotation_degrees, FINITE);
            }
        }
    }
}

/// Rules that link fields of the colliders: shapes and their options, and v2-only features.
fn colliders_consistent(scene: &Scene, source: &str) -> Result<(), SceneError> {
    use super::ColliderShape;
    if scene.version < 2 {
        if !scene.colliders.is_empty() {
            return Err(SceneError::invalid(source, "version", 1, "2 for a scene with colliders"));
        }
        if scene.emitters.iter().any(|e| matches!(e, Emitter::Mesh { .. })) {
            return Err(SceneError::invalid(source, "version", 1, "2 for a scene with mesh emitters"));
        }
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
        return Some(Limit::new(0.0, false, MAX_SPEED_LIMIT, true).describe());
    }
    scalar_checks(scene).into_iter().find(|c| c.field == field).map(|c| c.limit.describe())
}

/// Checks every rule; the first broken one is the error.
pub(crate) fn validate(scene: &Scene, source: &str) -> Result<(), SceneError> {
    if scene.emitters.is_empty() {
        return Err(SceneError::invalid(source, "emitters", "[]", "a list of at least one emitter"));
    }
    for c in scalar_checks(scene) {
        if !c.limit.contains(c.value) {
            let allowed =
                if c.field == "time.dt" { format!("\"auto\" or {}", c.limit.describe()) } else { c.limit.describe() };
            return Err(SceneError::invalid(source, c.field, number(c.value), allowed));
        }
    }
    let default_speed = scene.effective_max_speed();
    if !(default_speed > 0.0 && default_speed <= MAX_SPEED_LIMIT) {
        let allowed = format!("(0, {}]", number(MAX_SPEED_LIMIT));
        return Err(SceneError::invalid(source, "max_speed", number(default_speed), allowed));
    }
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

    #[test]
    fn every_rule_of_the_default_scene_holds_and_can_be_looked_up() {
        let scene = Scene::builtin_default();
        for c in scalar_checks(&scene) {
            assert!(c.limit.contains(c.value), "{} = {}", c.field, c.value);
        }
        let allowed = |f: &str| allowed_for(&scene, f);
        assert_eq!(allowed("emitters[0].radius").as_deref(), Some("> 0"));
        assert_eq!(allowed("material.critical_compression").as_deref(), Some("(0, 1)"));
        assert_eq!(allowed("max_speed").as_deref(), Some("(0, 1e5]"));
        assert_eq!(allowed("name"), None);
    }
}
