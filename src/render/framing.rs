//! Pointing the camera at a box: the app's "frame the snow" and "frame the domain", and the
//! framing of baked images (`export::images`), share this.

use glam::Vec3;

use super::camera::Camera;

/// Frames the box `lo`..`hi` in a view of `aspect` = width / height: [`Camera::frame`] fits the
/// vertical field of view; a view narrower than tall needs the distance for the horizontal one.
pub fn frame_box(camera: &mut Camera, lo: Vec3, hi: Vec3, aspect: f32) {
    camera.frame(lo, hi);
    if aspect.is_finite() && aspect > 0.0 && aspect < 1.0 {
        let half_y = 0.5 * camera.fov_y;
        let half_x = (aspect * half_y.tan()).atan();
        camera.distance *= half_y.sin() / half_x.sin();
    }
}

/// The box around `points` (positions, metres) grown by `pad` on every side, or `None` for no
/// finite point. Non-finite positions are skipped.
pub fn padded_bounds(points: impl IntoIterator<Item = Vec3>, pad: f32) -> Option<(Vec3, Vec3)> {
    let mut bounds: Option<(Vec3, Vec3)> = None;
    for p in points.into_iter().filter(|p| p.is_finite()) {
        bounds = Some(match bounds {
            Some((lo, hi)) => (lo.min(p), hi.max(p)),
            None => (p, p),
        });
    }
    bounds.map(|(lo, hi)| (lo - Vec3::splat(pad), hi + Vec3::splat(pad)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_skip_non_finite_points_and_are_padded() {
        let points = [Vec3::ZERO, Vec3::new(1.0, 2.0, f32::NAN), Vec3::new(1.0, -1.0, 2.0)];
        let (lo, hi) = padded_bounds(points, 0.5).expect("two finite points");
        assert_eq!((lo, hi), (Vec3::new(-0.5, -1.5, -0.5), Vec3::new(1.5, 0.5, 2.5)));
        assert_eq!(padded_bounds([Vec3::NAN], 1.0), None);
    }
}
