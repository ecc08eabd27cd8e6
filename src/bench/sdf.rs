//! The mesh collider SDF build on the CPU ([`crate::collider::mesh_sdf`]): wall-clock time of a
//! static build and of an animated frame (a deformed, moving mesh with vertex velocities) for a
//! procedural closed mesh in a 2 m domain.

use std::fmt;
use std::time::Instant;

use glam::{DVec3, UVec3, Vec3};

use super::median;
use crate::collider::mesh_sdf;
use crate::mesh::TriangleMesh;
use crate::sim::params::GridSpec;

// The band half-width the solver's colliders use, so the bench times what runs.
use crate::collider::set::BAND_CELLS;
/// Timed builds of each kind; the report gives their median.
const REPEATS: usize = 5;
/// Edge of the cubic domain, metres.
const DOMAIN_SIZE: f64 = 2.0;
/// Mean radius of the bumpy sphere, metres.
const RADIUS: f32 = 0.7;
/// Time between animated frames, seconds (60 fps).
const FRAME_TIME: f32 = 1.0 / 60.0;

/// Timings of the SDF benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct SdfBenchReport {
    /// Triangles in the mesh.
    pub triangles: usize,
    /// Cells along each axis of the domain.
    pub resolution: u32,
    /// Grid nodes, padding included.
    pub nodes: u64,
    /// Nodes within the band of the static mesh.
    pub band_nodes: usize,
    /// Rayon threads the build ran on.
    pub threads: usize,
    /// Median wall-clock milliseconds of a static build (no vertex velocities).
    pub ms_static: f64,
    /// Median wall-clock milliseconds of an animated frame (mesh moved and deformed, velocities
    /// given).
    pub ms_animated: f64,
    /// Median wall-clock milliseconds of taking the last frame's end field as this frame's start
    /// with new velocities ([`crate::collider::MeshSdf::with_velocity`]): what a moving collider's
    /// start field costs instead of a second build.
    pub ms_reused: f64,
}

impl fmt::Display for SdfBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.resolution;
        writeln!(
            f,
            "mesh SDF: {} triangles, grid {r}³ cells ({} nodes), band {BAND_CELLS} cells ({} band nodes), {} threads",
            self.triangles, self.nodes, self.band_nodes, self.threads
        )?;
        writeln!(f, "  static build:   {:>9.2} ms (median of {REPEATS})", self.ms_static)?;
        writeln!(
            f,
            "  animated frame: {:>9.2} ms (median of {REPEATS}, deformed, with vertex velocities)",
            self.ms_animated
        )?;
        writeln!(
            f,
            "  reused start:   {:>9.2} ms (median of {REPEATS}, the last frame's end field with new velocities)",
            self.ms_reused
        )
    }
}

/// Builds a bumpy closed sphere of about `triangles_target` triangles in a 2 m domain of
/// `resolution`³ cells and times `mesh_sdf` on it: `REPEATS` static builds, then as many
/// animated frames, each with the mesh rotated, lifted and its bumps shifted, and the vertex
/// velocities of that motion. Mesh generation is not timed.
pub fn sdf_benchmark(triangles_target: usize, resolution: u32) -> SdfBenchReport {
    let resolution = resolution.max(1);
    let grid = GridSpec {
        domain_min: DVec3::splat(-DOMAIN_SIZE / 2.0),
        cell_size: DOMAIN_SIZE / resolution as f64,
        cells: UVec3::splat(resolution),
    };
    let frames: Vec<TriangleMesh> = (0..=REPEATS).map(|f| bumpy_sphere(triangles_target, f as f32)).collect();

    let mut static_ms = Vec::with_capacity(REPEATS);
    let mut band_nodes = 0;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let sdf = mesh_sdf(&frames[0], None, &grid, BAND_CELLS);
        static_ms.push(start.elapsed().as_secs_f64() * 1e3);
        let band = BAND_CELLS * grid.cell_size as f32;
        band_nodes = sdf.distance.iter().filter(|d| d.abs() < band).count();
    }
    let mut animated_ms = Vec::with_capacity(REPEATS);
    let mut reused_ms = Vec::with_capacity(REPEATS);
    for pair in frames.windows(2) {
        let velocity: Vec<Vec3> = pair[1]
            .positions
            .iter()
            .zip(&pair[0].positions)
            .map(|(&now, &before)| (now - before) / FRAME_TIME)
            .collect();
        let start = Instant::now();
        let sdf = mesh_sdf(&pair[1], Some(&velocity), &grid, BAND_CELLS);
        animated_ms.push(start.elapsed().as_secs_f64() * 1e3);
        // The next frame's start: the same pose, other velocities (here the negated ones).
        let next: Vec<Vec3> = velocity.iter().map(|v| -*v).collect();
        let start = Instant::now();
        let sdf = sdf.with_velocity(&pair[1], &next);
        reused_ms.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(&sdf);
    }
    SdfBenchReport {
        triangles: frames[0].triangles.len(),
        resolution,
        nodes: grid.node_count(),
        band_nodes,
        threads: rayon::current_num_threads(),
        ms_static: median(static_ms),
        ms_animated: median(animated_ms),
        ms_reused: median(reused_ms),
    }
}

/// A closed latitude–longitude sphere of about `triangles_target` triangles (`m` bands of `2m`
/// segments make `4m(m − 1)`), radius `RADIUS` with bumps of 5%, counter-clockwise seen from
/// outside. `frame` animates it: the bumps travel in longitude, and the whole turns about z and
/// rises a little, a few millimetres per frame.
pub fn bumpy_sphere(triangles_target: usize, frame: f32) -> TriangleMesh {
    let bands = ((triangles_target as f64 / 4.0).sqrt().round() as u32).max(2);
    let segments = 2 * bands;
    let (turn, rise, phase) = (0.01 * frame, Vec3::Z * 0.003 * frame, 0.05 * frame);
    let point = |theta: f32, phi: f32| {
        let r = RADIUS * (1.0 + 0.05 * (6.0 * theta).sin() * (5.0 * phi + phase).cos());
        let phi = phi + turn;
        r * Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos()) + rise
    };
    let pi = std::f32::consts::PI;
    let mut positions = vec![point(0.0, 0.0)];
    for i in 1..bands {
        let theta = pi * i as f32 / bands as f32;
        positions.extend((0..segments).map(|j| point(theta, 2.0 * pi * j as f32 / segments as f32)));
    }
    positions.push(point(pi, 0.0));
    let south = positions.len() as u32 - 1;
    let ring = |i: u32, j: u32| 1 + (i - 1) * segments + j % segments;
    let mut triangles = Vec::with_capacity(4 * bands as usize * (bands as usize - 1));
    for j in 0..segments {
        // Seen from outside, longitude grows to the right and latitude index downwards.
        triangles.push([0, ring(1, j), ring(1, j + 1)]);
        for i in 1..bands - 1 {
            triangles.push([ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)]);
            triangles.push([ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)]);
        }
        triangles.push([ring(bands - 1, j), south, ring(bands - 1, j + 1)]);
    }
    TriangleMesh { positions, triangles }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bumpy_sphere_is_closed_and_wound_outward() {
        let mesh = bumpy_sphere(2000, 0.0);
        assert_eq!(mesh.triangles.len(), 4 * 22 * 21);
        // Divergence theorem: Σ a·(b×c)/6 is the enclosed volume, positive when wound outward. The
        // bumps average out over the sphere to first order, so it is within a few percent of
        // 4/3 π r³ (the faceting of 44 segments removes about 1%).
        let volume: f32 = (0..mesh.triangles.len())
            .map(|t| {
                let [a, b, c] = mesh.corners(t);
                a.dot(b.cross(c)) / 6.0
            })
            .sum();
        let sphere = 4.0 / 3.0 * std::f32::consts::PI * RADIUS.powi(3);
        assert!((volume / sphere - 1.0).abs() < 0.03, "volume {volume} vs {sphere}");
        // Closed: every edge is shared by exactly two triangles, in opposite directions.
        let mut edges = std::collections::HashMap::new();
        for t in &mesh.triangles {
            for k in 0..3 {
                *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0) += 1;
            }
        }
        assert!(edges.iter().all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1)));
    }

    #[test]
    fn small_benchmark_reports_its_sizes() {
        let report = sdf_benchmark(2000, 24);
        assert_eq!(report.triangles, 4 * 22 * 21);
        assert_eq!(report.nodes, 29u64.pow(3));
        assert!(report.band_nodes > 1000 && report.band_nodes < 29usize.pow(3));
        assert!(report.to_string().contains("1848 triangles"));
    }
}
