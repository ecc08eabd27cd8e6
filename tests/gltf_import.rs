//! glTF import: containers, axes, hierarchy, topology modes, animation, skins and errors, on
//! small files written by the tests themselves (JSON by `serde_json`, GLB by `gltf::binary`).
//!
//! Tolerances: positions are a few f32 operations on numbers of order 1, so 1e-5 covers their
//! rounding (f32 epsilon is 1.2e-7) with room for the quaternion and matrix products.

#[path = "data/gltf/fixture.rs"]
mod fixture;

use fixture::{Fixture, quat, triangle_mesh};
use glam::{Mat4, Quat, Vec3};
use powder::mesh::{AnimationSelector, GLTF_TO_POWDER, GltfError, GltfModel, TriangleMesh};
use serde_json::json;

/// Tolerance for positions; see the module doc.
const TOL: f32 = 1e-5;

fn assert_close(actual: Vec3, expected: Vec3, what: &str) {
    assert!((actual - expected).abs().max_element() < TOL, "{what}: got {actual}, expected {expected}");
}

fn normals(mesh: &TriangleMesh) -> Vec<Vec3> {
    (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = mesh.corners(t);
            (b - a).cross(c - a).normalize()
        })
        .collect()
}

#[test]
fn gltf_with_bin_with_data_uri_and_glb_import_the_same_triangle_in_powder_axes() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    let doc = json!({ "scene": 0, "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh] });
    let paths = [
        fx.write_gltf(dir.path(), "tri", &doc),
        fx.write_embedded(dir.path(), "tri_uri", &doc),
        fx.write_glb(dir.path(), "tri", &doc),
    ];
    for path in &paths {
        let mesh = GltfModel::load(path).unwrap_or_else(|e| panic!("{e}")).rest_mesh();
        // glTF x stays x; glTF y (up) becomes powder z (up); glTF z becomes powder −y.
        assert_eq!(mesh.positions, vec![Vec3::X, Vec3::Z, -Vec3::Y], "{}", path.display());
        assert_eq!(mesh.triangles, vec![[0, 1, 2]]);
    }
    assert_eq!(GLTF_TO_POWDER.transform_point3(Vec3::Y), Vec3::Z);
    assert_eq!(GLTF_TO_POWDER.transform_point3(Vec3::Z), -Vec3::Y);
}

#[test]
fn child_translation_under_rotated_scaled_parent_as_trs_and_as_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    // Parent: translate (0, 0, 3) · rotate 90° about z · scale 2. Written out by hand, column-major:
    // the rotated, scaled x axis is (0, 2, 0), y is (−2, 0, 0), z is (0, 0, 2).
    let parent_matrix = [0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0, 1.0];
    let trs_parent =
        json!({ "children": [1], "translation": [0, 0, 3], "rotation": quat(Vec3::Z, 90.0), "scale": [2, 2, 2] });
    let matrix_parent = json!({ "children": [1], "matrix": parent_matrix });
    for (name, parent) in [("trs", trs_parent), ("matrix", matrix_parent)] {
        let child = json!({ "mesh": 0, "translation": [1, 0, 0] });
        let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [parent, child], "meshes": [mesh] });
        let mesh = GltfModel::load(&fx.write_gltf(dir.path(), name, &doc)).unwrap().rest_mesh();
        // world = parent · translate(1, 0, 0): child (0,0,0) → glTF (0, 2, 3); (1,0,0) → (0, 4, 3);
        // (0,1,0) → (−2, 2, 3). Then powder (x, −z, y).
        let world = Mat4::from_cols_array(&parent_matrix) * Mat4::from_translation(Vec3::X);
        for (p, expected) in mesh.positions.iter().zip([[0.0, -3.0, 2.0], [0.0, -3.0, 4.0], [-2.0, -3.0, 2.0]]) {
            assert_close(*p, Vec3::from(expected), name);
        }
        let by_matrix =
            [Vec3::ZERO, Vec3::X, Vec3::Y].map(|p| GLTF_TO_POWDER.transform_point3(world.transform_point3(p)));
        assert_eq!(mesh.positions.len(), 3);
        (0..3).for_each(|i| assert_close(mesh.positions[i], by_matrix[i], name));
    }
}

#[test]
fn a_mirroring_node_keeps_the_outside_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0, "scale": [-1, 1, 1] }], "meshes": [mesh] });
    let mirrored = GltfModel::load(&fx.write_gltf(dir.path(), "mirror", &doc)).unwrap().rest_mesh();
    // Mirroring x would turn the glTF +z normal (powder −y) inside out; the corners swap instead.
    assert_eq!(mirrored.triangles, vec![[0, 2, 1]]);
    assert_close(normals(&mirrored)[0], -Vec3::Y, "mirrored normal");
}

#[test]
fn strips_and_fans_become_triangles_wound_like_the_triangle_list_and_lines_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut fx = Fixture::default();
    // A zigzag of 6 vertices: bottom row v0, v2, v4 at y = 0, top row v1, v3, v5 at y = 1.
    let zigzag: Vec<[f32; 3]> = (0..6).map(|i| [(i / 2) as f32, (i % 2) as f32, 0.0]).collect();
    let strip_positions = fx.positions(&zigzag);
    let strip_indices = fx.indices(&[0, 1, 2, 3, 4, 5]);
    let list_indices = fx.indices(&[0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4]);
    // The fan of a unit square, counter-clockwise seen from +z, and the same two triangles as a list.
    let square = fx.positions(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]);
    let fan_list = fx.indices(&[0, 1, 2, 0, 2, 3]);
    let prims = |mode: u32, pos: usize, idx: Option<usize>| match idx {
        Some(idx) => json!({ "attributes": { "POSITION": pos }, "indices": idx, "mode": mode }),
        None => json!({ "attributes": { "POSITION": pos }, "mode": mode }),
    };
    let meshes = json!([
        { "primitives": [prims(4, strip_positions, Some(list_indices))] },
        { "primitives": [prims(5, strip_positions, Some(strip_indices)), prims(1, strip_positions, None)] },
        { "primitives": [prims(5, strip_positions, None)] },
        { "primitives": [prims(4, square, Some(fan_list))] },
        { "primitives": [prims(6, square, None)] },
    ]);
    let load = |mesh: usize| {
        let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": mesh }], "meshes": meshes });
        GltfModel::load(&fx.write_gltf(dir.path(), &format!("mode{mesh}"), &doc)).unwrap().rest_mesh()
    };
    let (list, strip, plain_strip, square_list, fan) = (load(0), load(1), load(2), load(3), load(4));
    // 6 strip vertices make 4 triangles, a 4-vertex fan 2; the LINES primitive adds none.
    assert_eq!((strip.triangles.len(), plain_strip.triangles.len(), fan.triangles.len()), (4, 4, 2));
    assert_eq!(strip.positions.len(), 6, "the skipped LINES primitive adds no vertices");
    // The zigzag turns clockwise seen from +z, so every normal is glTF −z, which is powder +y.
    for (mesh, reference) in [(&strip, &list), (&plain_strip, &list), (&fan, &square_list)] {
        let expected = normals(reference)[0];
        for n in normals(mesh) {
            assert_close(n, expected, "normal");
        }
    }
    assert_close(normals(&list)[0], Vec3::Y, "zigzag normal");
    assert_close(normals(&square_list)[0], -Vec3::Y, "square normal (glTF +z is powder −y)");
}

/// A triangle at the origin with four clips: "slide" (LINEAR translation), "turn" (LINEAR rotation),
/// "hop" (STEP translation) and "ease" (CUBICSPLINE translation).
fn animated_model(dir: &std::path::Path) -> GltfModel {
    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let t01 = fx.floats(&[0.0, 1.0], "SCALAR");
    let t02 = fx.floats(&[0.0, 2.0], "SCALAR");
    let t012 = fx.floats(&[0.0, 1.0, 2.0], "SCALAR");
    let slide = fx.floats(&[0.0, 0.0, 0.0, 2.0, 4.0, 6.0], "VEC3");
    let turn = fx.floats(&[[0.0, 0.0, 0.0, 1.0], quat(Vec3::Y, 90.0)].concat(), "VEC4");
    let hop = fx.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 5.0, 0.0, 0.0], "VEC3");
    // Per key: in-tangent, value, out-tangent. Key 0: value 0, out-tangent 1. Key 1: in-tangent −1, value 1.
    let ease =
        fx.floats(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
    let clip = |name: &str, path: &str, input: usize, output: usize, interpolation: &str| {
        json!({ "name": name, "channels": [{ "sampler": 0, "target": { "node": 0, "path": path } }],
                "samplers": [{ "input": input, "output": output, "interpolation": interpolation }] })
    };
    let animations = json!([
        clip("slide", "translation", t02, slide, "LINEAR"),
        clip("turn", "rotation", t01, turn, "LINEAR"),
        clip("hop", "translation", t012, hop, "STEP"),
        clip("ease", "translation", t02, ease, "CUBICSPLINE"),
    ]);
    let doc =
        json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh], "animations": animations });
    GltfModel::load(&fx.write_glb(dir, "animated", &doc)).unwrap()
}

#[test]
fn linear_translation_and_slerped_rotation_at_mid_times() {
    let dir = tempfile::tempdir().unwrap();
    let model = animated_model(dir.path());
    assert!(model.is_animated());
    let durations: Vec<(Option<&str>, f32)> =
        model.animations().iter().map(|a| (a.name.as_deref(), a.duration)).collect();
    assert_eq!(durations, [(Some("slide"), 2.0), (Some("turn"), 1.0), (Some("hop"), 2.0), (Some("ease"), 2.0)]);
    let slide = model.find_animation(&AnimationSelector::Name("slide".into())).unwrap();
    // A quarter of the way from (0,0,0) to glTF (2,4,6) is (0.5, 1, 1.5): powder (0.5, −1.5, 1).
    assert_close(model.mesh_at(Some(slide), 0.5).positions[0], Vec3::new(0.5, -1.5, 1.0), "slide at 0.5 s");
    // Clamped: before the first key holds the first value, after the last the last.
    assert_close(model.mesh_at(Some(slide), -3.0).positions[0], Vec3::ZERO, "slide before");
    assert_close(model.mesh_at(Some(slide), 9.0).positions[0], Vec3::new(2.0, -6.0, 4.0), "slide after");

    // Slerp from identity to 90° about y, a quarter of the way: 22.5° about y, so by hand the
    // quaternion is (0, sin 11.25°, 0, cos 11.25°). A normalised lerp would give 21.6°.
    let turn = model.find_animation(&AnimationSelector::Index(1)).unwrap();
    let half = 11.25f32.to_radians();
    let by_hand = Quat::from_xyzw(0.0, half.sin(), 0.0, half.cos());
    let expected = GLTF_TO_POWDER.transform_point3(by_hand * Vec3::X);
    assert_close(model.mesh_at(Some(turn), 0.25).positions[1], expected, "turn at 0.25 s");
    let angle = 22.5f32.to_radians();
    assert_close(expected, Vec3::new(angle.cos(), angle.sin(), 0.0), "rotated x in powder axes");
}

#[test]
fn step_holds_and_cubic_spline_follows_hermite() {
    let dir = tempfile::tempdir().unwrap();
    let model = animated_model(dir.path());
    let x_at = |clip: usize, t: f32| model.mesh_at(Some(clip), t).positions[0];
    assert_close(x_at(2, 0.99), Vec3::ZERO, "step before key 1");
    assert_close(x_at(2, 1.5), Vec3::X, "step after key 1");
    assert_close(x_at(2, 7.0), Vec3::X * 5.0, "step after the end");
    // Hermite at t = 0.5 of [0, 2]: s = 0.25, dt = 2. Basis: h00 = 0.84375, h10 = 0.140625,
    // h01 = 0.15625, h11 = −0.046875. x = h00·0 + h10·dt·1 + h01·1 + h11·dt·(−1)
    // = 0.28125 + 0.15625 + 0.09375 = 0.53125 (linear would give 0.25).
    assert_close(x_at(3, 0.5), Vec3::X * 0.53125, "cubic at 0.5 s");
    assert_close(x_at(3, -1.0), Vec3::ZERO, "cubic before");
    assert_close(x_at(3, 3.0), Vec3::X, "cubic after: the last value, not a tangent");
}

#[test]
fn two_joint_skin_blends_global_joint_times_inverse_bind() {
    let dir = tempfile::tempdir().unwrap();
    let model = GltfModel::load(&fixture::write_skinned(dir.path(), "skin", [0, 1, 0, 0])).unwrap();
    let positions = [Vec3::new(0.0, 2.0, 0.0), Vec3::X, Vec3::Z];
    // At rest every joint matrix is identity; the mesh node's translation (10, 0, 0) is ignored.
    let rest = model.rest_mesh();
    (0..3).for_each(|i| assert_close(rest.positions[i], GLTF_TO_POWDER.transform_point3(positions[i]), "rest"));
    for (t, degrees) in [(0.5, 45.0), (1.0, 90.0)] {
        // M0 = identity (root joint, identity bind); M1 = tip global · inverse bind
        // = translate(0, 1, 0) · rotate z · translate(0, −1, 0).
        let m0 = Mat4::IDENTITY;
        let m1 = Mat4::from_translation(Vec3::Y)
            * Mat4::from_quat(Quat::from_rotation_z(f32::to_radians(degrees)))
            * Mat4::from_translation(-Vec3::Y);
        let v = positions[0];
        let blended = 0.25 * m0.transform_point3(v) + 0.75 * m1.transform_point3(v);
        let mesh = model.mesh_at(Some(0), t);
        assert_close(mesh.positions[0], GLTF_TO_POWDER.transform_point3(blended), "0.25/0.75 vertex");
        // Weights (0, 2, 0, 0) normalise to joint 1 alone.
        assert_close(mesh.positions[2], GLTF_TO_POWDER.transform_point3(m1.transform_point3(Vec3::Z)), "tip vertex");
    }
    // At 90° by hand: M1·(0,2,0) = (−1, 1, 0), so 0.25·(0,2,0) + 0.75·(−1,1,0) = (−0.75, 1.25, 0).
    assert_close(model.mesh_at(Some(0), 1.0).positions[0], Vec3::new(-0.75, 0.0, 1.25), "by hand");
}

#[test]
fn every_vertex_of_a_5k_vertex_skinned_grid_follows_linear_blend_skinning_at_every_pose() {
    // The grid of fixture::write_skinned_grid: vertex (column, row) at (0.01·column, 0.01·row, 0)
    // blends the root (identity) and the tip joint with weight row/99 on the tip, whose matrix at
    // time t is M1 = translate(0, 1, 0) · rotate z(90°·t) · translate(0, −1, 0), as in
    // two_joint_skin_blends_global_joint_times_inverse_bind.
    let dir = tempfile::tempdir().unwrap();
    let (columns, rows) = (50u16, 100u16);
    let model = GltfModel::load(&fixture::write_skinned_grid(dir.path(), columns, rows)).unwrap();
    let mut positions = Vec::new();
    let samples = 10;
    for i in 0..=samples {
        let t = i as f32 / samples as f32;
        let m1 = Mat4::from_translation(Vec3::Y)
            * Mat4::from_quat(Quat::from_rotation_z(f32::to_radians(90.0 * t)))
            * Mat4::from_translation(-Vec3::Y);
        model.positions_at(Some(0), t, &mut positions);
        assert_eq!(positions.len(), usize::from(columns) * usize::from(rows));
        for (k, &got) in positions.iter().enumerate() {
            let (column, row) = (k % usize::from(columns), k / usize::from(columns));
            let p = Vec3::new(column as f32 * 0.01, row as f32 * 0.01, 0.0);
            let w = row as f32 / f32::from(rows - 1);
            let blended = (1.0 - w) * p + w * m1.transform_point3(p);
            assert_close(got, GLTF_TO_POWDER.transform_point3(blended), &format!("vertex {k} at t = {t}"));
        }
    }
}

#[test]
fn joint_index_past_the_skin_names_file_mesh_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture::write_skinned(dir.path(), "bad_skin", [0, 5, 0, 0]);
    let message = GltfModel::load(&path).unwrap_err().to_string();
    let expected =
        format!("{}: mesh 'body' primitive 0: JOINTS_0 refers to joint 5 but skin 'rig' has 2 joints", path.display());
    assert_eq!(message, expected);
}

#[test]
fn unreadable_files_are_errors_that_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.glb");
    assert!(matches!(GltfModel::load(&missing), Err(GltfError::Io { .. })));

    let mut fx = Fixture::default();
    let mesh = triangle_mesh(&mut fx, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": [mesh] });
    let glb = std::fs::read(fx.write_glb(dir.path(), "whole", &doc)).unwrap();
    let not_gltf = dir.path().join("not_gltf.gltf");
    std::fs::write(&not_gltf, r#"{ "name": "a JSON file, but not glTF" }"#).unwrap();
    let mut paths = vec![missing, not_gltf];
    for (name, bytes) in
        [("half.glb", &glb[..glb.len() / 2]), ("header.glb", &glb[..10]), ("zero.glb", b"glTF\x02\0\0\0\0\0\0\0")]
    {
        paths.push(dir.path().join(name));
        std::fs::write(paths.last().unwrap(), bytes).unwrap();
    }
    let external = fx.write_gltf(dir.path(), "no_bin", &doc);
    std::fs::remove_file(dir.path().join("no_bin.bin")).unwrap();
    paths.push(external);
    for path in paths {
        let message = GltfModel::load(&path).map(|_| ()).unwrap_err().to_string();
        assert!(message.starts_with(&path.display().to_string()), "{message}");
    }
    let message = GltfModel::load(&dir.path().join("no_bin.gltf")).map(|_| ()).unwrap_err().to_string();
    assert!(message.contains("buffer 0 ('no_bin.bin')"), "{message}");

    // A file of lines only has nothing to collide with.
    let lines = json!([{ "primitives": [{ "attributes": { "POSITION": 0 }, "mode": 1 }] }]);
    let doc = json!({ "scenes": [{ "nodes": [0] }], "nodes": [{ "mesh": 0 }], "meshes": lines });
    assert!(matches!(GltfModel::load(&fx.write_glb(dir.path(), "lines", &doc)), Err(GltfError::NoTriangles { .. })));
}

#[test]
fn unknown_animation_names_the_file_the_request_and_the_clips() {
    let dir = tempfile::tempdir().unwrap();
    let model = animated_model(dir.path());
    let message = model.find_animation(&AnimationSelector::Name("walk".into())).unwrap_err().to_string();
    let path = dir.path().join("animated.glb");
    let clips = "0 'slide' (2 s), 1 'turn' (1 s), 2 'hop' (2 s), 3 'ease' (2 s)";
    assert_eq!(message, format!("{}: no animation 'walk'; the file has animations {clips}", path.display()));
    let message = model.find_animation(&AnimationSelector::Index(4)).unwrap_err().to_string();
    assert!(message.contains("no animation index 4"), "{message}");
    // Selectors read from JSON as a number or a name.
    let selectors: Vec<AnimationSelector> = serde_json::from_str(r#"[2, "hop"]"#).unwrap();
    assert_eq!(selectors, [AnimationSelector::Index(2), AnimationSelector::Name("hop".into())]);
}
