// view_blit: the app's 3D view texture drawn over its rectangle of the window inside egui's pass
// (egui sets the viewport to the rectangle). It replaces the pixels instead of blending over them,
// and samples once: on a software rasteriser, egui's own image quad (vertex colour, dithering,
// blending) cost as much as drawing the scene. With a blending pipeline (src/render/view_blit.rs)
// the same pass lays the app's cached UI layer over the window, texel for texel.

@group(0) @binding(0) var view_texture: texture_2d<f32>;
@group(0) @binding(1) var view_sampler: sampler;

struct Blit {
    @builtin(position) position: vec4<f32>,
    // 0..1 across the view, y down as in the texture.
    @location(0) uv: vec2<f32>,
}

// One triangle covering the viewport: uv (0,0), (2,0), (0,2).
@vertex
fn view_blit_vertex(@builtin(vertex_index) index: u32) -> Blit {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    var out: Blit;
    out.position = vec4<f32>(2.0 * uv.x - 1.0, 1.0 - 2.0 * uv.y, 0.0, 1.0);
    out.uv = uv;
    return out;
}

@fragment
fn view_blit_fragment(in: Blit) -> @location(0) vec4<f32> {
    return textureSampleLevel(view_texture, view_sampler, in.uv, 0.0);
}
