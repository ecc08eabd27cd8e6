//! The shipped glTF assets (`assets/*.glb`): they are exactly what `examples/make_assets` writes,
//! and their geometry, skin and clips are what `assets/README.md` says.

#[path = "../examples/make_assets/figure.rs"]
mod figure;
#[path = "../examples/make_assets/generate.rs"]
mod generate;
#[path = "../examples/make_assets/glb.rs"]
mod glb;
#[path = "../examples/make_assets/shapes.rs"]
mod shapes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{DVec3, Mat4, Quat, Vec3};
use gltf::animation::Interpolation;
use gltf::animation::util::ReadOutputs;

const NAMES: [&str; 7] = ["ramp.glb", "wall.glb", "sphere.glb", "box.glb", "blade.glb", "figure.glb", "bowl.glb"];

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets").join(name)
}

struct Asset {
    document: gltf::Document,
    buffers: Vec<gltf::buffer::Data>,
}

fn load(name: &str) -> Asset {
    // `import` also validates the document against the glTF schema's rules.
    let (document, buffers, _) = gltf::import(shipped(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    Asset { document, buffers }
}

/// A primitive's positions, normals and triangles.
struct Triangles {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

fn primitives(asset: &Asset) -> Vec<Triangles> {
    let mut out = Vec::new();
    for mesh in asset.document.meshes() {
        for primitive in mesh.primitives() {
            assert_eq!(primitive.mode(), gltf::mesh::Mode::Triangles);
            let reader = primitive.reader(|b| Some(&asset.buffers[b.index()]));
            let indices: Vec<u32> = reader.read_indices().expect("indexed").into_u32().collect();
            out.push(Triangles {
                positions: reader.read_positions().expect("POSITION").map(Vec3::from).collect(),
                normals: reader.read_normals().expect("NORMAL").map(Vec3::from).collect(),
                triangles: indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
            });
        }
    }
    out
}

/// Lower and upper corners of the POSITION accessor's min and max.
fn position_bounds(asset: &Asset) -> (Vec3, Vec3) {
    let primitive = asset.document.meshes().next().unwrap().primitives().next().unwrap();
    let bounds = primitive.bounding_box();
    (Vec3::from(bounds.min), Vec3::from(bounds.max))
}

#[test]
fn shipped_files_are_exactly_what_the_generator_writes() {
    let dir = tempfile::tempdir().unwrap();
    let written = generate::write_all(dir.path()).unwrap();
    let names: Vec<_> = written.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_owned()).collect();
    assert_eq!(names, NAMES);
    for path in &written {
        let name = path.file_name().unwrap();
        let shipped_bytes = std::fs::read(shipped(name.to_str().unwrap())).unwrap();
        assert!(
            std::fs::read(path).unwrap() == shipped_bytes,
            "assets/{name:?} is stale: run cargo run --example make_assets"
        );
    }
    // A second run gives the same bytes (the icosphere's HashMap is seeded anew each run).
    let again = tempfile::tempdir().unwrap();
    for path in generate::write_all(again.path()).unwrap() {
        let first = dir.path().join(path.file_name().unwrap());
        assert!(std::fs::read(&path).unwrap() == std::fs::read(first).unwrap(), "{path:?} differs between runs");
    }
}

#[test]
fn every_mesh_is_closed_outward_facing_and_bounded_by_its_min_max() {
    for name in NAMES {
        let asset = load(name);
        assert_eq!(asset.document.as_json().asset.generator.as_deref(), Some("powder make_assets"), "{name}");
        for mesh in primitives(&asset) {
            // Weld by exact position: flat faces duplicate their corners, and the surface is closed
            // iff each undirected edge of the welded mesh borders exactly two triangles. Each
            // directed edge once means the two triangles on an edge wind consistently.
            let mut welded: HashMap<[u32; 3], usize> = HashMap::new();
            let ids: Vec<usize> = mesh
                .positions
                .iter()
                .map(|p| {
                    let next = welded.len();
                    *welded.entry(p.to_array().map(f32::to_bits)).or_insert(next)
                })
                .collect();
            let mut directed: HashMap<(usize, usize), u32> = HashMap::new();
            let mut volume = 0.0;
            for &[a, b, c] in &mesh.triangles {
                let [ia, ib, ic] = [a, b, c].map(|i| ids[i as usize]);
                for edge in [(ia, ib), (ib, ic), (ic, ia)] {
                    *directed.entry(edge).or_default() += 1;
                }
                let [pa, pb, pc] = [a, b, c].map(|i| mesh.positions[i as usize].as_dvec3());
                let face_normal = (pb - pa).cross(pc - pa);
                assert!(face_normal.length() > 1e-12, "{name}: degenerate triangle {a} {b} {c}");
                for i in [a, b, c] {
                    let normal = mesh.normals[i as usize].as_dvec3();
                    assert!((normal.length() - 1.0).abs() < 1e-6, "{name}: NORMAL {i} is not unit");
                    assert!(normal.dot(face_normal) > 0.0, "{name}: NORMAL {i} disagrees with its triangle's winding");
                }
                volume += pa.dot(pb.cross(pc)) / 6.0;
            }
            for (&(a, b), &count) in &directed {
                assert_eq!(count, 1, "{name}: directed edge {a}->{b} used {count} times");
                assert!(directed.contains_key(&(b, a)), "{name}: edge {a}-{b} borders one triangle: a hole");
            }
            // Counter-clockwise seen from outside makes the divergence-theorem volume positive.
            assert!(volume > 0.0, "{name}: signed volume {volume} is not positive: triangles wind inward");
            let lo = mesh.positions.iter().fold(Vec3::INFINITY, |m, &p| m.min(p));
            let hi = mesh.positions.iter().fold(Vec3::NEG_INFINITY, |m, &p| m.max(p));
            assert_eq!(position_bounds(&asset), (lo, hi), "{name}: POSITION min/max");
        }
    }
}

#[test]
fn ramp_top_face_rises_at_30_degrees() {
    let asset = load("ramp.glb");
    let height = (2.0 / 3f64.sqrt()) as f32;
    assert_eq!(position_bounds(&asset), (Vec3::new(0.0, 0.0, -0.5), Vec3::new(2.0, height, 0.5)));
    let mesh = &primitives(&asset)[0];
    let mut slope_triangles = 0;
    for &[a, b, c] in &mesh.triangles {
        let [pa, pb, pc] = [a, b, c].map(|i| mesh.positions[i as usize].as_dvec3());
        let normal = (pb - pa).cross(pc - pa).normalize();
        if normal.x > 1e-9 && normal.y > 1e-9 {
            slope_triangles += 1;
            // Rounding the height to f32 tilts the face by ~1e-6°; 0.01° is the stated tolerance.
            let degrees = normal.dot(DVec3::Y).acos().to_degrees();
            assert!((degrees - 30.0).abs() < 0.01, "top face normal is {degrees}° from +Y");
        }
    }
    assert_eq!(slope_triangles, 2, "the slope is one quad of two triangles");
}

#[test]
fn sphere_vertices_lie_on_the_sphere() {
    let mesh = &primitives(&load("sphere.glb"))[0];
    // Three subdivisions of the icosahedron: 20·4³ triangles, 10·4³ + 2 vertices.
    assert_eq!((mesh.triangles.len(), mesh.positions.len()), (1280, 642));
    for p in &mesh.positions {
        // Each coordinate is the nearest f32 to the exact point: ~1.5e-8 m off at most.
        let radius = p.as_dvec3().length();
        assert!((radius - 0.25).abs() < 1e-6, "vertex {p} at radius {radius}");
    }
}

#[test]
fn sphere_as_a_mesh_emitter_fills_its_volume() {
    use powder::scene::Scene;
    // The 0.25 m icosphere, scaled to 0.4 m, in a 1 m domain at grid 64 and 8 particles per cell:
    // spacing s = 1/128 m, about 0.13 million particles.
    let text = r#"{ "version": 2, "domain": { "min": [-0.5, -0.5, -0.5], "size": [1, 1, 1] },
        "grid": { "resolution": 64 }, "particles_per_cell": 8,
        "emitters": [{ "shape": "mesh", "path": "sphere.glb", "transform": { "scale": [1.6, 1.6, 1.6] } }] }"#;
    let dir = shipped("sphere.glb").parent().unwrap().to_path_buf();
    let scene = Scene::from_json_at(text, "sphere emitter", &dir).unwrap_or_else(|e| panic!("{e}"));
    let s = scene.particle_spacing();
    assert_eq!(s, 1.0 / 128.0);
    let filled = scene.spawn_particles().expect("particles").len() as f64 * s.powi(3);
    // The icosphere lies inside the ball it is inscribed in: its own volume (divergence theorem)
    // is the reference, a little below 4/3 π r³.
    let mesh = scene.emitter_mesh(0).unwrap();
    let polyhedron: f64 = (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = mesh.corners(t).map(|v| v.as_dvec3());
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    let ball = 4.0 / 3.0 * std::f64::consts::PI * 0.4f64.powi(3);
    assert!(polyhedron < ball && polyhedron > 0.98 * ball, "polyhedron {polyhedron}, ball {ball}");
    // Each particle stands for s³. Sites farther than the jitter (s/4 per axis) from the surface
    // are counted exactly; the ~4πr²/s² ≈ 33,000 sites near it are kept with a probability that
    // ramps from 1 to 0 across the surface, which averages to its volume up to sampling noise of
    // √33,000 ≈ 180 particles (0.14%) and the lattice's quadrature of the ramp: 0.5% covers both.
    assert!((filled / polyhedron - 1.0).abs() < 0.005, "filled {filled} m³, polyhedron {polyhedron} m³");
}

#[test]
fn boxes_have_their_stated_dimensions() {
    let expected = [
        ("wall.glb", Vec3::new(-0.1, 0.0, -0.5), Vec3::new(0.1, 0.8, 0.5)),
        ("box.glb", Vec3::splat(-0.5), Vec3::splat(0.5)),
        ("blade.glb", Vec3::new(-0.025, 0.0, -0.4), Vec3::new(0.025, 0.4, 0.4)),
    ];
    for (name, lo, hi) in expected {
        let asset = load(name);
        assert_eq!(position_bounds(&asset), (lo, hi), "{name}");
        assert_eq!(primitives(&asset)[0].triangles.len(), 12, "{name}");
    }
}

/// The bowl is the solid assets/README.md describes: 0.35 m in outer radius and 0.2 m high on
/// y = 0, and its volume that of the outline turned about the axis, π ∫ (R_out² − R_in²) dy, to
/// within 1 % (measured 0.45 % under it: 48 sides and 16 steps along each quarter circle cut the
/// curves' corners).
#[test]
fn bowl_is_the_described_solid_of_revolution() {
    let asset = load("bowl.glb");
    let (lo, hi) = position_bounds(&asset);
    assert!((hi.y - 0.2).abs() < 1e-6 && lo.y == 0.0, "height {lo} {hi}");
    assert!((hi.x - 0.35).abs() < 1e-6 && (lo.x + 0.35).abs() < 1e-3, "radius {lo} {hi}");
    let mesh = &primitives(&asset)[0];
    let volume: f64 = mesh
        .triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| mesh.positions[i as usize].as_dvec3());
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    let radius = |r: f64, y: f64| 0.15 + (r * r - (0.2 - y).powi(2)).max(0.0).sqrt();
    let n = 200_000;
    let mut exact = 0.0;
    for i in 0..n {
        let y = (i as f64 + 0.5) / n as f64 * 0.2;
        let inner = if y >= 0.06 { radius(0.14, y).powi(2) } else { 0.0 };
        exact += std::f64::consts::PI * (radius(0.2, y).powi(2) - inner) * 0.2 / n as f64;
    }
    eprintln!("bowl: mesh {volume:.6} m³, outline turned {exact:.6} m³ ({:+.2} %)", 100.0 * (volume / exact - 1.0));
    assert!((volume / exact - 1.0).abs() < 0.01, "mesh {volume} m³ against {exact} m³");
}

/// One channel of a clip, read out of the file.
struct Channel {
    node: String,
    node_index: usize,
    interpolation: Interpolation,
    times: Vec<f32>,
    /// Translation keys; empty for a rotation channel.
    translations: Vec<[f32; 3]>,
    /// Rotation keys (x, y, z, w); empty for a translation channel.
    rotations: Vec<[f32; 4]>,
}

fn clip(asset: &Asset, name: &str) -> Vec<Channel> {
    let animation = asset.document.animations().find(|a| a.name() == Some(name)).unwrap_or_else(|| panic!("no {name}"));
    animation
        .channels()
        .map(|channel| {
            let reader = channel.reader(|b| Some(&asset.buffers[b.index()]));
            let (mut translations, mut rotations) = (Vec::new(), Vec::new());
            match reader.read_outputs().unwrap() {
                ReadOutputs::Translations(keys) => translations.extend(keys),
                ReadOutputs::Rotations(keys) => rotations.extend(keys.into_f32()),
                _ => panic!("{name}: only translation and rotation are animated"),
            }
            Channel {
                node: channel.target().node().name().unwrap().to_owned(),
                node_index: channel.target().node().index(),
                interpolation: channel.sampler().interpolation(),
                times: reader.read_inputs().unwrap().collect(),
                translations,
                rotations,
            }
        })
        .collect()
}

#[test]
fn blade_has_plow_and_swing_clips() {
    let asset = load("blade.glb");
    let plow = clip(&asset, "plow");
    assert_eq!(plow.len(), 2, "translation and rotation");
    for channel in &plow {
        assert_eq!((channel.node.as_str(), channel.interpolation), ("blade", Interpolation::Linear));
        assert_eq!(channel.times, [0.0, 1.0, 2.0, 3.0]);
    }
    let translation = plow.iter().find(|c| !c.translations.is_empty()).expect("a translation channel");
    assert_eq!(translation.translations.last(), Some(&[1.5, 0.0, 0.0]), "the plow ends 1.5 m along +x");
    let swing = clip(&asset, "swing");
    assert_eq!(swing.len(), 1);
    assert_eq!((swing[0].interpolation, swing[0].times.last()), (Interpolation::CubicSpline, Some(&2.0)));
    // CUBICSPLINE stores in-tangent, value, out-tangent per key.
    assert_eq!(swing[0].rotations.len(), 3 * swing[0].times.len());
}

/// Global transform of each node of the default scene, each node's local transform taken from
/// `posed` where it has one and from the file otherwise.
fn global_transforms(asset: &Asset, posed: &HashMap<usize, Mat4>) -> HashMap<usize, Mat4> {
    let mut global = HashMap::new();
    let mut stack: Vec<_> = asset.document.default_scene().unwrap().nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    while let Some((node, parent)) = stack.pop() {
        let rest = || Mat4::from_cols_array_2d(&node.transform().matrix());
        let transform = parent * posed.get(&node.index()).copied().unwrap_or_else(rest);
        global.insert(node.index(), transform);
        stack.extend(node.children().map(|child| (child, transform)));
    }
    global
}

/// The figure's skin: joint node indices, inverse bind matrices, and per vertex the rest position,
/// joint indices and weights.
struct Skinned {
    joints: Vec<usize>,
    inverse_binds: Vec<Mat4>,
    vertices: Vec<(Vec3, [u16; 4], [f32; 4])>,
}

fn skinned_figure(asset: &Asset) -> Skinned {
    let skin = asset.document.skins().next().expect("a skin");
    let names: Vec<_> = skin.joints().map(|j| j.name().unwrap().to_owned()).collect();
    let legs = ["upper_leg_l", "lower_leg_l", "upper_leg_r", "lower_leg_r"];
    assert_eq!(names, [&["hips", "spine", "head"][..], &legs, &["upper_arm_l", "upper_arm_r"]].concat());
    let skin_reader = skin.reader(|b| Some(&asset.buffers[b.index()]));
    let primitive = asset.document.meshes().next().unwrap().primitives().next().unwrap();
    let reader = primitive.reader(|b| Some(&asset.buffers[b.index()]));
    let joints = reader.read_joints(0).unwrap().into_u16();
    let weights = reader.read_weights(0).unwrap().into_f32();
    Skinned {
        joints: skin.joints().map(|j| j.index()).collect(),
        inverse_binds: skin_reader
            .read_inverse_bind_matrices()
            .unwrap()
            .map(|m| Mat4::from_cols_array_2d(&m))
            .collect(),
        vertices: reader
            .read_positions()
            .unwrap()
            .map(Vec3::from)
            .zip(joints)
            .zip(weights)
            .map(|((p, j), w)| (p, j, w))
            .collect(),
    }
}

#[test]
fn figure_skin_binds_every_vertex() {
    let asset = load("figure.glb");
    let skin = skinned_figure(&asset);
    // Each inverse bind matrix undoes its joint's global bind transform (to f32 round-off).
    let global = global_transforms(&asset, &HashMap::new());
    for (joint, inverse_bind) in skin.joints.iter().zip(&skin.inverse_binds) {
        let product = global[joint] * *inverse_bind;
        assert!(product.abs_diff_eq(Mat4::IDENTITY, 1e-6), "joint node {joint}: {product}");
    }
    let mut blended = 0;
    for (_, joint_ids, weights) in &skin.vertices {
        assert!(joint_ids.iter().all(|&j| usize::from(j) < skin.joints.len()));
        assert!(weights.iter().all(|&w| w >= 0.0));
        let sum: f32 = weights.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "weights {weights:?} sum to {sum}");
        blended += usize::from(weights.iter().filter(|&&w| w > 0.0).count() > 1);
    }
    assert!(blended > 0, "vertices at the hips and knees blend two joints");
    let triangles = primitives(&asset)[0].triangles.len();
    assert!(triangles < 5000, "{triangles} triangles");
    let (lo, hi) = position_bounds(&asset);
    assert_eq!((lo.y, hi.y), (0.0, 1.0), "the figure stands on y = 0 and is 1.0 m tall");
}

#[test]
fn figure_walks_on_the_ground() {
    let asset = load("figure.glb");
    let walk = clip(&asset, "walk");
    assert_eq!(walk.len(), 7, "hips translation and six limb rotations");
    for channel in &walk {
        let node = &channel.node;
        assert_eq!(channel.interpolation, Interpolation::Linear, "{node}");
        // 9 keys per 1 s cycle, the last shared with the next cycle: 4 cycles are 33 keys over 4 s.
        assert_eq!((channel.times.len(), channel.times[0], channel.times[32]), (33, 0.0, 4.0), "{node}");
        if node == "hips" {
            assert_eq!(channel.translations[32], [2.0, 0.5, 0.0], "0.5 m/s for 4 s, back at hip height");
        } else {
            let rotations = &channel.rotations;
            assert!((0..24).all(|k| rotations[k] == rotations[k + 8]), "{node}: the cycle repeats every 1 s");
        }
    }
    // Pose the skin at every key (linear blend skinning): the lower foot touches y = 0 each time.
    let skin = skinned_figure(&asset);
    for k in 0..33 {
        let mut locals: HashMap<usize, (Vec3, Quat)> = HashMap::new();
        for channel in &walk {
            let node = asset.document.nodes().nth(channel.node_index).unwrap();
            let (translation, rotation, _) = node.transform().decomposed();
            let local = locals.entry(channel.node_index).or_insert((translation.into(), Quat::from_array(rotation)));
            if let Some(&translation) = channel.translations.get(k) {
                local.0 = translation.into();
            }
            if let Some(&rotation) = channel.rotations.get(k) {
                local.1 = Quat::from_array(rotation);
            }
        }
        let posed = locals.into_iter().map(|(node, (t, r))| (node, Mat4::from_rotation_translation(r, t))).collect();
        let global = global_transforms(&asset, &posed);
        let skinning: Vec<Mat4> = skin.joints.iter().zip(&skin.inverse_binds).map(|(j, ib)| global[j] * *ib).collect();
        let lowest = skin
            .vertices
            .iter()
            .map(|(p, ids, ws)| {
                (0..4).map(|i| ws[i] * skinning[usize::from(ids[i])].transform_point3(*p).y).sum::<f32>()
            })
            .fold(f32::INFINITY, f32::min);
        // The keys are rounded to f32: ~1e-7 m of error over a 0.5 m leg; 1e-5 m is ample.
        assert!(lowest.abs() < 1e-5, "key {k}: the lowest point of the figure is at y = {lowest}");
    }
}
