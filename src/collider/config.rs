//! Colliders as scene files describe them (format v2, `docs/scene-format.md`, "colliders"): their
//! shape, placement and motion. `crate::scene` re-exports these types; [`super::set`] samples them.

use std::path::PathBuf;

use glam::{DMat4, DQuat, DVec3, EulerRot};
use serde::{Deserialize, Serialize};

use crate::grid::BoundaryKind;
use crate::mesh::AnimationSelector;

/// A solid the snow meets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColliderConfig {
    /// Free-form label shown in the app. Optional.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// What it is, in its own frame.
    pub shape: ColliderShape,
    /// Where it is: applied to the shape's own frame. Optional, default identity.
    #[serde(default)]
    pub transform: Transform,
    /// Boundary condition at its surface. Optional, default `separate`.
    #[serde(default)]
    pub boundary: BoundaryKind,
    /// Coulomb friction coefficient μ at its surface. Optional, default 0.3.
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// A glTF animation clip driving a `gltf` shape. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animation: Option<ClipPlayback>,
    /// Scripted motion of the whole collider, applied after `transform`. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyframes: Option<Keyframes>,
}

fn default_friction() -> f64 {
    0.3
}

/// A collider's shape in its own frame (before `transform`). JSON: `{"type": "box", ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum ColliderShape {
    /// The half-space z ≤ 0 (solid below the plane z = 0, normal +z); tilt it with `transform`.
    Plane,
    /// A box centred on the origin.
    Box {
        /// Edge lengths along x, y, z, metres.
        size: DVec3,
    },
    /// A ball centred on the origin.
    Sphere {
        /// Radius, metres.
        radius: f64,
    },
    /// Every mesh of a glTF file (`.gltf` or `.glb`), imported z-up (docs/scene-format.md).
    Gltf {
        /// The file, relative to the scene file's folder.
        path: PathBuf,
    },
}

impl ColliderShape {
    /// The `type` name as written in scene files.
    pub fn type_name(&self) -> &'static str {
        match self {
            ColliderShape::Plane => "plane",
            ColliderShape::Box { .. } => "box",
            ColliderShape::Sphere { .. } => "sphere",
            ColliderShape::Gltf { .. } => "gltf",
        }
    }
}

/// Translation, rotation and scale: `world = translation + rotation · (scale ∘ local)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Transform {
    /// Metres.
    pub translation: DVec3,
    /// Rotations about x, then y, then z (fixed axes), degrees.
    pub rotation_degrees: DVec3,
    /// Scale along each local axis.
    pub scale: DVec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self { translation: DVec3::ZERO, rotation_degrees: DVec3::ZERO, scale: DVec3::ONE }
    }
}

impl Transform {
    /// The rotation: x first, then y, then z, about the fixed axes.
    pub fn rotation(&self) -> DQuat {
        let r = self.rotation_degrees * (std::f64::consts::PI / 180.0);
        DQuat::from_euler(EulerRot::ZYX, r.z, r.y, r.x)
    }

    /// The affine map.
    pub fn matrix(&self) -> DMat4 {
        DMat4::from_scale_rotation_translation(self.scale, self.rotation(), self.translation)
    }
}

/// How a glTF clip plays: `clip time = (scene time − offset) · speed`, wrapped into the clip's
/// duration when `loop` is on, held at the ends otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipPlayback {
    /// The clip: its index in the file or its name.
    pub clip: AnimationSelector,
    /// Playback rate. Optional, default 1.
    #[serde(default = "one")]
    pub speed: f64,
    /// Scene time at which the clip starts, seconds. Optional, default 0.
    #[serde(default)]
    pub offset: f64,
    /// Repeat the clip. Optional, default true.
    #[serde(default = "yes", rename = "loop")]
    pub looping: bool,
}

fn one() -> f64 {
    1.0
}

fn yes() -> bool {
    true
}

impl ClipPlayback {
    /// The clip time at scene time `t` for a clip of `duration` seconds.
    pub fn clip_time(&self, t: f64, duration: f64) -> f64 {
        let local = ((t - self.offset) * self.speed).max(0.0);
        if self.looping && duration > 0.0 { local.rem_euclid(duration) } else { local.min(duration.max(0.0)) }
    }
}

/// Scripted rigid motion: the collider's pose at each key, interpolated linearly (translation)
/// and spherically (rotation) between keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keyframes {
    /// Keys in increasing time, at least one.
    pub keys: Vec<Key>,
    /// Repeat from the first key after the last. Optional, default false (hold the last pose).
    #[serde(default, rename = "loop")]
    pub looping: bool,
}

/// One pose of scripted motion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    /// Scene time, seconds.
    pub time: f64,
    /// Offset, metres. Optional, default zero.
    #[serde(default)]
    pub translation: DVec3,
    /// Rotations about x, then y, then z, degrees. Optional, default zero.
    #[serde(default)]
    pub rotation_degrees: DVec3,
}

impl Keyframes {
    /// The rigid map (rotation, translation) at scene time `t`.
    pub fn pose_at(&self, t: f64) -> (DQuat, DVec3) {
        let rotation = |k: &Key| Transform { rotation_degrees: k.rotation_degrees, ..Transform::default() }.rotation();
        let (first, last) = match (self.keys.first(), self.keys.last()) {
            (Some(f), Some(l)) => (f, l),
            _ => return (DQuat::IDENTITY, DVec3::ZERO),
        };
        let span = last.time - first.time;
        let t = if self.looping && span > 0.0 { first.time + (t - first.time).rem_euclid(span) } else { t };
        if t <= first.time {
            return (rotation(first), first.translation);
        }
        if t >= last.time {
            return (rotation(last), last.translation);
        }
        let i = self.keys.windows(2).position(|w| t < w[1].time).unwrap_or(0);
        let (a, b) = (&self.keys[i], &self.keys[i + 1]);
        let s = (t - a.time) / (b.time - a.time);
        (rotation(a).slerp(rotation(b), s), a.translation.lerp(b.translation, s))
    }

    /// The affine map at scene time `t`.
    pub fn matrix_at(&self, t: f64) -> DMat4 {
        let (rotation, translation) = self.pose_at(t);
        DMat4::from_rotation_translation(rotation, translation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_full_collider() {
        let text = r#"{"name": "ramp", "shape": {"type": "gltf", "path": "../assets/ramp.glb"},
            "transform": {"translation": [0, 0, 0.1], "rotation_degrees": [0, 0, 90]},
            "boundary": "slip", "friction": 0.2,
            "animation": {"clip": "walk", "speed": 2}}"#;
        let c: ColliderConfig = serde_json::from_str(text).unwrap();
        assert_eq!(c.shape, ColliderShape::Gltf { path: "../assets/ramp.glb".into() });
        assert_eq!((c.boundary, c.friction), (BoundaryKind::Slip, 0.2));
        let a = c.animation.unwrap();
        assert_eq!((a.clip, a.speed, a.offset, a.looping), (AnimationSelector::Name("walk".into()), 2.0, 0.0, true));
        // 90° about z takes +x to +y.
        let m = c.transform.matrix();
        assert!((m.transform_point3(DVec3::X) - DVec3::new(0.0, 1.0, 0.1)).length() < 1e-12);
        let err = serde_json::from_str::<ColliderConfig>(r#"{"shape": {"type": "cone"}}"#).unwrap_err();
        assert!(err.to_string().contains("cone"), "{err}");
    }

    #[test]
    fn rotation_order_is_x_then_y_then_z() {
        // x by 90° takes +y to +z; then z by 90° leaves +z alone: +y → +z.
        let t = Transform { rotation_degrees: DVec3::new(90.0, 0.0, 90.0), ..Transform::default() };
        assert!((t.rotation() * DVec3::Y - DVec3::Z).length() < 1e-12);
        // +x: x leaves it, z by 90° takes it to +y.
        assert!((t.rotation() * DVec3::X - DVec3::Y).length() < 1e-12);
    }

    #[test]
    fn keyframes_interpolate_loop_and_hold() {
        let k = |time, x, deg| Key {
            time,
            translation: DVec3::new(x, 0.0, 0.0),
            rotation_degrees: DVec3::new(0.0, 0.0, deg),
        };
        let mut frames = Keyframes { keys: vec![k(1.0, 0.0, 0.0), k(3.0, 2.0, 90.0)], looping: false };
        let (r, t) = frames.pose_at(2.0);
        assert!((t.x - 1.0).abs() < 1e-12);
        assert!((r * DVec3::X - DVec3::new(0.5f64.sqrt(), 0.5f64.sqrt(), 0.0)).length() < 1e-12);
        assert_eq!(frames.pose_at(0.0).1.x, 0.0);
        assert_eq!(frames.pose_at(9.0).1.x, 2.0);
        frames.looping = true;
        assert!((frames.pose_at(4.0).1.x - 1.0).abs() < 1e-12, "4 s wraps to 2 s");
    }

    #[test]
    fn clip_time_loops_or_holds() {
        let p = ClipPlayback { clip: AnimationSelector::Index(0), speed: 2.0, offset: 1.0, looping: true };
        assert_eq!(p.clip_time(0.5, 4.0), 0.0);
        assert_eq!(p.clip_time(4.0, 4.0), 2.0);
        assert_eq!(ClipPlayback { looping: false, ..p }.clip_time(4.0, 1.5), 1.5);
    }
}
