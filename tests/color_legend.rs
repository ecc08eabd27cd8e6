//! The colour legends' ramps (`render::particles::color_ramps`) against the shader's: the same
//! stops, read from `shaders/render/colors.wgsl`'s text, and the same ends and middle.

use glam::Vec3;
use powder::render::particles::color_ramps;

/// The `vec3<f32>(a, b, c)` literals in the body of WGSL function `name`, in order.
fn literals(name: &str) -> Vec<[f32; 3]> {
    let source = include_str!("../shaders/render/colors.wgsl");
    let start = source.find(&format!("fn {name}(")).unwrap_or_else(|| panic!("no fn {name} in colors.wgsl"));
    let body = &source[start..];
    let body = &body[..body.find("\n}\n").expect("end of function")];
    body.split("vec3<f32>(")
        .skip(1)
        .filter_map(|rest| {
            let args: Vec<f32> =
                rest[..rest.find(')')?].split(',').map(|a| a.trim().parse().ok()).collect::<Option<_>>()?;
            <[f32; 3]>::try_from(args).ok()
        })
        .collect()
}

#[test]
fn the_legend_ramps_are_the_shaders() {
    assert_eq!(literals("speed_ramp"), color_ramps::SPEED_STOPS.to_vec());
    // plastic_ramp_at: neutral, compressed, stretched, in that order.
    assert_eq!(
        literals("plastic_ramp_at"),
        vec![color_ramps::PLASTIC_NEUTRAL, color_ramps::PLASTIC_COMPRESSED, color_ramps::PLASTIC_STRETCHED]
    );
    assert_eq!(literals("material_color"), color_ramps::MATERIAL_PALETTE.to_vec());
}

#[test]
fn the_ramps_reach_their_ends_where_the_legend_labels_them() {
    // f32 rounding of log₂ and the lerp: well under one 8-bit level (1/255).
    let close = |a: Vec3, b: [f32; 3]| (a - Vec3::from(b)).abs().max_element() < 1e-5;
    assert!(close(color_ramps::speed(0.0), color_ramps::SPEED_STOPS[0]));
    assert!(close(color_ramps::speed(0.5), color_ramps::SPEED_STOPS[2]));
    assert!(close(color_ramps::speed(3.0), color_ramps::SPEED_STOPS[4]));
    assert!(close(color_ramps::plastic(1.0), color_ramps::PLASTIC_NEUTRAL));
    assert!(close(color_ramps::plastic(0.5f32.sqrt()), color_ramps::PLASTIC_COMPRESSED));
    assert!(close(color_ramps::plastic(2f32.sqrt()), color_ramps::PLASTIC_STRETCHED));
    assert!(close(color_ramps::material(11), color_ramps::MATERIAL_PALETTE[3]));
}
