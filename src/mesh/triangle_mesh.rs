//! [`TriangleMesh`], the one mesh type the rest of powder sees.

use glam::{Mat4, Vec3};

/// A triangle soup with shared vertices, in powder's frame: z up, metres.
///
/// Triangles are counter-clockwise seen from outside (glTF's convention, kept through import), so
/// `(b − a) × (c − a)` points out of a closed mesh. Meshes need not be closed; consumers that need
/// an inside say how they treat holes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriangleMesh {
    /// Vertex positions, metres.
    pub positions: Vec<Vec3>,
    /// Vertex indices of each triangle, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

impl TriangleMesh {
    /// The three corners of triangle `t`.
    pub fn corners(&self, t: usize) -> [Vec3; 3] {
        let [a, b, c] = self.triangles[t];
        [self.positions[a as usize], self.positions[b as usize], self.positions[c as usize]]
    }

    /// Lower and upper corner of the vertices' bounding box, or `None` for a mesh without vertices.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let first = *self.positions.first()?;
        Some(self.positions.iter().fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p))))
    }

    /// The mesh with every vertex mapped through `transform` (an affine map). A transform that
    /// mirrors (negative determinant) also flips each triangle's winding, so outside stays outside.
    pub fn transformed(&self, transform: &Mat4) -> TriangleMesh {
        let positions = self.positions.iter().map(|&p| transform.transform_point3(p)).collect();
        let mut triangles = self.triangles.clone();
        if transform.determinant() < 0.0 {
            for t in &mut triangles {
                t.swap(1, 2);
            }
        }
        TriangleMesh { positions, triangles }
    }

    /// Appends `other`'s triangles, re-indexed after this mesh's vertices.
    pub fn append(&mut self, other: &TriangleMesh) {
        let offset = self.positions.len() as u32;
        self.positions.extend_from_slice(&other.positions);
        self.triangles.extend(other.triangles.iter().map(|t| t.map(|i| i + offset)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_triangle() -> TriangleMesh {
        TriangleMesh { positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y], triangles: vec![[0, 1, 2]] }
    }

    #[test]
    fn mirroring_flips_winding() {
        let m = unit_triangle().transformed(&Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)));
        assert_eq!(m.triangles[0], [0, 2, 1]);
        let [a, b, c] = m.corners(0);
        assert!((b - a).cross(c - a).z > 0.0, "normal keeps pointing +z after a mirror");
    }

    #[test]
    fn append_reindexes_and_bounds_cover_both() {
        let mut m = unit_triangle();
        m.append(&unit_triangle().transformed(&Mat4::from_translation(Vec3::splat(2.0))));
        assert_eq!(m.triangles[1], [3, 4, 5]);
        assert_eq!(m.bounds(), Some((Vec3::ZERO, Vec3::new(3.0, 3.0, 2.0))));
    }
}
