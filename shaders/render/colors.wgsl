// The colour fields (Frame.color_field): each particle's value on the field's scale in [0, 1],
// and the colour of a value. The impostors colour each particle by its own value; the density
// volume carries the fill-weighted value per voxel (volume_splat.wgsl, channel a), so the surface
// and the volume view show the same colours, averaged over a voxel.

const SNOW_ALBEDO: vec3<f32> = vec3<f32>(0.90, 0.92, 0.95);
// Palette entries of the material field (ids repeat their colour every 8).
const MATERIAL_COLORS: u32 = 8u;

// Blue (still) → cyan → green → yellow → red (speed_scale and above).
fn speed_ramp(s: f32) -> vec3<f32> {
    let stops = array<vec3<f32>, 5>(
        vec3<f32>(0.08, 0.20, 0.75),
        vec3<f32>(0.05, 0.60, 0.85),
        vec3<f32>(0.15, 0.75, 0.25),
        vec3<f32>(0.95, 0.80, 0.10),
        vec3<f32>(0.90, 0.12, 0.05),
    );
    let x = clamp(s, 0.0, 1.0) * 4.0;
    let i = min(u32(x), 3u);
    return mix(stops[i], stops[i + 1u], x - f32(i));
}

// The Jp field's position s = clamp(2 log₂ Jp, −1, 1): full colour at a factor √2 either way.
fn plastic_position(jp: f32) -> f32 {
    return clamp(2.0 * log2(max(jp, 1.0e-6)), -1.0, 1.0);
}

// Jp < 1 (compressed, s < 0) warm, Jp > 1 (stretched) blue-violet.
fn plastic_ramp_at(s: f32) -> vec3<f32> {
    let neutral = vec3<f32>(0.88, 0.88, 0.88);
    if (s < 0.0) {
        return mix(neutral, vec3<f32>(0.95, 0.42, 0.10), -s);
    }
    return mix(neutral, vec3<f32>(0.35, 0.30, 0.95), s);
}

fn plastic_ramp(jp: f32) -> vec3<f32> {
    return plastic_ramp_at(plastic_position(jp));
}

fn material_color(id: u32) -> vec3<f32> {
    let palette = array<vec3<f32>, 8>(
        vec3<f32>(0.12, 0.47, 0.71),
        vec3<f32>(1.00, 0.50, 0.05),
        vec3<f32>(0.17, 0.63, 0.17),
        vec3<f32>(0.84, 0.15, 0.16),
        vec3<f32>(0.58, 0.40, 0.74),
        vec3<f32>(0.55, 0.34, 0.29),
        vec3<f32>(0.89, 0.47, 0.76),
        vec3<f32>(0.74, 0.74, 0.13),
    );
    return palette[id % MATERIAL_COLORS];
}

// A particle's value on the current field's scale, in [0, 1]: speed / speed_scale, (s + 1) / 2
// for Jp, the palette slot's centre for the material, 0 for plain snow.
fn field_value(velocity: vec3<f32>, plastic: ParticlePlastic) -> f32 {
    switch frame.color_field {
        case COLOR_SPEED: {
            return clamp(length(velocity) / frame.speed_scale, 0.0, 1.0);
        }
        case COLOR_PLASTIC_JACOBIAN: {
            return 0.5 * (plastic_position(plastic.plastic_jacobian) + 1.0);
        }
        case COLOR_MATERIAL: {
            return (f32(plastic.material % MATERIAL_COLORS) + 0.5) / f32(MATERIAL_COLORS);
        }
        default: {
            return 0.0;
        }
    }
}

// The colour of a value of the current field (an average over several particles for the volume;
// for the material, a voxel mixing two materials shows the nearer palette slot of their mean).
fn field_color(value: f32) -> vec3<f32> {
    switch frame.color_field {
        case COLOR_SPEED: {
            return speed_ramp(value);
        }
        case COLOR_PLASTIC_JACOBIAN: {
            return plastic_ramp_at(2.0 * value - 1.0);
        }
        case COLOR_MATERIAL: {
            return material_color(min(u32(clamp(value, 0.0, 1.0) * f32(MATERIAL_COLORS)), MATERIAL_COLORS - 1u));
        }
        default: {
            return SNOW_ALBEDO;
        }
    }
}
