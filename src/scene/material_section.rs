//! How a scene file's `material` sections are read (the scene's and each emitter's own): a
//! preset's fields with the section's put over them.

use serde::Deserialize;

use crate::sim::material::SnowMaterial;

/// Reads the `material` section: the fields it gives put over those of the preset it names
/// (`"preset": ID`), or over the reference snow's (the struct's defaults). An unknown preset is an
/// error that lists the known ones.
pub(super) fn material_with_preset<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<SnowMaterial, D::Error> {
    use serde::de::Error;
    let mut value = serde_json::Value::deserialize(deserializer)?;
    // A section written as a list is left to the shape check (`Scene::check_shape`), which runs
    // next and refuses it by name.
    if value.is_array() {
        return Ok(SnowMaterial::default());
    }
    if let Some(section) = value.as_object_mut()
        && let Some(preset) = section.remove("preset")
    {
        let id = preset.as_str().ok_or_else(|| D::Error::custom("material.preset: expected a preset's id"))?;
        let preset = crate::sim::presets::preset_by_id(id).ok_or_else(|| {
            let known: Vec<&str> = crate::sim::presets::material_presets().iter().map(|p| p.id).collect();
            D::Error::custom(format!("material.preset: unknown preset {id:?}; one of {}", known.join(", ")))
        })?;
        let mut base = serde_json::to_value(preset.material).map_err(D::Error::custom)?;
        if let Some(base) = base.as_object_mut() {
            base.extend(std::mem::take(section));
        }
        value = base;
    }
    SnowMaterial::deserialize(value).map_err(D::Error::custom)
}

/// Reads an emitter's `material` section as the scene's is read.
pub(super) fn own_material<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<SnowMaterial>, D::Error> {
    material_with_preset(deserializer).map(Some)
}
