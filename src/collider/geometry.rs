//! Point–triangle queries shared by the signed distance build ([`super::sdf`]) and the winding
//! number ([`super::winding`]): the closest point on a triangle with the feature it lies on, and
//! the signed solid angle a triangle subtends.

use glam::Vec3;

/// The part of a triangle a closest point lies on. Corner `k` is the triangle's k-th vertex; edge
/// `k` joins corner `k` to corner `(k + 1) % 3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// The open interior of the face.
    Face,
    /// An edge, by index 0..3.
    Edge(u8),
    /// A corner, by index 0..3.
    Vertex(u8),
}

/// The closest point on a triangle to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoint {
    /// The point, metres.
    pub point: Vec3,
    /// Weights of the three corners (summing to 1) that give `point`.
    pub barycentric: [f32; 3],
    /// The feature `point` lies on, which decides the pseudo-normal used for the sign.
    pub feature: Feature,
}

/// The closest point on triangle `[a, b, c]` to `p` (Ericson, *Real-Time Collision Detection*,
/// §5.1.5). The Voronoi-region tests are inclusive on the side of edges and corners, so a point
/// whose closest point sits exactly on an edge (a grid node in the plane of a box face, say) is
/// reported on that edge and gets the edge's pseudo-normal rather than a face normal it is
/// perpendicular to. The triangle must have nonzero area (callers skip degenerate ones).
#[inline(always)]
pub fn closest_point_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> ClosestPoint {
    let at = |point, barycentric, feature| ClosestPoint { point, barycentric, feature };
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return at(a, [1.0, 0.0, 0.0], Feature::Vertex(0));
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return at(b, [0.0, 1.0, 0.0], Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return at(a + v * ab, [1.0 - v, v, 0.0], Feature::Edge(0));
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return at(c, [0.0, 0.0, 1.0], Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return at(a + w * ac, [1.0 - w, 0.0, w], Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return at(b + w * (c - b), [0.0, 1.0 - w, w], Feature::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    at(a + ab * v + ac * w, [1.0 - v - w, v, w], Feature::Face)
}

/// The signed solid angle, in steradians, that triangle `[a, b, c]` subtends at `p`: positive when
/// `p` sees the triangle's back (it is inside a closed counter-clockwise mesh). Van Oosterom and
/// Strackee (1983): `tan(Ω/2) = a·(b×c) / (|a||b||c| + (a·b)|c| + (b·c)|a| + (c·a)|b|)` with the
/// corners taken relative to `p`; `atan2` keeps the quadrant, so Ω spans (−2π, 2π].
#[inline]
pub fn solid_angle(p: Vec3, [a, b, c]: [Vec3; 3]) -> f32 {
    let (a, b, c) = (a - p, b - p, c - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let det = a.dot(b.cross(c));
    let denom = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    2.0 * det.atan2(denom)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRI: [Vec3; 3] = [Vec3::ZERO, Vec3::X, Vec3::Y];

    #[test]
    fn features_of_each_voronoi_region() {
        let q = |x, y, z| closest_point_on_triangle(Vec3::new(x, y, z), TRI);
        assert_eq!(q(0.2, 0.2, 1.0).feature, Feature::Face);
        // Barycentric arithmetic: exact up to a few ulps.
        assert!((q(0.2, 0.2, 1.0).point - Vec3::new(0.2, 0.2, 0.0)).length() < 1e-7);
        assert_eq!(q(0.5, -1.0, 0.0).feature, Feature::Edge(0));
        assert_eq!(q(1.0, 1.0, 0.0).feature, Feature::Edge(1));
        assert_eq!(q(-1.0, 0.5, 0.0).feature, Feature::Edge(2));
        assert_eq!(q(-1.0, -1.0, 0.0).feature, Feature::Vertex(0));
        assert_eq!(q(2.0, -0.5, 0.0).feature, Feature::Vertex(1));
        assert_eq!(q(-0.5, 2.0, 0.0).feature, Feature::Vertex(2));
        // Exactly above edge 0: the inclusive tests report the edge, not the face.
        assert_eq!(q(0.5, 0.0, 1.0).feature, Feature::Edge(0));
        let e = q(1.0, 1.0, 0.0);
        assert!((e.point - Vec3::new(0.5, 0.5, 0.0)).length() < 1e-7);
        assert!((e.barycentric[1] - 0.5).abs() < 1e-7 && (e.barycentric[2] - 0.5).abs() < 1e-7);
    }

    #[test]
    fn solid_angle_of_an_octant_is_an_eighth_of_the_sphere() {
        // The triangle X, Y, Z cuts the octant's cone; seen from the origin it is one eighth of 4π
        // and, wound counter-clockwise seen from outside (away from the origin), positive.
        let omega = solid_angle(Vec3::ZERO, [Vec3::X, Vec3::Y, Vec3::Z]);
        assert!((omega - std::f32::consts::FRAC_PI_2).abs() < 1e-6, "{omega}");
        assert!((solid_angle(Vec3::ZERO, [Vec3::X, Vec3::Z, Vec3::Y]) + omega).abs() < 1e-6);
    }
}
