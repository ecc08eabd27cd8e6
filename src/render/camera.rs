//! An orbit camera around a target point, z-up.

use glam::{Mat4, Vec3};

/// Orbit camera: looks at `target` from `distance` away, at `yaw` around z and `pitch` above the
/// horizontal plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// The point looked at, metres.
    pub target: Vec3,
    /// Distance from target to eye, metres.
    pub distance: f32,
    /// Angle around the z axis, radians.
    pub yaw: f32,
    /// Angle above the horizontal, radians, within (−π/2, π/2).
    pub pitch: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self { target: Vec3::ZERO, distance: 3.0, yaw: -0.6, pitch: 0.35, fov_y: 45f32.to_radians() }
    }
}

impl Camera {
    /// Eye position, metres.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + self.distance * Vec3::new(cp * cy, cp * sy, sp)
    }

    /// World to view.
    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, Vec3::Z)
    }

    /// View to clip for `aspect` = width / height (wgpu depth range 0..1, reverse-free).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        let near = (self.distance * 0.01).max(1e-3);
        let far = self.distance * 100.0 + 10.0;
        Mat4::perspective_rh(self.fov_y, aspect.max(1e-3), near, far)
    }

    /// World to clip.
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Rotates around the target: `dx`, `dy` in radians.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.yaw += dx;
        self.pitch = (self.pitch + dy).clamp(-1.55, 1.55);
    }

    /// Moves the target in the view plane by `dx`, `dy` in units of the distance.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        let forward = (self.target - self.eye()).normalize();
        let right = forward.cross(Vec3::Z).normalize_or(Vec3::X);
        let up = right.cross(forward);
        self.target += (right * dx + up * dy) * self.distance;
    }

    /// Multiplies the distance by `factor` (wheel zoom), kept within sane bounds.
    pub fn zoom(&mut self, factor: f32) {
        self.distance = (self.distance * factor).clamp(1e-2, 1e4);
    }

    /// Places the target at the centre of the box and backs off until the box fits the view.
    pub fn frame(&mut self, min: Vec3, max: Vec3) {
        self.target = 0.5 * (min + max);
        let radius = 0.5 * (max - min).length();
        self.distance = (radius / (0.5 * self.fov_y).sin()).max(1e-2) * 1.05;
    }

    /// The world-space ray through the pixel at `ndc` (x, y in −1..1, y up): (origin, unit direction).
    pub fn ray(&self, ndc: glam::Vec2, aspect: f32) -> (Vec3, Vec3) {
        let inverse = self.view_projection(aspect).inverse();
        let near = inverse.project_point3(Vec3::new(ndc.x, ndc.y, 0.0));
        let far = inverse.project_point3(Vec3::new(ndc.x, ndc.y, 1.0));
        (near, (far - near).normalize())
    }
}

impl Camera {
    /// Where world `point` lands in a view of `size` pixels (width, height), in pixels from the
    /// view's top left corner (y down); `None` for a point at or behind the eye. The one
    /// world-to-pixel projection of the app's overlays, picking circles and reports.
    pub fn project_to_pixels(&self, point: Vec3, size: glam::Vec2) -> Option<glam::Vec2> {
        let clip = self.view_projection((size.x / size.y.max(1e-6)).max(1e-3)) * point.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some(glam::Vec2::new((ndc.x + 1.0) * 0.5 * size.x, (1.0 - ndc.y) * 0.5 * size.y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ray_through_the_centre_hits_the_target() {
        let camera = Camera { target: Vec3::new(1.0, 2.0, 0.5), ..Camera::default() };
        let (origin, dir) = camera.ray(glam::Vec2::ZERO, 1.5);
        let closest = origin + dir * (camera.target - origin).dot(dir);
        assert!((closest - camera.target).length() < 1e-4, "{closest}");
    }

    #[test]
    fn framing_puts_the_whole_box_in_view() {
        let mut camera = Camera::default();
        camera.frame(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0));
        let vp = camera.view_projection(1.0);
        for corner in 0..8 {
            let c = Vec3::new((corner & 1) as f32 * 2.0, ((corner >> 1) & 1) as f32, ((corner >> 2) & 1) as f32);
            let clip = vp.project_point3(c);
            assert!(clip.x.abs() <= 1.0 && clip.y.abs() <= 1.0 && (0.0..=1.0).contains(&clip.z), "{c} → {clip}");
        }
    }
}
