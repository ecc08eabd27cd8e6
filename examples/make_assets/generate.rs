//! The assets powder ships, one function per file, and [`write_all`], which writes them all.
//!
//! Everything here is a pure function of constants, so every run writes the same bytes; the test
//! `tests/assets.rs` regenerates the files and compares them with the ones in `assets/`.

use std::f64::consts::PI;
use std::io;
use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3};
use gltf::json;
use gltf::json::animation::{Interpolation, Property};

use crate::glb::{Document, Track};
use crate::shapes::{cuboid, icosphere, lathe, wedge};

/// Builds one asset's .glb bytes.
type MakeGlb = fn() -> Vec<u8>;

/// Writes every asset into `dir` (created if missing) and returns the paths written, in order.
pub fn write_all(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let assets: [(&str, MakeGlb); 7] = [
        ("ramp.glb", ramp),
        ("wall.glb", wall),
        ("sphere.glb", sphere),
        ("box.glb", unit_box),
        ("blade.glb", blade),
        ("figure.glb", crate::figure::figure),
        ("bowl.glb", bowl),
    ];
    let mut written = Vec::new();
    for (name, make) in assets {
        let path = dir.join(name);
        std::fs::write(&path, make())?;
        written.push(path);
    }
    Ok(written)
}

/// A static document of one mesh on one node.
fn single_mesh(name: &str, mesh: &crate::shapes::MeshData) -> Vec<u8> {
    let mut document = Document::new();
    let mesh = document.mesh(name, mesh);
    let node = document.node(name, json::Node { mesh: Some(mesh), ..Default::default() });
    document.scene(vec![node]);
    document.into_glb()
}

/// `ramp.glb`: a wedge 2 m long (x), 1 m wide (z), its top face falling at 30° from x = 0 to x = 2.
fn ramp() -> Vec<u8> {
    // Height 2 tan 30° = 2/√3, through sqrt rather than tan(): sqrt is correctly rounded on every
    // platform, so the bytes do not depend on the platform's libm.
    let length = 2.0;
    single_mesh("ramp", &wedge(length, length / 3f64.sqrt(), 1.0))
}

/// `wall.glb`: a box 0.2 m (x) × 0.8 m (y) × 1.0 m (z), standing on y = 0, centred on x and z.
fn wall() -> Vec<u8> {
    single_mesh("wall", &cuboid(DVec3::new(-0.1, 0.0, -0.5), DVec3::new(0.1, 0.8, 0.5)))
}

/// `sphere.glb`: an icosphere of radius 0.25 m about the origin, subdivided three times.
fn sphere() -> Vec<u8> {
    single_mesh("sphere", &icosphere(0.25, 3))
}

/// `box.glb`: the unit cube centred on the origin.
fn unit_box() -> Vec<u8> {
    single_mesh("box", &cuboid(DVec3::splat(-0.5), DVec3::splat(0.5)))
}

/// `bowl.glb`: a bowl standing on y = 0 about the y axis, 0.35 m in outer radius and 0.2 m high,
/// its wall 0.06 m thick (two cells or more of the water's grids that fill it, so that water cannot
/// leak through). The outside is a flat foot of radius 0.15 m and then a quarter circle of radius
/// 0.2 m about (r, y) = (0.15, 0.2) up to the rim; the inside a quarter circle of radius 0.14 m
/// about the same centre down to a flat floor at y = 0.06; the rim is flat. 48 sides, 16 steps
/// along each quarter circle.
fn bowl() -> Vec<u8> {
    let (centre_r, centre_y, steps) = (0.15, 0.2, 16);
    let arc = |radius: f64, from: f64, to: f64| -> Vec<(f64, f64)> {
        (0..=steps)
            .map(|i| {
                let t = (from + (to - from) * i as f64 / steps as f64).to_radians();
                (centre_r + radius * t.cos(), centre_y + radius * t.sin())
            })
            .collect()
    };
    let mut profile = vec![(0.0, 0.0)];
    profile.extend(arc(0.2, -90.0, 0.0));
    profile.extend(arc(0.14, 0.0, -90.0));
    profile.push((0.0, 0.06));
    single_mesh("bowl", &lathe(&profile, 48))
}

/// f32 quaternion [x, y, z, w] of a rotation by `angle` radians about `axis`.
pub fn rotation(axis: DVec3, angle: f64) -> [f32; 4] {
    DQuat::from_axis_angle(axis, angle).as_quat().to_array()
}

/// `blade.glb`: a plow blade 0.05 m (x) × 0.4 m (y) × 0.8 m (z) whose node's origin is the middle
/// of its lower edge, with two clips:
/// - "plow" (3 s): LINEAR translation 1.5 m along +x and a LINEAR yaw of ±10° about +y;
/// - "swing" (2 s): CUBICSPLINE pitch about +z, θ(t) = 20° sin(πt), with exact tangents.
fn blade() -> Vec<u8> {
    let mut document = Document::new();
    let mesh = document.mesh("blade", &cuboid(DVec3::new(-0.025, 0.0, -0.4), DVec3::new(0.025, 0.4, 0.4)));
    let blade = document.node("blade", json::Node { mesh: Some(mesh), ..Default::default() });
    document.scene(vec![blade]);

    let plow_times = document.times(&[0.0, 1.0, 2.0, 3.0]);
    let translations =
        document.vec3s(&[[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [1.5, 0.0, 0.0]], None, false);
    let yaws = [0.0, 10.0, -10.0, 0.0].map(|degrees: f64| rotation(DVec3::Y, degrees.to_radians()));
    let yaws = document.vec4s(&yaws, None);
    let linear = |property, output| Track {
        node: blade,
        property,
        input: plow_times,
        output,
        interpolation: Interpolation::Linear,
    };
    document.animation("plow", &[linear(Property::Translation, translations), linear(Property::Rotation, yaws)]);

    // CUBICSPLINE keys store (in-tangent, value, out-tangent); tangents are derivatives per second.
    // For q(t) = (0, 0, sin θ/2, cos θ/2): dq/dt = θ'/2 · (0, 0, cos θ/2, −sin θ/2).
    let amplitude = 20f64.to_radians();
    let key_times = [0.0, 0.5, 1.0, 1.5, 2.0];
    let mut keys = Vec::new();
    for &t in &key_times {
        let (angle, rate) = (amplitude * (PI * t).sin(), amplitude * PI * (PI * t).cos());
        let (sin, cos) = (angle / 2.0).sin_cos();
        let tangent = [0.0, 0.0, rate / 2.0 * cos, -rate / 2.0 * sin].map(|c| c as f32);
        keys.extend([tangent, rotation(DVec3::Z, angle), tangent]);
    }
    let swing_times = document.times(&key_times.map(|t| t as f32));
    let swing = document.vec4s(&keys, None);
    let cubic = Track {
        node: blade,
        property: Property::Rotation,
        input: swing_times,
        output: swing,
        interpolation: Interpolation::CubicSpline,
    };
    document.animation("swing", &[cubic]);
    document.into_glb()
}
