//! The optional `view` section of a scene file: where the app's camera looks from and how it
//! draws the snow. `powder run` ignores it; the app starts with it and writes it when saving.

use glam::Vec3;
use serde::{Deserialize, Serialize};

use super::error::SceneError;
use super::ranges::RENDER_TUNABLES;
use crate::render::{Camera, ColorField, RenderMode, RenderSettings};

/// Camera and render settings of the app. Both parts are optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewConfig {
    /// Where the camera is. Optional: without it the app frames the domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraConfig>,
    /// How the snow is drawn. Optional: without it the app's defaults for the GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<RenderConfig>,
}

/// An orbit camera: a target point, a distance and two angles. Each field is optional: one left
/// out takes the app's default camera's value ([`Camera::default`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CameraConfig {
    /// The point looked at, metres.
    pub target: Vec3,
    /// Distance from the target to the eye, metres, in (0, 1e4].
    pub distance: f32,
    /// Angle around the z axis, radians (radians, not degrees, so a saved camera loads back
    /// bit for bit).
    pub yaw: f32,
    /// Angle above the horizontal, radians, in (−π/2, π/2).
    pub pitch: f32,
    /// Vertical field of view, radians, in [0.1, 2.6].
    pub fov_y: f32,
}

/// The Render panel's settings. Each field is optional: one left out takes the app's default
/// ([`RenderSettings::default`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RenderConfig {
    /// `"surface"`, `"particles"`, `"volume"` or `"both"`.
    pub mode: ViewMode,
    /// `"snow"`, `"speed"`, `"plastic_jacobian"` or `"material"`.
    pub color: ViewColor,
    /// Particle size, × half the particle spacing, in [0.2, 3].
    pub particle_scale: f32,
    /// Exposure, in [0.1, 8].
    pub exposure: f32,
    /// Volume density multiplier, in [0.1, 20].
    pub density_scale: f32,
    /// Speed at the top of the speed colour scale, m/s, in [0.5, 50].
    pub speed_scale: f32,
    /// Fraction of the window's pixels the 3D view renders, in [0.25, 1].
    pub resolution_scale: f32,
}

/// What the view draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewMode {
    /// The snow's surface.
    Surface,
    /// Particle impostors.
    Particles,
    /// The density volume.
    Volume,
    /// Both.
    Both,
}

/// What the particles' colour shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewColor {
    /// Shaded white snow.
    Snow,
    /// Speed.
    Speed,
    /// The plastic Jacobian Jp (packed or loosened snow).
    PlasticJacobian,
    /// The material id.
    Material,
}

impl Default for CameraConfig {
    fn default() -> Self {
        Self::of(&Camera::default())
    }
}

impl Default for RenderConfig {
    fn default() -> Self {
        Self::of(&RenderSettings::default())
    }
}

impl CameraConfig {
    /// The settings of `camera`.
    pub fn of(camera: &Camera) -> Self {
        Self {
            target: camera.target,
            distance: camera.distance,
            yaw: camera.yaw,
            pitch: camera.pitch,
            fov_y: camera.fov_y,
        }
    }

    /// The camera these settings describe.
    pub fn camera(&self) -> Camera {
        Camera { target: self.target, distance: self.distance, yaw: self.yaw, pitch: self.pitch, fov_y: self.fov_y }
    }
}

impl RenderConfig {
    /// The settings of `render`.
    pub fn of(render: &RenderSettings) -> Self {
        let mode = match render.mode {
            RenderMode::Surface => ViewMode::Surface,
            RenderMode::Particles => ViewMode::Particles,
            RenderMode::Volume => ViewMode::Volume,
            RenderMode::Both => ViewMode::Both,
        };
        let color = match render.color_field {
            ColorField::Snow => ViewColor::Snow,
            ColorField::Speed => ViewColor::Speed,
            ColorField::PlasticJacobian => ViewColor::PlasticJacobian,
            ColorField::Material => ViewColor::Material,
        };
        Self {
            mode,
            color,
            particle_scale: render.particle_scale,
            exposure: render.exposure,
            density_scale: render.density_scale,
            speed_scale: render.speed_scale,
            resolution_scale: render.resolution_scale,
        }
    }

    /// The render settings these describe.
    pub fn settings(&self) -> RenderSettings {
        let mode = match self.mode {
            ViewMode::Surface => RenderMode::Surface,
            ViewMode::Particles => RenderMode::Particles,
            ViewMode::Volume => RenderMode::Volume,
            ViewMode::Both => RenderMode::Both,
        };
        let color_field = match self.color {
            ViewColor::Snow => ColorField::Snow,
            ViewColor::Speed => ColorField::Speed,
            ViewColor::PlasticJacobian => ColorField::PlasticJacobian,
            ViewColor::Material => ColorField::Material,
        };
        RenderSettings {
            mode,
            color_field,
            particle_scale: self.particle_scale,
            exposure: self.exposure,
            density_scale: self.density_scale,
            speed_scale: self.speed_scale,
            resolution_scale: self.resolution_scale,
        }
    }
}

impl ViewConfig {
    /// Checks each number against the range the app's controls allow; the error names the field.
    pub fn validate(&self, source: &str) -> Result<(), SceneError> {
        let check = |field: &str, value: f32, lo: f32, hi: f32, open: bool| {
            let inside = if open { value > lo && value < hi } else { (lo..=hi).contains(&value) };
            if inside && value.is_finite() {
                return Ok(());
            }
            let allowed = if open { format!("({lo}, {hi})") } else { format!("[{lo}, {hi}]") };
            Err(SceneError::Invalid {
                source_name: source.to_string(),
                field: format!("view.{field}"),
                value: value.to_string(),
                allowed,
            })
        };
        if let Some(c) = &self.camera {
            if !c.target.is_finite() {
                return Err(SceneError::Invalid {
                    source_name: source.to_string(),
                    field: "view.camera.target".to_string(),
                    value: format!("{:?}", c.target.to_array()),
                    allowed: "finite coordinates".to_string(),
                });
            }
            check("camera.distance", c.distance, 1e-4, 1e4, false)?;
            check("camera.yaw", c.yaw, -1e3, 1e3, false)?;
            check("camera.pitch", c.pitch, -std::f32::consts::FRAC_PI_2, std::f32::consts::FRAC_PI_2, true)?;
            check("camera.fov_y", c.fov_y, 0.1, 2.6, false)?;
        }
        if let Some(r) = &self.render {
            // The ranges the Render panel's sliders offer, from the one table (`ranges.rs`).
            let values = [r.particle_scale, r.exposure, r.density_scale, r.speed_scale, r.resolution_scale];
            for (t, value) in RENDER_TUNABLES.iter().zip(values) {
                let field = t.field.strip_prefix("view.").unwrap_or(t.field);
                check(field, value, t.min as f32, t.max as f32, false)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode and colour field maps to its own name and back, and survives JSON exactly.
    #[test]
    fn render_settings_round_trip_through_the_view_section() {
        let modes = RenderMode::ALL;
        let fields = [ColorField::Snow, ColorField::Speed, ColorField::PlasticJacobian, ColorField::Material];
        let mut names = std::collections::BTreeSet::new();
        for mode in modes {
            for color_field in fields {
                let settings = RenderSettings { mode, color_field, exposure: 1.1, ..RenderSettings::default() };
                let config = RenderConfig::of(&settings);
                let json = serde_json::to_string(&config).expect("json");
                names.insert(json.clone());
                let back: RenderConfig = serde_json::from_str(&json).expect("parses");
                assert_eq!(back.settings(), settings, "{json}");
            }
        }
        assert_eq!(names.len(), modes.len() * fields.len(), "two settings share a name");
    }

    /// The render settings a view section may hold are the Render panel's ranges, from the one
    /// table: each end is accepted, and a value a thousandth outside either end is refused with
    /// its field named.
    #[test]
    fn render_settings_are_held_to_the_ranges_table() {
        let fields: [fn(&mut RenderConfig) -> &mut f32; 5] = [
            |r| &mut r.particle_scale,
            |r| &mut r.exposure,
            |r| &mut r.density_scale,
            |r| &mut r.speed_scale,
            |r| &mut r.resolution_scale,
        ];
        for (t, field) in RENDER_TUNABLES.iter().zip(fields) {
            let with = |v: f32| {
                let mut render = RenderConfig::default();
                *field(&mut render) = v;
                ViewConfig { camera: None, render: Some(render) }.validate("test")
            };
            assert!(with(t.min as f32).is_ok() && with(t.max as f32).is_ok(), "{}: its ends", t.field);
            for outside in [t.min * 0.999, t.max * 1.001] {
                let err = with(outside as f32).expect_err(t.field).to_string();
                assert!(err.contains(t.field), "{}: {err}", t.field);
            }
        }
    }
}
