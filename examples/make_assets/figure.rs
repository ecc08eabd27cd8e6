//! `figure.glb`: a skinned figure 1.0 m tall with a 4 s walk clip.
//!
//! The figure faces +x and walks along +x; with +y up, its left is −z. It stands on y = 0 in its
//! bind pose, arms hanging down. The bind pose has no joint rotations, so each joint's bind
//! transform is a translation and its inverse bind matrix the opposite translation.

use std::f64::consts::TAU;

use glam::{DMat4, DVec3};
use gltf::json::animation::{Interpolation, Property};
use gltf::json::{self, Index};

use crate::generate::rotation;
use crate::glb::{Document, Track};
use crate::shapes::{Influences, MeshData, Ring, cuboid, tube};

/// Skin joint indices; the order of [`SKELETON`] and of the skin's joint list.
const HIPS: u8 = 0;
const SPINE: u8 = 1;
const HEAD: u8 = 2;
const UPPER_LEG_L: u8 = 3;
const LOWER_LEG_L: u8 = 4;
const UPPER_LEG_R: u8 = 5;
const LOWER_LEG_R: u8 = 6;
const UPPER_ARM_L: u8 = 7;
const UPPER_ARM_R: u8 = 8;

/// One joint of the skeleton: its node name, its parent joint, and its bind position (glTF frame).
struct Joint {
    name: &'static str,
    parent: Option<u8>,
    position: [f64; 3],
}

/// The skeleton, parents before children. The hips are the root.
const SKELETON: [Joint; 9] = [
    Joint { name: "hips", parent: None, position: [0.0, 0.5, 0.0] },
    Joint { name: "spine", parent: Some(HIPS), position: [0.0, 0.62, 0.0] },
    Joint { name: "head", parent: Some(SPINE), position: [0.0, 0.8, 0.0] },
    Joint { name: "upper_leg_l", parent: Some(HIPS), position: [0.0, 0.48, -0.07] },
    Joint { name: "lower_leg_l", parent: Some(UPPER_LEG_L), position: [0.0, 0.25, -0.07] },
    Joint { name: "upper_leg_r", parent: Some(HIPS), position: [0.0, 0.48, 0.07] },
    Joint { name: "lower_leg_r", parent: Some(UPPER_LEG_R), position: [0.0, 0.25, 0.07] },
    Joint { name: "upper_arm_l", parent: Some(SPINE), position: [0.0, 0.78, -0.18] },
    Joint { name: "upper_arm_r", parent: Some(SPINE), position: [0.0, 0.78, 0.18] },
];

/// Walk cycle period, seconds.
const CYCLE: f64 = 1.0;
/// Keys per cycle, counting the key that closes the loop (which is the next cycle's first).
const KEYS_PER_CYCLE: usize = 9;
/// Cycles in the clip; the clip lasts `CYCLES * CYCLE` seconds.
const CYCLES: usize = 4;
/// Walking speed of the hips along +x, metres per second.
const SPEED: f64 = 0.5;

/// Sides of each limb's cross-section polygon.
const SIDES: u32 = 12;
/// The feet: boxes from the heel (x = −0.04) to the toe (x = 0.11), 0.045 m high and 0.09 m wide.
const HEEL: f64 = -0.04;
const TOE: f64 = 0.11;
const FOOT_HEIGHT: f64 = 0.045;
const FOOT_HALF_WIDTH: f64 = 0.045;

/// All weight on `joint`.
fn only(joint: u8) -> Influences {
    [(joint, 1.0), (0, 0.0), (0, 0.0), (0, 0.0)]
}

/// `joint` with weight 1 − `weight`, blended with `other` at `weight` (a power of two fraction,
/// so the two weights sum to exactly 1 in f32).
fn blend(joint: u8, other: u8, weight: f32) -> Influences {
    [(joint, 1.0 - weight), (other, weight), (0, 0.0), (0, 0.0)]
}

/// A ring of a round limb: height, radius and influences.
fn round(y: f64, radius: f64, influences: Influences) -> Ring {
    Ring { y, radius_x: radius, radius_z: radius, influences }
}

/// The figure's one mesh: legs with feet, torso, neck and head, arms. Each part is a closed
/// surface of its own; parts overlap where they join, as a collider or an emitter only needs each
/// part's inside. Rings within a few centimetres of the hips, knees, waist, neck and shoulders
/// blend the two joints on either side.
fn body() -> MeshData {
    let mut body = MeshData::default();
    for (side, upper, lower) in [(-1.0, UPPER_LEG_L, LOWER_LEG_L), (1.0, UPPER_LEG_R, LOWER_LEG_R)] {
        let z = side * 0.07;
        let leg = [
            round(0.02, 0.035, only(lower)), // inside the foot
            round(0.2, 0.04, only(lower)),
            round(0.23, 0.04, blend(lower, upper, 0.25)),
            round(0.25, 0.04, blend(lower, upper, 0.5)), // the knee
            round(0.27, 0.042, blend(lower, upper, 0.75)),
            round(0.3, 0.045, only(upper)),
            round(0.44, 0.05, only(upper)),
            round(0.48, 0.05, blend(upper, HIPS, 0.5)),  // the hip
            round(0.52, 0.05, blend(upper, HIPS, 0.75)), // inside the torso
        ];
        body.append(tube(0.0, z, &leg, SIDES));
        let mut foot =
            cuboid(DVec3::new(HEEL, 0.0, z - FOOT_HALF_WIDTH), DVec3::new(TOE, FOOT_HEIGHT, z + FOOT_HALF_WIDTH));
        foot.bind_all(only(lower));
        body.append(foot);

        let arm_joint = if side < 0.0 { UPPER_ARM_L } else { UPPER_ARM_R };
        let arm = [
            round(0.45, 0.03, only(arm_joint)), // the hand
            round(0.74, 0.035, only(arm_joint)),
            round(0.78, 0.04, blend(arm_joint, SPINE, 0.25)), // the shoulder
            round(0.82, 0.04, blend(arm_joint, SPINE, 0.5)),
        ];
        body.append(tube(0.0, side * 0.18, &arm, SIDES));
    }
    let torso = |y, radius_x, radius_z, influences| Ring { y, radius_x, radius_z, influences };
    let torso = [
        torso(0.44, 0.07, 0.12, only(HIPS)),
        torso(0.56, 0.07, 0.12, only(HIPS)),
        torso(0.62, 0.07, 0.125, blend(HIPS, SPINE, 0.5)), // the waist
        torso(0.68, 0.072, 0.13, only(SPINE)),
        torso(0.8, 0.075, 0.14, only(SPINE)),
        torso(0.83, 0.05, 0.1, only(SPINE)), // sloping shoulders
    ];
    body.append(tube(0.0, 0.0, &torso, SIDES));
    let head = [
        round(0.8, 0.03, blend(HEAD, SPINE, 0.5)), // the neck, inside the torso
        round(0.85, 0.03, only(HEAD)),
        round(0.86, 0.075, only(HEAD)), // the chin
        round(0.98, 0.075, only(HEAD)),
        round(1.0, 0.05, only(HEAD)), // the crown: the figure is 1.0 m tall
    ];
    body.append(tube(0.0, 0.0, &head, SIDES));
    body
}

/// The rotation of each swinging joint about +z (radians; positive swings the limb's far end
/// toward +x) at `phase` ∈ [0, 1) of the walk cycle. The left leg passes under the hips going
/// forward at phase 0; the right leg and the arms are half a cycle apart from their partners.
fn limb_angles(phase: f64) -> [(u8, f64); 6] {
    let wave = (TAU * phase).sin();
    // A knee bends (negative angle: the foot moves back) only while its leg swings forward, most as
    // it passes under the hips: enough that the toe, which has no ankle to lift it, clears the ground.
    let knee = |offset: f64| -60f64.to_radians() * (TAU * (phase + offset)).cos().max(0.0).powi(2);
    let hip = 25f64.to_radians() * wave;
    let shoulder = 20f64.to_radians() * wave;
    [
        (UPPER_LEG_L, hip),
        (LOWER_LEG_L, knee(0.0)),
        (UPPER_LEG_R, -hip),
        (LOWER_LEG_R, knee(0.5)),
        (UPPER_ARM_L, -shoulder),
        (UPPER_ARM_R, shoulder),
    ]
}

/// Height of the hips joint at which the lowest sole corner of either foot touches y = 0, with the
/// legs posed by `angles` (from [`limb_angles`]). Legs swing about z only, so this is planar.
fn hips_height(angles: &[(u8, f64); 6]) -> f64 {
    let angle = |joint: u8| angles.iter().find(|(j, _)| *j == joint).map_or(0.0, |(_, a)| *a);
    // Height change of the point `offset` (x, y) from a joint turned by `turn` about z.
    let turned_y = |offset: [f64; 2], turn: f64| offset[0] * turn.sin() + offset[1] * turn.cos();
    let position = |joint: u8| SKELETON[joint as usize].position;
    let mut lowest = f64::INFINITY;
    for (upper, lower) in [(UPPER_LEG_L, LOWER_LEG_L), (UPPER_LEG_R, LOWER_LEG_R)] {
        let (hips, hip, knee) = (position(HIPS), position(upper), position(lower));
        let (thigh, shin) = (angle(upper), angle(upper) + angle(lower));
        for sole_x in [HEEL, TOE] {
            let sole = [sole_x - knee[0], -knee[1]];
            let height = hip[1] - hips[1] + turned_y([0.0, knee[1] - hip[1]], thigh) + turned_y(sole, shin);
            lowest = lowest.min(height);
        }
    }
    -lowest
}

/// The .glb bytes of the figure: nodes for the skeleton, one skinned mesh, the "walk" clip.
pub fn figure() -> Vec<u8> {
    let mut document = Document::new();
    // Joints are pushed first and in skeleton order, so joint i is node i.
    let joints: Vec<Index<json::Node>> = SKELETON
        .iter()
        .enumerate()
        .map(|(i, joint)| {
            let children: Vec<_> = (0..SKELETON.len() as u32)
                .filter(|&child| SKELETON[child as usize].parent == Some(i as u8))
                .map(Index::new)
                .collect();
            let parent = joint.parent.map_or(DVec3::ZERO, |p| DVec3::from_array(SKELETON[p as usize].position));
            let translation = (DVec3::from_array(joint.position) - parent).as_vec3().to_array();
            let node = json::Node {
                translation: Some(translation),
                children: (!children.is_empty()).then_some(children),
                ..Default::default()
            };
            document.node(joint.name, node)
        })
        .collect();
    let inverse_binds: Vec<[f32; 16]> = SKELETON
        .iter()
        .map(|joint| DMat4::from_translation(-DVec3::from_array(joint.position)).as_mat4().to_cols_array())
        .collect();
    let inverse_binds = document.mat4s(&inverse_binds);
    let skin = document.root.push(json::Skin {
        inverse_bind_matrices: Some(inverse_binds),
        joints: joints.clone(),
        name: Some("figure".into()),
        skeleton: Some(joints[HIPS as usize]),
        extensions: None,
        extras: Default::default(),
    });
    let mesh = document.mesh("figure", &body());
    // The skinned mesh's node sits at the scene root: glTF ignores its transform anyway.
    let figure = document.node("figure", json::Node { mesh: Some(mesh), skin: Some(skin), ..Default::default() });
    document.scene(vec![joints[HIPS as usize], figure]);

    // One time axis for every channel: KEYS_PER_CYCLE − 1 steps per cycle, CYCLES times over.
    let steps = KEYS_PER_CYCLE - 1;
    let keys = CYCLES * steps + 1;
    let times: Vec<f32> = (0..keys).map(|k| (k as f64 * CYCLE / steps as f64) as f32).collect();
    // Limb keys use the phase within the cycle so that every cycle's keys are bit-identical.
    let phase = |k: usize| (k % steps) as f64 / steps as f64;
    let hips: Vec<[f32; 3]> = (0..keys)
        .map(|k| {
            // The hips ride at the height that keeps the lower foot on the ground at each key.
            let height = hips_height(&limb_angles(phase(k)));
            [(SPEED * k as f64 * CYCLE / steps as f64) as f32, height as f32, 0.0]
        })
        .collect();
    let input = document.times(&times);
    let hips = document.vec3s(&hips, None, false);
    let linear = |joint: u8, property, output| Track {
        node: joints[joint as usize],
        property,
        input,
        output,
        interpolation: Interpolation::Linear,
    };
    let mut tracks = vec![linear(HIPS, Property::Translation, hips)];
    for (slot, (joint, _)) in limb_angles(0.0).into_iter().enumerate() {
        let rotations: Vec<[f32; 4]> = (0..keys).map(|k| rotation(DVec3::Z, limb_angles(phase(k))[slot].1)).collect();
        tracks.push(linear(joint, Property::Rotation, document.vec4s(&rotations, None)));
    }
    document.animation("walk", &tracks);
    document.into_glb()
}
