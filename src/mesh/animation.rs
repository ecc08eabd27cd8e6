//! glTF animation clips: node translation, rotation and scale channels, sampled at any time.
//!
//! Interpolation follows the glTF 2.0 spec, appendix C: STEP holds the previous keyframe, LINEAR
//! blends (spherical linear for rotations), CUBICSPLINE is a cubic Hermite spline whose stored
//! tangents are scaled by the keyframe interval. Times before the first keyframe or after the last
//! clamp to the end values. Morph-target weight channels are skipped: colliders use base positions
//! only, so morph targets have nothing to change.

use std::fmt;

use glam::{Mat4, Quat, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};
use gltf::buffer::Data;
use serde::{Deserialize, Serialize};

use super::accessor::{buffer_source, check, unreadable};
use super::error::label;

/// One animation clip of a file, as listed by `GltfModel::animations`.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationInfo {
    /// The clip's name in the file, if it has one.
    pub name: Option<String>,
    /// The time of the clip's last keyframe, seconds. The clip plays from time 0; sampling past
    /// `duration` holds the last pose.
    pub duration: f32,
}

/// How a scene or command line picks an animation clip: by its index in the file or by its name.
/// In JSON it is written as a number or a string (`2` or `"walk"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AnimationSelector {
    /// The clip's index in the file's `animations` array.
    Index(usize),
    /// The clip's name.
    Name(String),
}

impl fmt::Display for AnimationSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnimationSelector::Index(index) => write!(f, "index {index}"),
            AnimationSelector::Name(name) => write!(f, "'{name}'"),
        }
    }
}

/// A node's local transform as translation, rotation and scale, the form animations write into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Trs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Trs {
    /// Decomposes a node's rest matrix. glTF forbids animating nodes given by `matrix`, but a file
    /// that does it anyway still animates sensibly from the decomposed rest pose.
    pub fn from_matrix(matrix: &Mat4) -> Trs {
        let (scale, rotation, translation) = matrix.to_scale_rotation_translation();
        Trs { translation, rotation, scale }
    }

    /// The matrix `T · R · S`, glTF's order.
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// One channel: the keyframes that drive one property of one node.
#[derive(Clone, Debug)]
struct Channel {
    node: usize,
    property: Property,
    interpolation: Interpolation,
    /// Keyframe times, seconds, non-decreasing.
    times: Vec<f32>,
    /// One value per keyframe, or for CUBICSPLINE three (in-tangent, value, out-tangent).
    /// Translations and scales use x, y, z; rotations are quaternions as (x, y, z, w).
    values: Vec<Vec4>,
}

/// An animation clip, parsed once at load so sampling reads only these arrays.
#[derive(Clone, Debug)]
pub(crate) struct Clip {
    channels: Vec<Channel>,
}

impl Clip {
    /// Writes the clip's values at `time` into the local transforms of the nodes it animates, and
    /// marks them in `animated`.
    pub fn apply(&self, time: f32, local: &mut [Trs], animated: &mut [bool]) {
        for channel in &self.channels {
            let value = channel.sample(time);
            let trs = &mut local[channel.node];
            match channel.property {
                Property::Translation => trs.translation = value.truncate(),
                Property::Scale => trs.scale = value.truncate(),
                Property::Rotation => trs.rotation = Quat::from_vec4(value),
                Property::MorphTargetWeights => continue,
            }
            animated[channel.node] = true;
        }
    }

    /// Whether the clip moves any node.
    pub fn is_empty(&self) -> bool {
        self.channels.is_empty()
    }
}

impl Channel {
    /// The channel's value at `time`, clamped to the first and last keyframe.
    fn sample(&self, time: f32) -> Vec4 {
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let key = |k: usize| if cubic { self.values[3 * k + 1] } else { self.values[k] };
        let last = self.times.len() - 1;
        // A NaN time holds the first pose.
        let value = if time.is_nan() || time <= self.times[0] {
            key(0)
        } else if time >= self.times[last] {
            key(last)
        } else {
            // times[k] <= time < times[k + 1], so the interval is never empty.
            let k = self.times.partition_point(|&t| t <= time) - 1;
            let dt = self.times[k + 1] - self.times[k];
            let s = (time - self.times[k]) / dt;
            match self.interpolation {
                Interpolation::Step => key(k),
                Interpolation::Linear if self.property == Property::Rotation => {
                    let (a, b) = (unit_quat(key(k)), unit_quat(key(k + 1)));
                    Vec4::from(a.slerp(b, s))
                }
                Interpolation::Linear => key(k).lerp(key(k + 1), s),
                Interpolation::CubicSpline => {
                    let out_tangent = self.values[3 * k + 2];
                    let in_tangent = self.values[3 * (k + 1)];
                    hermite(key(k), out_tangent * dt, key(k + 1), in_tangent * dt, s)
                }
            }
        };
        if self.property == Property::Rotation { Vec4::from(unit_quat(value)) } else { value }
    }
}

/// A quaternion from a keyframe value, normalised; a zero value (a broken file) becomes identity.
fn unit_quat(value: Vec4) -> Quat {
    Quat::from_vec4(value.normalize_or(Vec4::W))
}

/// The cubic Hermite spline through `p0` and `p1` with tangents `m0` and `m1` (already scaled by
/// the keyframe interval), at `s` in [0, 1]: glTF 2.0 appendix C, "Cubic Spline Interpolation".
pub(crate) fn hermite(p0: Vec4, m0: Vec4, p1: Vec4, m1: Vec4, s: f32) -> Vec4 {
    let (s2, s3) = (s * s, s * s * s);
    p0 * (2.0 * s3 - 3.0 * s2 + 1.0) + m0 * (s3 - 2.0 * s2 + s) + p1 * (-2.0 * s3 + 3.0 * s2) + m1 * (s3 - s2)
}

/// Reads every animation of the document, in file order. Errors name the animation and channel, by
/// the file's channel numbers: `channel_numbers[a][c]` for channel `c` of animation `a`.
pub(crate) fn read_clips(
    document: &gltf::Document,
    buffers: &[Data],
    channel_numbers: &[Vec<usize>],
) -> Result<Vec<(AnimationInfo, Clip)>, String> {
    document
        .animations()
        .map(|animation| {
            let name = label("animation", animation.index(), animation.name());
            let mut channels = Vec::new();
            for channel in animation.channels() {
                if channel.target().property() == Property::MorphTargetWeights {
                    continue;
                }
                let number = channel_numbers.get(animation.index()).and_then(|n| n.get(channel.index()));
                let number = number.copied().unwrap_or(channel.index());
                channels.push(read_channel(&channel, buffers).map_err(|e| format!("{name} channel {number}: {e}"))?);
            }
            let duration = channels.iter().map(|c| c.times[c.times.len() - 1]).fold(0.0, f32::max);
            let info = AnimationInfo { name: animation.name().map(str::to_owned), duration };
            Ok((info, Clip { channels }))
        })
        .collect()
}

fn read_channel(channel: &gltf::animation::Channel, buffers: &[Data]) -> Result<Channel, String> {
    let sampler = channel.sampler();
    let property = channel.target().property();
    let (input, output) = (sampler.input(), sampler.output());
    check(&input, Dimensions::Scalar, &[DataType::F32], buffers).map_err(|e| format!("input: {e}"))?;
    let output_check = match property {
        Property::Rotation => check(
            &output,
            Dimensions::Vec4,
            &[DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16],
            buffers,
        ),
        _ => check(&output, Dimensions::Vec3, &[DataType::F32], buffers),
    };
    output_check.map_err(|e| format!("output: {e}"))?;

    let reader = channel.reader(buffer_source(buffers));
    let times: Vec<f32> = reader.read_inputs().ok_or_else(|| unreadable(&input))?.collect();
    let values: Vec<Vec4> = match reader.read_outputs().ok_or_else(|| unreadable(&output))? {
        ReadOutputs::Translations(v) | ReadOutputs::Scales(v) => v.map(|v| Vec3::from(v).extend(0.0)).collect(),
        ReadOutputs::Rotations(r) => r.into_f32().map(Vec4::from).collect(),
        ReadOutputs::MorphTargetWeights(_) => return Err("morph target weights are not imported".into()),
    };

    if let Some(t) = times.iter().find(|t| !t.is_finite()) {
        return Err(format!("keyframe time {t} is not finite"));
    }
    if let Some(k) = (1..times.len()).find(|&k| times[k] < times[k - 1]) {
        return Err(format!("keyframe times must increase, but time {k} is {} after {}", times[k], times[k - 1]));
    }
    let interpolation = sampler.interpolation();
    let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
    if values.len() != per_key * times.len() {
        return Err(format!(
            "{} keyframe times need {} {interpolation:?} output values, the output has {}",
            times.len(),
            per_key * times.len(),
            values.len()
        ));
    }
    Ok(Channel { node: channel.target().node().index(), property, interpolation, times, values })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(property: Property, interpolation: Interpolation, times: &[f32], values: &[Vec4]) -> Channel {
        Channel { node: 0, property, interpolation, times: times.to_vec(), values: values.to_vec() }
    }

    #[test]
    fn rotation_slerps_at_constant_angular_speed() {
        // Identity to 120° about z: a quarter of the way is 30°, which a normalised lerp misses by
        // about 2.6°. f32 slerp is good to a few ulps, hence 1e-6.
        let end = Quat::from_rotation_z(120f32.to_radians());
        let c = channel(Property::Rotation, Interpolation::Linear, &[0.0, 4.0], &[Vec4::W, Vec4::from(end)]);
        let expected = Vec4::new(0.0, 0.0, 15f32.to_radians().sin(), 15f32.to_radians().cos());
        assert!((c.sample(1.0) - expected).abs().max_element() < 1e-6, "{}", c.sample(1.0));
    }

    #[test]
    fn hermite_meets_its_ends_and_tangents() {
        // At s = 0 and 1 the spline is the key values; its slope there is the tangents (finite
        // difference over 1e-3, so the slope is good to about 1e-2).
        let (p0, m0, p1, m1) = (Vec4::X, Vec4::Y * 2.0, Vec4::Z, -Vec4::X);
        assert_eq!(hermite(p0, m0, p1, m1, 0.0), p0);
        assert_eq!(hermite(p0, m0, p1, m1, 1.0), p1);
        let h = 1e-3;
        let slope0 = (hermite(p0, m0, p1, m1, h) - p0) / h;
        let slope1 = (p1 - hermite(p0, m0, p1, m1, 1.0 - h)) / h;
        assert!((slope0 - m0).abs().max_element() < 1e-2 && (slope1 - m1).abs().max_element() < 1e-2);
    }

    #[test]
    fn step_holds_and_ends_clamp() {
        let values = [Vec4::ZERO, Vec4::X, Vec4::Y];
        let c = channel(Property::Translation, Interpolation::Step, &[1.0, 2.0, 3.0], &values);
        assert_eq!(c.sample(1.999), Vec4::ZERO);
        assert_eq!(c.sample(2.0), Vec4::X);
        assert_eq!(c.sample(-5.0), Vec4::ZERO);
        assert_eq!(c.sample(f32::NAN), Vec4::ZERO);
        assert_eq!(c.sample(7.0), Vec4::Y);
    }
}
