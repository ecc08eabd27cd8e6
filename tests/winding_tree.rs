//! The fast winding number ([`powder::collider::WindingTree`]) against the brute-force sum it
//! replaces in mesh emitters ([`powder::collider::winding_number`]), on closed and open meshes.

use glam::Vec3;
use powder::bench::sdf::bumpy_sphere;
use powder::collider::{WindingTree, lattice_inside, winding_number};
use powder::mesh::TriangleMesh;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The bumpy sphere of `bench::sdf` (radius 0.7 m ± 5%) with every triangle above z = 0.4 m
/// removed: a hole of about 0.5 m across at the top.
fn open_sphere(triangles: usize) -> TriangleMesh {
    let mut mesh = bumpy_sphere(triangles, 0.0);
    let positions = mesh.positions.clone();
    mesh.triangles.retain(|t| t.iter().any(|&v| positions[v as usize].z < 0.4));
    mesh
}

/// Two overlapping closed spheres, one moved by 0.5 m: a self-intersecting soup whose winding
/// number is 2 where they overlap.
fn two_spheres(triangles: usize) -> TriangleMesh {
    let mut mesh = bumpy_sphere(triangles, 0.0);
    let mut other = mesh.clone();
    for p in &mut other.positions {
        *p += Vec3::new(0.5, 0.0, 0.0);
    }
    mesh.append(&other);
    mesh
}

/// Points spread uniformly over the mesh's box grown by 20% on every side.
fn points_around(mesh: &TriangleMesh, count: usize, seed: u64) -> Vec<Vec3> {
    let (lo, hi) = mesh.bounds().expect("a mesh with vertices");
    let (lo, hi) = (lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo));
    let mut rng = StdRng::seed_from_u64(seed);
    (0..count).map(|_| lo + (hi - lo) * Vec3::new(rng.random(), rng.random(), rng.random())).collect()
}

/// Rounding slack between the two sums: both add the same f32 solid angles of the triangles they
/// sum exactly (relative error about 1e-7 each, over a total Σ|Ω|/4π of a few), and the brute
/// force returns its sum as an f32 (6e-8 relative).
const ROUNDING: f64 = 1e-5;

#[test]
fn hierarchy_matches_the_brute_force_sum_within_its_truncation_bound() {
    for (name, mesh) in [("closed", bumpy_sphere(4000, 0.0)), ("open", open_sphere(4000)), ("soup", two_spheres(2000))]
    {
        let tree = WindingTree::new(&mesh);
        let (mut worst_bound, mut total_error) = (0.0f64, 0.0);
        let points = points_around(&mesh, 1500, 7);
        for &p in &points {
            let (fast, bound) = tree.winding_number_bounded(p);
            let exact = winding_number(&mesh, p) as f64;
            assert!(
                (fast - exact).abs() <= bound + ROUNDING,
                "{name} mesh at {p}: hierarchy {fast}, brute force {exact}, truncation bound {bound}"
            );
            worst_bound = worst_bound.max(bound);
            total_error += (fast - exact).abs();
        }
        // The expansions are used (a bound of zero would mean every triangle was summed exactly),
        // and they are accurate: a mean error far below the ½ the inside test thresholds at.
        assert!(worst_bound > 1e-6, "{name}: no far-field expansion was used");
        let mean = total_error / points.len() as f64;
        assert!(mean < 1e-3, "{name}: mean error {mean}");
    }
}

#[test]
fn closed_and_open_meshes_are_told_apart() {
    assert!(WindingTree::new(&bumpy_sphere(500, 0.0)).is_closed());
    assert!(WindingTree::new(&two_spheres(500)).is_closed());
    assert!(!WindingTree::new(&open_sphere(500)).is_closed());
    // Every triangle with its own copies of its corners, as exporters write hard edges: closed
    // once the copies are welded.
    let sphere = bumpy_sphere(500, 0.0);
    let soup = TriangleMesh {
        positions: (0..sphere.triangles.len()).flat_map(|t| sphere.corners(t)).collect(),
        triangles: (0..sphere.triangles.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect(),
    };
    assert!(WindingTree::new(&soup).is_closed());
}

/// A jittered lattice over the mesh's box, `n` points per axis, x fastest.
fn jittered_lattice(mesh: &TriangleMesh, n: usize) -> Vec<Vec3> {
    let (lo, hi) = mesh.bounds().expect("a mesh with vertices");
    let step = (hi - lo) / (n - 1) as f32;
    let mut rng = StdRng::seed_from_u64(3);
    let mut points = Vec::with_capacity(n * n * n);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let jitter = Vec3::new(
                    rng.random_range(-0.25..0.25),
                    rng.random_range(-0.25..0.25),
                    rng.random_range(-0.25..0.25),
                );
                points.push(lo + (Vec3::new(i as f32, j as f32, k as f32) + jitter) * step);
            }
        }
    }
    points
}

#[test]
fn lattice_classification_is_the_brute_force_threshold_at_one_half() {
    for (name, mesh) in [("closed", bumpy_sphere(2000, 0.0)), ("open", open_sphere(2000)), ("soup", two_spheres(1000))]
    {
        let n = 28;
        let points = jittered_lattice(&mesh, n);
        let tree = WindingTree::new(&mesh);
        let inside = lattice_inside(&tree, &points, [n, n, n]);
        let (lo, hi) = mesh.bounds().expect("vertices");
        let mut filled = 0;
        for (&p, &got) in points.iter().zip(&inside) {
            let w = winding_number(&mesh, p);
            // Within the hierarchy's error of ½ either answer is right; elsewhere they must agree.
            if (w - 0.5).abs() > 0.01 {
                let want = p.cmpge(lo).all() && p.cmple(hi).all() && w >= 0.5;
                assert_eq!(got, want, "{name} mesh at {p}: brute-force winding number {w}");
            }
            filled += got as usize;
        }
        // Most of the box is inside a sphere (π/6 of it): the test is not passing on an empty fill.
        assert!(filled > n * n * n / 3, "{name}: {filled} points inside");
    }
}

#[test]
fn lattice_classification_does_not_depend_on_the_thread_count() {
    let mesh = open_sphere(3000);
    let n = 24;
    let points = jittered_lattice(&mesh, n);
    let tree = WindingTree::new(&mesh);
    let many = lattice_inside(&tree, &points, [n, n, n]);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    assert_eq!(one.install(|| lattice_inside(&tree, &points, [n, n, n])), many);
    let values: Vec<f64> = points.iter().map(|&p| tree.winding_number(p)).collect();
    let again: Vec<f64> = one.install(|| points.iter().map(|&p| tree.winding_number(p)).collect());
    assert!(values.iter().zip(&again).all(|(a, b)| a.to_bits() == b.to_bits()));
}
