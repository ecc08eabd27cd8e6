//! Mesh emitters on the CPU ([`crate::scene::Emitter::sample`]): wall-clock time to fill a
//! procedural closed mesh, and the same mesh with a hole, in a 2 m domain, against an estimate of
//! the brute-force winding number sum.

use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

use glam::{DVec3, Vec3};

use super::median;
use super::sdf::bumpy_sphere;
use crate::collider::winding_number;
use crate::mesh::TriangleMesh;
use crate::scene::{Emitter, Transform};

/// Timed fills of each mesh; the report gives their median.
const REPEATS: usize = 3;
/// Edge of the cubic domain, metres.
const DOMAIN_SIZE: f64 = 2.0;
/// Particles per cell, the scenes' default.
const PARTICLES_PER_CELL: f64 = 8.0;
/// Lattice points the brute-force estimate times.
const BRUTE_FORCE_POINTS: usize = 64;

/// One mesh's fill.
#[derive(Clone, Debug, PartialEq)]
pub struct FillTiming {
    /// Which mesh: "closed" or "open".
    pub mesh: &'static str,
    /// Triangles in the mesh.
    pub triangles: usize,
    /// Particles the emitter made.
    pub particles: u64,
    /// Median wall-clock milliseconds of a fill: the hierarchy built, the lattice sampled and the
    /// particles' positions made.
    pub ms: f64,
    /// The brute-force sum's milliseconds for the same lattice points, extrapolated from
    /// `BRUTE_FORCE_POINTS` of them spread over the lattice within the mesh's box.
    pub ms_brute_force: f64,
}

/// Timings of the mesh emitter benchmark.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitterBenchReport {
    /// Cells along each axis of the domain.
    pub resolution: u32,
    /// Lattice points of the emitter (its bounding box at the particle spacing).
    pub lattice_points: u64,
    /// Rayon threads the fill ran on.
    pub threads: usize,
    /// The closed mesh, then the same mesh with a hole.
    pub fills: Vec<FillTiming>,
}

impl fmt::Display for EmitterBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.resolution;
        writeln!(
            f,
            "mesh emitter: grid {r}³ cells, {PARTICLES_PER_CELL} particles per cell, {} lattice points, {} threads",
            self.lattice_points, self.threads
        )?;
        for t in &self.fills {
            writeln!(
                f,
                "  {:<6} {:>8} triangles: {:>9} particles in {:>9.1} ms (median of {REPEATS}); brute force ≈ {:.1} s",
                t.mesh,
                t.triangles,
                t.particles,
                t.ms,
                t.ms_brute_force / 1e3
            )?;
        }
        Ok(())
    }
}

/// Fills a bumpy closed sphere of about `triangles_target` triangles (radius 0.7 m in a 2 m
/// domain of `resolution`³ cells, 8 particles per cell) as a mesh emitter, then the same sphere
/// with the triangles of its top cap removed (an open mesh, whose every lattice point is
/// evaluated). Mesh generation is not timed.
pub fn emitter_benchmark(triangles_target: usize, resolution: u32) -> EmitterBenchReport {
    let spacing = DOMAIN_SIZE / resolution.max(1) as f64 / PARTICLES_PER_CELL.cbrt();
    let closed = bumpy_sphere(triangles_target, 0.0);
    let top = closed.bounds().map_or(0.0, |(_, hi)| hi.z);
    let mut open = closed.clone();
    open.triangles.retain(|t| t.iter().any(|&v| open.positions[v as usize].z < 0.8 * top));
    let emitter = Emitter::Mesh {
        material: None,
        pour: None,
        path: PathBuf::new(),
        transform: Transform::default(),
        velocity: DVec3::ZERO,
    };
    let fills = [("closed", &closed), ("open", &open)]
        .into_iter()
        .map(|(name, mesh)| time_fill(&emitter, name, mesh, spacing))
        .collect();
    EmitterBenchReport {
        resolution,
        lattice_points: emitter.max_points(spacing, Some(&closed)),
        threads: rayon::current_num_threads(),
        fills,
    }
}

fn time_fill(emitter: &Emitter, name: &'static str, mesh: &TriangleMesh, spacing: f64) -> FillTiming {
    let mut times = Vec::with_capacity(REPEATS);
    let mut particles = 0;
    for _ in 0..REPEATS {
        let start = Instant::now();
        let sampling = emitter.sample(spacing, 1, Some(mesh), false, &mut |_, _| {});
        let mut positions = Vec::with_capacity(sampling.count() as usize);
        emitter.emit(spacing, 1, Some(mesh), &sampling, |p| positions.push(p.as_vec3()));
        times.push(start.elapsed().as_secs_f64() * 1e3);
        particles = positions.len() as u64;
    }
    // The brute force tests every lattice point within the mesh's box, one solid angle per triangle.
    let (lo, hi) = mesh.bounds().unwrap_or((Vec3::ZERO, Vec3::ZERO));
    let in_box = ((hi - lo).as_dvec3() / spacing).ceil() + DVec3::ONE;
    let lattice = in_box.element_product();
    let start = Instant::now();
    let mut sink = 0.0;
    for i in 0..BRUTE_FORCE_POINTS {
        let t = (i as f32 + 0.5) / BRUTE_FORCE_POINTS as f32;
        sink += winding_number(mesh, lo + (hi - lo) * Vec3::new(t, (3.0 * t).fract(), (7.0 * t).fract()));
    }
    std::hint::black_box(sink);
    let per_point = start.elapsed().as_secs_f64() / BRUTE_FORCE_POINTS as f64;
    let threads = rayon::current_num_threads() as f64;
    FillTiming {
        mesh: name,
        triangles: mesh.triangles.len(),
        particles,
        ms: median(times),
        ms_brute_force: per_point * lattice / threads * 1e3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_benchmark_fills_the_sphere_and_reports_its_sizes() {
        let report = emitter_benchmark(2000, 16);
        assert_eq!(report.fills.len(), 2);
        let closed = &report.fills[0];
        assert_eq!(closed.triangles, 4 * 22 * 21);
        // The bumpy sphere's volume is within 3% of 4/3 π 0.7³ (bench::sdf's test), 1.437 m³, and
        // each particle stands for s³ = (2/16)³ / 8 m³.
        let volume = closed.particles as f64 * (2.0f64 / 16.0).powi(3) / 8.0;
        assert!((volume / 1.437 - 1.0).abs() < 0.06, "filled volume {volume}");
        assert!(report.to_string().contains("1848 triangles"), "{report}");
    }
}
