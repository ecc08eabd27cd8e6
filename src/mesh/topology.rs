//! Turning a primitive's index list into triangles, for the three triangle modes of glTF.
//!
//! glTF 2.0 (section 3.7.2.1, "Topology Types") defines the triangles of each mode so that all of
//! them share the winding of the first: counter-clockwise seen from the front. The formulas below
//! are the spec's, index for index.

use gltf::mesh::Mode;

/// The triangles that `indices` draw in `mode`, or `None` for the modes that draw no triangles
/// (points and lines). Triangles that repeat a vertex have no area and no normal; strips use them
/// to stitch runs together, and they are dropped here so no consumer sees a degenerate triangle.
/// A trailing partial triangle (an invalid count) is ignored.
pub(crate) fn triangles(mode: Mode, indices: &[u32]) -> Option<Vec<[u32; 3]>> {
    let n = indices.len();
    let triangles: Vec<[u32; 3]> = match mode {
        Mode::Triangles => indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        // p_i = {v_i, v_(i + 1 + i % 2), v_(i + 2 − i % 2)}: odd triangles swap their last two
        // corners, which keeps every triangle of the strip turning the same way.
        Mode::TriangleStrip => {
            (0..n.saturating_sub(2)).map(|i| [indices[i], indices[i + 1 + i % 2], indices[i + 2 - i % 2]]).collect()
        }
        // p_i = {v_(i + 1), v_(i + 2), v_0}.
        Mode::TriangleFan => (0..n.saturating_sub(2)).map(|i| [indices[i + 1], indices[i + 2], indices[0]]).collect(),
        Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip => return None,
    };
    Some(triangles.into_iter().filter(|&[a, b, c]| a != b && b != c && a != c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_swaps_odd_triangles() {
        let t = triangles(Mode::TriangleStrip, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(t, vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]);
    }

    #[test]
    fn fan_pivots_on_the_first_vertex() {
        let t = triangles(Mode::TriangleFan, &[0, 1, 2, 3]).unwrap();
        assert_eq!(t, vec![[1, 2, 0], [2, 3, 0]]);
    }

    #[test]
    fn degenerate_and_partial_triangles_are_dropped_and_lines_draw_none() {
        assert_eq!(triangles(Mode::Triangles, &[0, 1, 2, 3, 3, 4, 5]).unwrap(), vec![[0, 1, 2]]);
        assert!(triangles(Mode::TriangleStrip, &[0, 1]).unwrap().is_empty());
        assert_eq!(triangles(Mode::Lines, &[0, 1]), None);
    }
}
