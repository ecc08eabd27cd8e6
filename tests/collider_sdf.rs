//! Mesh signed distance fields and winding numbers against analytic shapes: a sphere, a box, a
//! union of boxes, a ground block larger than the grid, and meshes with a hole.

use glam::{DVec3, UVec3, Vec3};
use powder::collider::{MeshSdf, mesh_sdf, points_inside, winding_number};
use powder::mesh::TriangleMesh;
use powder::sim::params::GridSpec;

#[allow(dead_code)] // The test uses the icosphere only; the generator uses the rest.
#[path = "../examples/make_assets/shapes.rs"]
mod shapes;

/// Float error of the f32 build, metres: coordinates below 1 m carry 6e-8 m of rounding, and the
/// closest-point arithmetic a few times that. 2e-6 m is 1e-4 of the smallest cell used here.
const FLOAT_ERROR: f64 = 2e-6;

/// `cells`³ cells over the cube [−0.5, 0.5]³.
fn grid(cells: u32) -> GridSpec {
    GridSpec { domain_min: DVec3::splat(-0.5), cell_size: 1.0 / cells as f64, cells: UVec3::splat(cells) }
}

/// Every node's position (f64) with its flat index, in `GridSpec` order.
fn nodes(g: &GridSpec) -> impl Iterator<Item = (usize, DVec3)> + '_ {
    let d = g.node_dims();
    let origin = g.grid_origin();
    (0..d.z).flat_map(move |k| {
        (0..d.y).flat_map(move |j| {
            (0..d.x).map(move |i| (g.node_index(i, j, k), origin + UVec3::new(i, j, k).as_dvec3() * g.cell_size))
        })
    })
}

/// The generator's icosphere (`examples/make_assets/shapes.rs`, the one `assets/sphere.glb` is
/// made from) of `radius` about `centre`, counter-clockwise seen from outside.
fn icosphere(centre: Vec3, radius: f32, subdivisions: u32) -> TriangleMesh {
    let data = shapes::icosphere(radius as f64, subdivisions);
    TriangleMesh {
        positions: data.positions.iter().map(|&p| centre + Vec3::from_array(p)).collect(),
        triangles: data.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
    }
}

/// How far an inscribed icosphere's faces dip below the sphere: r minus the smallest distance
/// from the centre to a face. Its triangles are acute, so that distance is the one to the plane
/// (the foot is the circumcentre, inside the face). This is the Hausdorff distance between the mesh
/// and the sphere, which bounds the difference of their distance functions at every point.
fn chordal_error(mesh: &TriangleMesh, centre: Vec3, radius: f32) -> f64 {
    (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = mesh.corners(t).map(|p| (p - centre).as_dvec3());
            radius as f64 - a.dot((b - a).cross(c - a).normalize())
        })
        .fold(0.0, f64::max)
}

/// A box as glTF exporters write it: four vertices per face (each face its own normal), 24 in all.
fn box_mesh(lo: Vec3, hi: Vec3) -> TriangleMesh {
    let mut mesh = TriangleMesh::default();
    for axis in 0..3 {
        for side in [0.0, 1.0] {
            // Corners of the face in the plane of the other two axes, counter-clockwise seen from
            // outside: (u, v) order flips with the side so (b − a) × (c − a) points outward.
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |du: f32, dv: f32| {
                let mut s = Vec3::ZERO;
                s[axis] = side;
                s[u] = du;
                s[v] = dv;
                lo + s * (hi - lo)
            };
            let base = mesh.positions.len() as u32;
            let quad = if side == 1.0 {
                [(0., 0.), (1., 0.), (1., 1.), (0., 1.)]
            } else {
                [(0., 0.), (0., 1.), (1., 1.), (1., 0.)]
            };
            mesh.positions.extend(quad.map(|(du, dv)| corner(du, dv)));
            mesh.triangles.extend([[base, base + 1, base + 2], [base, base + 2, base + 3]]);
        }
    }
    mesh
}

/// The exact signed distance to the box [lo, hi].
fn box_sdf(p: DVec3, lo: Vec3, hi: Vec3) -> f64 {
    let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
    let q = (p - (lo + hi) / 2.0).abs() - (hi - lo) / 2.0;
    q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
}

/// Checks every node against an exact field `expected` (already clamped to ±band): within
/// `tolerance` in the band, exactly ±band beyond it, and the sign right wherever the exact value
/// is farther than `tolerance` from zero. Returns the number of band nodes.
fn check_field(sdf: &MeshSdf, g: &GridSpec, band: f64, tolerance: f64, expected: impl Fn(DVec3) -> f64) -> usize {
    let mut band_nodes = 0;
    for (n, p) in nodes(g) {
        let (d, e) = (sdf.distance[n] as f64, expected(p));
        assert!((d - e).abs() <= tolerance, "node {p}: distance {d}, expected {e} (± {tolerance})");
        if e.abs() > tolerance {
            assert_eq!(d < 0.0, e < 0.0, "node {p}: wrong sign, distance {d}, expected {e}");
        }
        if d.abs() < band * (1.0 - 1e-6) {
            band_nodes += 1;
            assert!((sdf.normal[n].length() - 1.0).abs() < 1e-5, "node {p}: normal {} not unit", sdf.normal[n]);
        } else {
            assert_eq!(d.abs(), band as f32 as f64, "node {p}: beyond the band the distance is ±band");
            assert_eq!(sdf.normal[n], Vec3::ZERO, "node {p}: no normal beyond the band");
        }
    }
    band_nodes
}

#[test]
fn sphere_distance_sign_and_normals() {
    let (centre, radius) = (Vec3::new(0.013, -0.007, 0.021), 0.3);
    let mesh = icosphere(centre, radius, 4);
    let g = grid(40);
    let band = 3.0 * g.cell_size;
    let chord = chordal_error(&mesh, centre, radius);
    // 5120 faces: the faces dip ~0.3 · (1 − cos 2.3°) ≈ 2.4e-4 m, a hundredth of a cell.
    assert!(chord < 0.02 * g.cell_size, "chordal error {chord} should be far below h");
    let sdf = mesh_sdf(&mesh, None, &g, 3.0);
    let c = centre.as_dvec3();
    let exact = |p: DVec3| ((p - c).length() - radius as f64).clamp(-band, band);
    let band_nodes = check_field(&sdf, &g, band, chord + FLOAT_ERROR, exact);
    assert!(band_nodes > 10_000, "a 3-cell band around the sphere holds {band_nodes} nodes");
    // The mesh distance's gradient is a face, edge or vertex direction of the closest feature; on
    // this tessellation those are within a few degrees of radial (faces span ~4° of arc; 2.6° is
    // the largest seen). The bound is cos 5°.
    for (n, p) in nodes(&g) {
        if sdf.normal[n] != Vec3::ZERO {
            let radial = (p - c).normalize().as_vec3();
            assert!(sdf.normal[n].dot(radial) > 0.996, "node {p}: normal {} vs radial {radial}", sdf.normal[n]);
        }
    }
}

#[test]
fn gltf_box_matches_the_exact_box_field_at_faces_edges_and_corners() {
    let (lo, hi) = (Vec3::new(-0.23, -0.17, -0.31), Vec3::new(0.21, 0.27, 0.13));
    let g = grid(32);
    let band = 3.0 * g.cell_size;
    let sdf = mesh_sdf(&box_mesh(lo, hi), None, &g, 3.0);
    // A box's faces are exact, so only float error remains: 1e-4 h.
    check_field(&sdf, &g, band, 1e-4 * g.cell_size, |p| box_sdf(p, lo, hi).clamp(-band, band));
    // Nodes whose closest point is on an edge or a corner (outside, beyond two or three faces) are
    // in the band and were checked above; make sure there were many of them.
    let (c, half) = (((lo + hi) / 2.0).as_dvec3(), ((hi - lo) / 2.0).as_dvec3());
    let beyond = |p: DVec3| ((p - c).abs() - half).cmpgt(DVec3::ZERO).bitmask().count_ones();
    let near = |p: DVec3| box_sdf(p, lo, hi) < band;
    assert!(nodes(&g).filter(|&(_, p)| near(p) && beyond(p) == 2).count() > 500);
    assert!(nodes(&g).filter(|&(_, p)| near(p) && beyond(p) == 3).count() > 50);
}

#[test]
fn union_of_overlapping_boxes_is_negative_inside_either() {
    let (a_lo, a_hi) = (Vec3::new(-0.3, -0.2, -0.2), Vec3::new(0.1, 0.2, 0.2));
    let (b_lo, b_hi) = (Vec3::new(-0.05, -0.1, -0.25), Vec3::new(0.3, 0.25, 0.15));
    let mut mesh = box_mesh(a_lo, a_hi);
    mesh.append(&box_mesh(b_lo, b_hi));
    let g = grid(32);
    let band = 2.0 * g.cell_size;
    let sdf = mesh_sdf(&mesh, None, &g, 2.0);
    // The union is the minimum of the two boxes' clamped fields: exact outside both; inside, the
    // depth in the deeper box. Float error only, as for one box.
    let clamp = |d: f64| d.clamp(-band, band);
    let expected = |p| clamp(box_sdf(p, a_lo, a_hi)).min(clamp(box_sdf(p, b_lo, b_hi)));
    check_field(&sdf, &g, band, 1e-4 * g.cell_size, expected);
    // The case a single pseudo-normal test gets wrong: near box A's face (outside A) but deep
    // inside B. Those nodes must read −band.
    let hidden = nodes(&g).filter(|&(_, p)| {
        let (da, db) = (box_sdf(p, a_lo, a_hi), box_sdf(p, b_lo, b_hi));
        da > 0.0 && da < band && db < -band
    });
    let hidden: Vec<_> = hidden.collect();
    assert!(hidden.len() > 100, "{} nodes near A's face deep inside B", hidden.len());
    assert!(hidden.iter().all(|&(n, _)| sdf.distance[n] == -band as f32));
}

#[test]
fn blocks_larger_than_the_grid_are_negative_inside() {
    let g = grid(24);
    let band = 2.0 * g.cell_size;
    // A ground block whose sides and bottom are all outside the grid: the layers below the band
    // see no surface at all and take their sign from the winding number. Then a slab past the grid
    // in x and −y but with its +y face inside: rows far from that face have no band node and take
    // their sign from the rows near it.
    let blocks = [
        (Vec3::new(-3.0, -2.0, -2.5), Vec3::new(2.0, 3.0, -0.1)),
        (Vec3::new(-3.0, -2.0, -2.5), Vec3::new(2.0, 0.2, -0.1)),
    ];
    for (lo, hi) in blocks {
        let sdf = mesh_sdf(&box_mesh(lo, hi), None, &g, 2.0);
        check_field(&sdf, &g, band, 1e-4 * g.cell_size, |p| box_sdf(p, lo, hi).clamp(-band, band));
    }
}

#[test]
fn sphere_with_a_hole_keeps_its_signs_away_from_the_hole() {
    let (centre, radius) = (Vec3::new(0.01, 0.02, -0.015), 0.3);
    let mut mesh = icosphere(centre, radius, 3);
    let chord = chordal_error(&mesh, centre, radius);
    // Remove the triangle facing +x: its edges (~0.045 m, 1.5 cells) are narrower than the band.
    let facing = |t: usize| mesh.corners(t).iter().map(|p| p.x).sum::<f32>();
    let hole = (0..mesh.triangles.len()).max_by(|&a, &b| facing(a).total_cmp(&facing(b))).unwrap();
    let [a, b, c] = mesh.corners(hole).map(|p| p.as_dvec3());
    mesh.triangles.remove(hole);
    let hole_centre = (a + b + c) / 3.0;
    let hole_radius = [a, b, c].iter().map(|p| p.distance(hole_centre)).fold(0.0, f64::max);

    let g = grid(32);
    let sdf = mesh_sdf(&mesh, None, &g, 2.0);
    let inside = points_inside(&mesh, &nodes(&g).map(|(_, p)| p.as_vec3()).collect::<Vec<_>>());
    let mut checked = 0;
    for (n, p) in nodes(&g) {
        // More than a cell from the removed triangle (its centroid minus its circumradius bounds
        // the distance to it from below), and off the surface by more than the chordal error.
        let e = (p - centre.as_dvec3()).length() - radius as f64;
        if p.distance(hole_centre) - hole_radius <= g.cell_size || e.abs() <= chord + FLOAT_ERROR {
            continue;
        }
        checked += 1;
        assert_eq!(sdf.distance[n] < 0.0, e < 0.0, "node {p}: distance {} vs exact {e}", sdf.distance[n]);
        assert_eq!(inside[n], e < 0.0, "node {p}: points_inside says {}, exact {e}", inside[n]);
    }
    assert!(checked > 30_000);
}

#[test]
fn surface_velocity_of_a_translating_and_a_rotating_mesh() {
    let (centre, radius) = (Vec3::new(0.02, -0.01, 0.03), 0.25);
    let mesh = icosphere(centre, radius, 2);
    let g = grid(24);
    let v = Vec3::new(0.3, -1.2, 0.5);
    let sdf = mesh_sdf(&mesh, Some(&vec![v; mesh.positions.len()]), &g, 2.0);
    for (n, p) in nodes(&g) {
        let expected = if sdf.normal[n] == Vec3::ZERO { Vec3::ZERO } else { v };
        // Barycentric weights sum to 1 within a few ulps.
        assert!((sdf.velocity[n] - expected).length() < 1e-6, "node {p}: {} vs {expected}", sdf.velocity[n]);
    }
    // A rigid rotation about `pivot`: ω × r is linear in r, so interpolating it over a triangle is
    // exact and the node reads ω × (closest point − pivot). The closest point is node − d·normal;
    // float error ~1e-6 m in it becomes ~1e-6 · |ω| m/s.
    let (omega, pivot) = (Vec3::new(0.2, -0.4, 1.5), Vec3::new(0.1, 0.05, -0.02));
    let spin: Vec<Vec3> = mesh.positions.iter().map(|&x| omega.cross(x - pivot)).collect();
    let sdf = mesh_sdf(&mesh, Some(&spin), &g, 2.0);
    let mut band_nodes = 0;
    for (n, p) in nodes(&g) {
        if sdf.normal[n] != Vec3::ZERO {
            band_nodes += 1;
            let closest = p.as_vec3() - sdf.distance[n] * sdf.normal[n];
            let expected = omega.cross(closest - pivot);
            assert!((sdf.velocity[n] - expected).length() < 1e-5, "node {p}: {} vs {expected}", sdf.velocity[n]);
        }
    }
    assert!(band_nodes > 1000);
}

#[test]
fn winding_number_of_a_closed_sphere_is_one_inside_and_zero_outside() {
    let (centre, radius) = (Vec3::new(0.01, 0.02, -0.015), 0.3);
    let mesh = icosphere(centre, radius, 3);
    // Points a sixth of the radius or more off the surface; the sum of solid angles of a closed
    // mesh is exactly 4π or 0, so what remains is f32 rounding of 1280 terms, summed in f64.
    for (_, p) in nodes(&grid(12)) {
        let p = p.as_vec3();
        let r = (p - centre).length();
        if (r - radius).abs() < 0.05 {
            continue;
        }
        let w = winding_number(&mesh, p);
        let expected = if r < radius { 1.0 } else { 0.0 };
        assert!((w - expected).abs() < 1e-4, "point {p}: winding {w}, expected {expected}");
    }
}

#[test]
fn empty_mesh_is_outside_everywhere() {
    let g = grid(8);
    let sdf = mesh_sdf(&TriangleMesh::default(), None, &g, 2.0);
    let band = (2.0 * g.cell_size) as f32;
    assert_eq!(sdf.distance.len() as u64, g.node_count());
    assert!(sdf.distance.iter().all(|&d| d == band) && sdf.normal.iter().all(|&n| n == Vec3::ZERO));
    assert!(points_inside(&TriangleMesh::default(), &[Vec3::ZERO]) == [false]);
}

/// The shipped `assets/sphere.glb` (r = 0.25 m, 1280 faces) and `assets/box.glb` (unit cube),
/// imported through glTF (y-up to z-up), against their analytic fields on a 32³ grid.
#[test]
fn shipped_gltf_sphere_and_box_match_the_analytic_fields() {
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let g = grid(32);
    let band = 3.0 * g.cell_size;
    let clamp = |e: f64| e.clamp(-band, band);

    let sphere = powder::mesh::GltfModel::load(&assets.join("sphere.glb")).expect("sphere.glb").rest_mesh();
    let sdf = mesh_sdf(&sphere, None, &g, 3.0);
    // The icosphere's flat faces lie inside the true sphere by at most its chordal error (measured
    // on the mesh itself); float error adds 2e-6 m. Both are far below a cell (1/32 m).
    let tolerance = chordal_error(&sphere, Vec3::ZERO, 0.25) + FLOAT_ERROR;
    assert!(tolerance < 0.25 * g.cell_size, "chordal error {tolerance} m");
    let band_nodes = check_field(&sdf, &g, band, tolerance, |p| clamp(p.length() - 0.25));
    assert!(band_nodes > 1000, "{band_nodes} band nodes");

    let cube = powder::mesh::GltfModel::load(&assets.join("box.glb")).expect("box.glb").rest_mesh();
    // The unit cube would fill the [−0.5, 0.5]³ grid; a 1.5 m grid has its faces and outside.
    let wide = GridSpec { domain_min: DVec3::splat(-0.75), cell_size: 1.5 / 32.0, cells: UVec3::splat(32) };
    let sdf = mesh_sdf(&cube, None, &wide, 3.0);
    let band = 3.0 * wide.cell_size;
    let half = Vec3::splat(0.5);
    // Exact faces: only float error.
    let band_nodes = check_field(&sdf, &wide, band, FLOAT_ERROR, |p| box_sdf(p, -half, half).clamp(-band, band));
    assert!(band_nodes > 1000, "{band_nodes} band nodes");
}

#[test]
fn a_moving_mesh_reuses_its_last_end_field_and_matches_a_fresh_build_bit_for_bit() {
    use powder::collider::set::ColliderSet;
    use powder::scene::Scene;
    // The walking figure: a skinned glTF mesh whose pose changes every frame. Frame k's start
    // field is frame k − 1's end field with frame k's vertex velocities; it must equal a field
    // built afresh at that pose, and each later frame must build one field, not two.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/figure_walk.json");
    let scene = Scene::load(&path).expect("figure_walk.json loads");
    let dt = 1.0 / 30.0;
    let mut set = ColliderSet::from_scene(&scene, "figure_walk").expect("colliders");
    set.frames(0.0, dt).expect("the figure");
    assert_eq!(set.mesh_builds(), 2, "the first frame builds its start and its end");
    // A frame of no length (paused) between them keeps the last end field for the next frame.
    set.frames(dt, dt).expect("the figure");
    let builds = set.mesh_builds();
    assert_eq!(builds, 3, "the paused frame builds the one field it draws");
    for k in 1..4u32 {
        let (t0, t1) = (k as f64 * dt, (k + 1) as f64 * dt);
        let reused = set.frames(t0, t1).expect("the figure");
        assert_eq!(set.mesh_builds(), builds + k as u64, "frame {k} built its start field again");
        let fresh =
            ColliderSet::from_scene(&scene, "figure_walk").expect("colliders").frames(t0, t1).expect("the figure");
        // Bit for bit: the bytes of every node, so that −0.0 and 0.0 count as different.
        for (which, a, b) in [("start", &reused.from, &fresh.from), ("end", &reused.to, &fresh.to)] {
            let (a, b): (&[u8], &[u8]) = (bytemuck::cast_slice(&a.nodes), bytemuck::cast_slice(&b.nodes));
            assert!(a == b, "frame {k}: the {which} field differs from a fresh build");
        }
        assert_eq!(reused.surfaces, fresh.surfaces);
        // The figure moves, so the start field's velocities are this frame's, not the last one's.
        let moving = reused.from.nodes.iter().filter(|n| Vec3::from(n.velocity).length() > 0.01).count();
        assert!(moving > 100, "frame {k}: only {moving} nodes carry the figure's motion");
    }
}
