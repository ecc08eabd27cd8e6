//! Triangle meshes of the analytic shapes, for drawing them (the solver uses their exact
//! distance, not these).

use glam::Vec3;

use crate::mesh::TriangleMesh;

/// A square of edge `size` in the plane z = 0 around `centre`, facing +z.
pub fn square(centre: Vec3, size: f32) -> TriangleMesh {
    let h = 0.5 * size;
    let corner = |x: f32, y: f32| centre + Vec3::new(x * h, y * h, 0.0);
    TriangleMesh {
        positions: vec![corner(-1.0, -1.0), corner(1.0, -1.0), corner(1.0, 1.0), corner(-1.0, 1.0)],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    }
}

/// The box `[-half, half]`, twelve outward-facing triangles.
pub fn cuboid(half: Vec3) -> TriangleMesh {
    let positions = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -half.x } else { half.x },
                if i & 2 == 0 { -half.y } else { half.y },
                if i & 4 == 0 { -half.z } else { half.z },
            )
        })
        .collect();
    // Each face as a quad (counter-clockwise seen from outside), split in two.
    let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
    let triangles = quads.iter().flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]]).collect();
    TriangleMesh { positions, triangles }
}

/// A latitude–longitude sphere of `radius` with `4·detail` rings and `8·detail` segments.
pub fn ball(radius: f32, detail: u32) -> TriangleMesh {
    let (rings, segments) = (4 * detail.max(1), 8 * detail.max(1));
    let mut positions = Vec::new();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            positions.push(radius * Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos()));
        }
    }
    let at = |r: u32, s: u32| r * segments + s % segments;
    let mut triangles = Vec::new();
    for r in 0..rings {
        for s in 0..segments {
            let (a, b, c, d) = (at(r, s), at(r + 1, s), at(r + 1, s + 1), at(r, s + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    TriangleMesh { positions, triangles }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Σ over triangles of a·(b×c)/6: the enclosed volume when every face points outward.
    fn signed_volume(m: &TriangleMesh) -> f32 {
        (0..m.triangles.len())
            .map(|t| {
                let [a, b, c] = m.corners(t);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn closed_shapes_face_outward_with_the_right_volume() {
        let v = signed_volume(&cuboid(Vec3::new(0.5, 1.0, 1.5)));
        assert!((v - 6.0).abs() < 1e-5, "box volume {v}");
        // A 12×24 lat-long sphere is inscribed: volume a little below 4/3 π r³ (within 3 %).
        let v = signed_volume(&ball(1.0, 3));
        let exact = 4.0 / 3.0 * std::f32::consts::PI;
        assert!(v > 0.97 * exact && v < exact, "ball volume {v}");
    }
}
